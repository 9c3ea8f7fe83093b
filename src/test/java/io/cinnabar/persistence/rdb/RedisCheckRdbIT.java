package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.persistence.rdb.Values.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Files our writer produces pass Redis's own checker, redis-check-rdb (from redis-tools). Skipped
 * where it is not installed.
 */
class RedisCheckRdbIT {
    private static Path checker() {
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, "redis-check-rdb");
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    private static void assertRedisAccepts(byte[] file, long keys) throws IOException, InterruptedException {
        Path checker = checker();
        assumeTrue(checker != null, "redis-check-rdb not installed");
        Path f = Files.createTempFile("cinnabar-", ".rdb");
        try {
            Files.write(f, file);
            Process p = new ProcessBuilder(checker.toString(), f.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "redis-check-rdb did not finish");
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("RDB looks OK"), out);
            assertTrue(out.contains("[info] " + keys + " keys read"), out);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    @Test
    void everyEncodingWeWritePassesTheChecker() throws Exception {
        Map<String, Object> values = RdbWriterReaderTest.everyEncoding();
        for (boolean compression : new boolean[] {true, false}) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            RdbWriter w = new RdbWriter(out, compression, true);
            w.begin(RdbWriter.standardAux(1700000000L, 1 << 20, false));
            w.function(b("#!lua name=lib\nredis.register_function('f', function() return 1 end)"));
            for (int db : new int[] {0, 7}) {
                w.selectDb(db, values.size(), 1);
                for (Map.Entry<String, Object> e : values.entrySet()) {
                    w.key(b(e.getKey()), e.getValue(), e.getKey().equals("set:intset") ? 4102444800000L : -1);
                }
            }
            w.end();
            assertRedisAccepts(out.toByteArray(), 2L * values.size());
        }
    }

    @Test
    void redisFileRewrittenByUsPassesTheChecker() throws Exception {
        Loaded redis = Loaded.read(RedisFilesTest.resource("redis-7.0.15-all-types.rdb"), RdbLoadOptions.DEFAULTS);
        assertRedisAccepts(Rewrite.write(redis, true, true), redis.keys.size());
        assertRedisAccepts(Rewrite.write(redis, false, false), redis.keys.size());
    }
}
