package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.RestoreParams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files and DUMP payloads move between real Redis 7.0 and Cinnabar in both directions with every
 * type, encoding, TTL and database intact; Redis's own checkers accept what Cinnabar writes.
 * Skipped where redis-server / redis-tools are not installed (CI installs them).
 */
class RedisInteropIT {
    @TempDir
    Path dir;

    private CinnabarServer cinnabar(Path in, String... options) {
        CinnabarServer.Builder b = CinnabarServer.builder().port(0).option("dir", in.toString());
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.build().start();
    }

    private static Jedis client(CinnabarServer s) {
        return new Jedis("127.0.0.1", s.port());
    }

    private Path sub(String name) throws Exception {
        return Files.createDirectories(dir.resolve(name));
    }

    @Test
    void dumpWrittenByCinnabarPassesRedisCheckRdbAndLoadsIntoRedis() throws Exception {
        Path a = sub("a");
        Map<String, String> written;
        try (CinnabarServer s = cinnabar(a); Jedis j = client(s)) {
            DataSet.fill(j);
            written = DataSet.of(j, 16);
            j.save();
        }
        String[] check = RealRedis.run("redis-check-rdb", a.resolve("dump.rdb").toString());
        assertEquals("0", check[0], check[1]);
        assertTrue(check[1].contains("RDB looks OK!"), check[1]);
        try (RealRedis r = RealRedis.start(a); Jedis j = r.client()) {
            DataSet.assertSame(written, DataSet.of(j, 16), "Redis loading Cinnabar's dump");
        }
    }

    @Test
    void dumpWrittenByRedisLoadsIntoCinnabar() throws Exception {
        Path a = sub("a");
        Map<String, String> written;
        try (RealRedis r = RealRedis.start(a); Jedis j = r.client()) {
            DataSet.fill(j);
            written = DataSet.of(j, 16);
            j.save();
        }
        try (CinnabarServer s = cinnabar(a); Jedis j = client(s)) {
            DataSet.assertSame(written, DataSet.of(j, 16), "Cinnabar loading Redis's dump");
        }
    }

    @Test
    void appendOnlyDirectoriesMoveBothWays() throws Exception {
        for (String preamble : List.of("yes", "no")) {
            Path ours = sub("ours-" + preamble);
            Map<String, String> written;
            try (CinnabarServer s = cinnabar(ours, "appendonly", "yes", "aof-use-rdb-preamble", preamble);
                 Jedis j = client(s)) {
                DataSet.fill(j);
                j.bgrewriteaof();
                awaitRewrite(j);
                j.set("after-rewrite", "1");
                j.select(5);
                j.rpush("db5-list", "x", "y");
                j.select(0);
                written = DataSet.of(j, 16);
            }
            String[] check = RealRedis.run("redis-check-aof", ours.resolve("appendonlydir/appendonly.aof.manifest").toString());
            assertEquals("0", check[0], check[1]);
            assertTrue(check[1].contains("All AOF files and manifest are valid"), check[1]);
            try (RealRedis r = RealRedis.start(ours, "--appendonly", "yes"); Jedis j = r.client()) {
                DataSet.assertSame(written, DataSet.of(j, 16), "Redis loading Cinnabar's AOF, preamble " + preamble);
            }

            Path theirs = sub("theirs-" + preamble);
            try (RealRedis r = RealRedis.start(theirs, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble);
                 Jedis j = r.client()) {
                DataSet.fill(j);
                j.bgrewriteaof();
                awaitRewrite(j);
                j.set("after-rewrite", "1");
                written = DataSet.of(j, 16);
            }
            try (CinnabarServer s = cinnabar(theirs, "appendonly", "yes"); Jedis j = client(s)) {
                DataSet.assertSame(written, DataSet.of(j, 16), "Cinnabar loading Redis's AOF, preamble " + preamble);
            }
        }
    }

    @Test
    void redis6SingleFileAofIsUpgradedOnLoad() throws Exception {
        for (String preamble : List.of("no", "yes")) {
            Path a = sub("a-" + preamble);
            Path aofDir = sub("redis-" + preamble);
            Map<String, String> written;
            try (RealRedis r = RealRedis.start(aofDir, "--appendonly", "yes", "--aof-use-rdb-preamble", preamble);
                 Jedis j = r.client()) {
                j.set("in-the-base", "1");
                j.bgrewriteaof();
                awaitRewrite(j);
                DataSet.fill(j);
                written = DataSet.of(j, 16);
            }
            // A Redis 6 AOF is one file: an RDB preamble (or commands) followed by the commands
            // since, which is exactly Redis 7's base file followed by its incr file.
            java.io.ByteArrayOutputStream single = new java.io.ByteArrayOutputStream();
            try (Stream<Path> files = Files.list(aofDir.resolve("appendonlydir"))) {
                for (Path p : files.filter(p -> p.toString().contains(".base.")).toList()) single.write(Files.readAllBytes(p));
            }
            try (Stream<Path> files = Files.list(aofDir.resolve("appendonlydir"))) {
                for (Path p : files.filter(p -> p.toString().endsWith(".incr.aof")).toList()) single.write(Files.readAllBytes(p));
            }
            Files.write(a.resolve("appendonly.aof"), single.toByteArray());
            try (CinnabarServer s = cinnabar(a, "appendonly", "yes"); Jedis j = client(s)) {
                DataSet.assertSame(written, DataSet.of(j, 16), "Cinnabar loading a Redis 6 style AOF, preamble " + preamble);
            }
            assertTrue(Files.exists(a.resolve("appendonlydir/appendonly.aof.manifest")));
        }
    }

    @Test
    void dumpPayloadsRoundTripRedisCinnabarRedis() throws Exception {
        Path a = sub("a");
        try (RealRedis r = RealRedis.start(a); Jedis redis = r.client();
             CinnabarServer s = cinnabar(sub("b")); Jedis ours = client(s)) {
            DataSet.fill(redis);
            Map<String, String> original = DataSet.of(redis, 16);
            for (int db : new int[] {0, 1, 9}) {
                redis.select(db);
                ours.select(db);
                for (String key : redis.keys("*")) {
                    byte[] payload = redis.dump(key);
                    long at = redis.pexpireTime(key);
                    ours.restore(key.getBytes(), at > 0 ? at : 0, payload,
                            RestoreParams.restoreParams().absTtl());
                }
            }
            DataSet.assertSame(original, DataSet.of(ours, 16), "Redis DUMP restored into Cinnabar");
            redis.flushAll();
            for (int db : new int[] {0, 1, 9}) {
                redis.select(db);
                ours.select(db);
                for (String key : ours.keys("*")) {
                    long at = ours.pexpireTime(key);
                    redis.restore(key.getBytes(), at > 0 ? at : 0, ours.dump(key),
                            RestoreParams.restoreParams().absTtl());
                }
            }
            DataSet.assertSame(original, DataSet.of(redis, 16), "Cinnabar DUMP restored into Redis");
        }
    }

    private static void awaitRewrite(Jedis j) throws InterruptedException {
        for (int i = 0; i < 3000 && !j.info("persistence").contains("aof_rewrite_in_progress:0\r\n"); i++) Thread.sleep(10);
        for (int i = 0; i < 3000 && j.info("persistence").contains("aof_rewrite_scheduled:1"); i++) Thread.sleep(10);
        assertTrue(j.info("persistence").contains("aof_rewrite_in_progress:0\r\n"));
    }
}
