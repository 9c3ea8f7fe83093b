package io.cinnabar.persistence.aof;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Loads a multi-part AOF in manifest order (BASE, then each INCR file), as Redis 7.0's
 * loadAppendOnlyFiles does, moving a Redis 6 single file into the directory first. Commands go
 * to the consumer as {@code byte[][]}; an RDB BASE or preamble goes to the {@link RdbPreambleLoader}.
 * Runs on whichever thread calls it and starts none. Log lines are Redis's own texts: the Redis
 * test suite greps for them, and the last line before a failure is the one it looks at.
 */
public final class AofLoader {
    private static final Logger log = LoggerFactory.getLogger(AofLoader.class);
    /** AOF_ANNOTATION_LINE_MAX_LEN: the fgets buffer for "*n", "$len" and "#..." lines. */
    private static final int LINE_BUFFER = 1024;
    private static final byte[] REDIS = {'R', 'E', 'D', 'I', 'S'};

    /**
     * The outcome of {@link #loadAll}. {@code manifest} is the one to continue with (it differs from
     * the one passed in after an upgrade from a Redis 6 file); the sizes seed aof_current_size and
     * aof_base_size.
     */
    public record Result(AofLoadStatus status, AofManifest manifest, long totalSize, long baseSize) {}

    private final AofLayout layout;
    private final boolean loadTruncated;
    private final RdbPreambleLoader rdbLoader;
    private final Consumer<byte[][]> commands;

    /**
     * @param loadTruncated {@code aof-load-truncated}
     * @param rdbLoader     reads an RDB BASE file or preamble
     * @param commands      replays one command; may throw {@link AofReplayException} to fail the load.
     *                      A MULTI block reaches it only once its EXEC has been read, so an
     *                      unfinished transaction at the end of the AOF is never replayed.
     */
    public AofLoader(AofLayout layout, boolean loadTruncated, RdbPreambleLoader rdbLoader, Consumer<byte[][]> commands) {
        this.layout = layout;
        this.loadTruncated = loadTruncated;
        this.rdbLoader = rdbLoader;
        this.commands = commands;
    }

    /** loadAppendOnlyFiles. */
    public Result loadAll(AofManifest manifest) {
        try {
            manifest = AofUpgrade.prepareIfNeeded(layout, manifest);
        } catch (IOException e) {
            return new Result(AofLoadStatus.FAILED, manifest, 0, 0);
        }
        if (manifest.hasNoData()) return new Result(AofLoadStatus.NOT_EXIST, manifest, 0, 0);

        List<AofManifest.FileInfo> files = new ArrayList<>();
        if (manifest.base() != null) files.add(manifest.base());
        files.addAll(manifest.incrs());

        long total = 0, baseSize = 0;
        for (AofManifest.FileInfo f : files) {
            try {
                long size = Files.size(layout.file(f.fileName()));
                if (f.type() == AofManifest.FileType.BASE) baseSize = size;
                total += size;
            } catch (IOException e) {
                log.warn("Unable to obtain the AOF file {} length. stat: {}", f.fileName(), IoErrors.strerror(e));
                // A file the manifest lists but the disk lacks is fatal, whatever stat said.
                AofLoadStatus s = e instanceof NoSuchFileException ? AofLoadStatus.FAILED : AofLoadStatus.OPEN_ERR;
                return new Result(s, manifest, 0, 0);
            }
        }
        if (total == 0) return new Result(AofLoadStatus.EMPTY, manifest, 0, 0);

        AofLoadStatus status = AofLoadStatus.OK;
        for (int i = 0; i < files.size(); i++) {
            AofManifest.FileInfo f = files.get(i);
            boolean last = i == files.size() - 1;
            boolean isBase = f.type() == AofManifest.FileType.BASE;
            long start = System.nanoTime();
            status = loadFile(f.fileName(), last);
            if (status == AofLoadStatus.OK || status == AofLoadStatus.TRUNCATED) {
                log.info("DB loaded from {} file {}: {} seconds", isBase ? "base" : "incr", f.fileName(), seconds(start));
            }
            // Some file has bytes (total > 0), so an empty one among them is no reason to stop.
            if (status == AofLoadStatus.EMPTY && !isBase) status = AofLoadStatus.OK;
            if (status == AofLoadStatus.OPEN_ERR || status == AofLoadStatus.FAILED) {
                return new Result(status, manifest, 0, 0);
            }
        }
        return new Result(status, manifest, total, baseSize);
    }

