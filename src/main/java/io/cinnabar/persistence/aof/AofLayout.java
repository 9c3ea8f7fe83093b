package io.cinnabar.persistence.aof;

import java.nio.file.Path;

/**
 * Where the append-only files live and how they are named (Redis 7.0's naming rules in aof.c):
 * {@code <dir>/<appenddirname>/<appendfilename>.<seq>.base.rdb|.aof},
 * {@code <appendfilename>.<seq>.incr.aof} and {@code <appendfilename>.manifest}; a Redis 6 style
 * single file is {@code <dir>/<appendfilename>}. Redis requires both names to be plain file names,
 * which the config layer checks.
 *
 * @param dir      the server's {@code dir}
 * @param dirName  {@code appenddirname}
 * @param fileName {@code appendfilename}
 */
public record AofLayout(Path dir, String dirName, String fileName) {
    static final String TEMP_PREFIX = "temp-";

    public static AofLayout defaults(Path dir) {
        return new AofLayout(dir, "appendonlydir", "appendonly.aof");
    }

    public Path aofDir() {
        return dir.resolve(dirName);
    }

    /** A file of the multi-part AOF, by the name the manifest gives it. */
    public Path file(String name) {
        return aofDir().resolve(name);
    }

    public String manifestName() {
        return fileName + ".manifest";
    }

    public Path manifestPath() {
        return file(manifestName());
    }

    /** The Redis 6 single append-only file, which start-up moves into the directory. */
    public Path oldStyleFile() {
        return dir.resolve(fileName);
    }

    String tempManifestName() {
        return TEMP_PREFIX + fileName + ".manifest";
    }

    /** Collects writes while the AOF waits for its first rewrite after being switched on. */
    String tempIncrName() {
        return TEMP_PREFIX + fileName + ".incr";
    }

    String baseName(long seq, boolean rdb) {
        return fileName + "." + seq + ".base" + (rdb ? ".rdb" : ".aof");
    }

    String incrName(long seq) {
        return fileName + "." + seq + ".incr.aof";
    }

    /**
     * Where a background rewrite writes the new base before it is renamed in. Redis names it after
     * the child's pid in {@code dir}; without a child, the server's own pid keeps the name unique.
     */
    Path rewriteTempFile() {
        return dir.resolve("temp-rewriteaof-bg-" + ProcessHandle.current().pid() + ".aof");
    }

    /** Where a synchronous rewrite (the start-up base) is written before its rename. */
    Path syncRewriteTempFile() {
        return dir.resolve("temp-rewriteaof-" + ProcessHandle.current().pid() + ".aof");
    }
}