    /**
     * loadSingleAppendOnlyFile for one file of the AOF directory. Only the last file may be cut back
     * after a short read: Redis cuts any file and then fails if it was not the last, which loses
     * data that a later --fix could have kept, so this one fails before touching the file.
     */
    public AofLoadStatus loadFile(String fileName, boolean lastFile) {
        Path path = layout.file(fileName);
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            log.warn("The append log file {} doesn't exist: {}", fileName, IoErrors.strerror(e));
            return AofLoadStatus.NOT_EXIST;
        } catch (IOException e) {
            log.warn("Fatal error: can't open the append log file {} for reading: {}", fileName, IoErrors.strerror(e));
            return AofLoadStatus.OPEN_ERR;
        }
        try (channel) {
            if (channel.size() == 0) return AofLoadStatus.EMPTY;
            return new FileReplay(fileName, path, new AofInput(channel), lastFile).run();
        } catch (IOException e) {
            log.warn("Unrecoverable error reading the append only file {}: {}", fileName, IoErrors.strerror(e));
            return AofLoadStatus.FAILED;
        }
    }

    /** The state of loading one file: where the last whole command ended, and an open MULTI. */
    private final class FileReplay {
        private final String name;
        private final Path path;
        private final AofInput in;
        private final boolean lastFile;
        private final byte[] line = new byte[LINE_BUFFER];
        private long validUpTo, validBeforeMulti;
        /** Commands from MULTI on, held back until EXEC, as Redis queues them on its fake client. */
        private List<byte[][]> transaction;

        FileReplay(String name, Path path, AofInput in, boolean lastFile) {
            this.name = name;
            this.path = path;
            this.in = in;
            this.lastFile = lastFile;
        }

        AofLoadStatus run() throws IOException {
            if (in.startsWith(REDIS)) {
                AofLoadStatus s = loadRdbPreamble();
                if (s != null) return s;
            }
            while (true) {
                long lineStart = in.offset();
                int n = in.fgets(line);
                if (n == 0) {
                    if (in.atEof()) break;
                    return unreadable();
                }
                if (line[0] == '#') continue;
                if (line[0] != '*') return badFormat(lineStart);
                if (n == 1 || line[1] == 0) return in.atEof() ? unexpectedEof() : unreadable();
                int argc = (int) CNumbers.strtol(line, 1, n);
                if (argc < 1) return badFormat(lineStart);

                List<byte[]> argv = new ArrayList<>(Math.min(argc, 1024));
                for (int j = 0; j < argc; j++) {
                    long argStart = in.offset();
                    n = in.fgets(line);
                    if (n == 0) return in.atEof() ? unexpectedEof() : unreadable();
                    if (line[0] != '$') return badFormat(argStart);
                    long len = CNumbers.strtol(line, 1, n);
                    // Redis would read a negative length as a huge unsigned one and die allocating it.
                    if (len < 0) return badFormat(argStart);
                    byte[] arg = in.readExactly(len);
                    if (arg == null || !in.discard(2)) return in.atEof() ? unexpectedEof() : unreadable();
                    argv.add(arg);
                }
                try {
                    replay(argv.toArray(new byte[0][]));
                } catch (AofReplayException e) {
                    log.warn("{} reading the append only file {}", e.getMessage(), name);
                    return AofLoadStatus.FAILED;
                }
                validUpTo = in.offset();
            }
            if (transaction != null) {
                // Protocol-wise the file is fine, but a MULTI without EXEC is a write cut short.
                log.warn("Revert incomplete MULTI/EXEC transaction in AOF file {}", name);
                return unexpectedEof();
            }
            return AofLoadStatus.OK;
        }

        /** Returns null to go on with the AOF tail, or the status that ends this file. */
        private AofLoadStatus loadRdbPreamble() throws IOException {
            boolean oldStyle = name.equals(layout.fileName());
            log.info(oldStyle ? "Reading RDB preamble from AOF file..." : "Reading RDB base file on AOF loading...");
            try {
                long length = rdbLoader.load(in.asStream());
                if (length >= 0) in.seek(length);
            } catch (IOException | RuntimeException e) {
                if (oldStyle) {
                    log.warn("Error reading the RDB preamble of the AOF file {}, AOF loading aborted", name);
                } else {
                    log.warn("Error reading the RDB base file {}, AOF loading aborted", name);
                }
                if (in.atEof() || e instanceof EOFException) return unexpectedEof();
                String reason = e instanceof IOException ? IoErrors.strerror((IOException) e) : String.valueOf(e.getMessage());
                log.warn("Unrecoverable error reading the append only file {}: {}", name, reason);
                return AofLoadStatus.FAILED;
            }
            // Redis leaves the cut point at 0 here, so a short AOF tail would truncate the RDB away too.
            validUpTo = in.offset();
            if (oldStyle) log.info("Reading the remaining AOF tail...");
            return null;
        }

        private void replay(byte[][] argv) {
            // The loader has no command table (it sits below the dispatcher), and MULTI/EXEC are
            // the only names whose framing it must understand to drop an unfinished transaction.
            boolean multi = isNamed(argv[0], "multi");
            if (multi) validBeforeMulti = validUpTo;
            if (transaction != null) {
                transaction.add(argv);
                if (isNamed(argv[0], "exec")) {
                    List<byte[][]> done = transaction;
                    transaction = null;
                    done.forEach(commands);
                }
            } else if (multi) {
                transaction = new ArrayList<>();
                transaction.add(argv);
            } else {
                commands.accept(argv);
            }
        }

        /** fgets gave nothing though the file has not ended, or "*" ran into a NUL byte. */
        private AofLoadStatus unreadable() {
            log.warn("Unrecoverable error reading the append only file {}: {}", name, "unreadable command header");
            return AofLoadStatus.FAILED;
        }

        private AofLoadStatus badFormat(long offset) {
            log.warn("Bad file format at offset {} of the append only file {}", offset, name);
            log.warn("Bad file format reading the append only file {}: make a backup of your AOF file, "
                    + "then use ./redis-check-aof --fix <filename.manifest>", name);
            return AofLoadStatus.FAILED;
        }

        private AofLoadStatus unexpectedEof() {
            // redis-server would cut after the last queued command, leaving a MULTI that the next
            // start reverts anyway; cutting at the MULTI at once is what redis-check-aof --fix does.
            if (transaction != null) validUpTo = validBeforeMulti;
            if (loadTruncated) {
                log.warn("!!! Warning: short read while loading the AOF file {}!!!", name);
                if (!lastFile) {
                    log.warn("Fatal error: the truncated file is not the last file");
                    return AofLoadStatus.FAILED;
                }
                log.warn("!!! Truncating the AOF {} at offset {} !!!", name, validUpTo);
                try (FileChannel w = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    w.truncate(validUpTo);
                    log.warn("AOF {} loaded anyway because aof-load-truncated is enabled", name);
                    return AofLoadStatus.TRUNCATED;
                } catch (IOException e) {
                    log.warn("Error truncating the AOF file {}: {}", name, IoErrors.strerror(e));
                }
            }
            log.warn("Unexpected end of file reading the append only file {}. You can: "
                    + "1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "
                    + "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and "
                    + "restart the server.", name);
            return AofLoadStatus.FAILED;
        }
    }

    private static boolean isNamed(byte[] arg, String lowerName) {
        if (arg.length != lowerName.length()) return false;
        for (int i = 0; i < arg.length; i++) {
            int c = arg[i];
            if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
            if (c != lowerName.charAt(i)) return false;
        }
        return true;
    }

    private static String seconds(long startNanos) {
        return String.format(Locale.ROOT, "%.3f", (System.nanoTime() - startNanos) / 1e9);
    }
}
