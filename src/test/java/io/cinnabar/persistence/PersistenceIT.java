package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.args.BitOP;
import redis.clients.jedis.params.RestoreParams;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Data survives restarts through RDB and AOF; saves and rewrites behave as Redis's do. */
class PersistenceIT {
    @TempDir
    Path dir;

    private CinnabarServer start(String... options) {
        return start(dir, options);
    }

    /** A server on clock (which the test moves), with this test's directory; DEBUG allowed. */
    private CinnabarServer start(io.cinnabar.ManualClock clock) {
        return CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("enable-debug-command", "yes").clock(clock).build().start();
    }

    /**
     * A server on a free port with dir as its directory and the given option/value pairs; DEBUG
     * and CONFIG SET dir/dbfilename allowed (Redis's defaults refuse them).
     */
    static CinnabarServer start(Path dir, String... options) {
        CinnabarServer.Builder b = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("enable-debug-command", "yes").option("enable-protected-configs", "yes");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.build().start();
    }

    private static Jedis client(CinnabarServer s) {
        return new Jedis("127.0.0.1", s.port());
    }

    private static String debug(Jedis j, String... args) {
        return new String((byte[]) j.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), args),
                StandardCharsets.UTF_8);
    }

    private static String info(Jedis j, String field) {
        for (String line : j.info("persistence").split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        return null;
    }

    private static void awaitInfo(Jedis j, String field, String value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!value.equals(info(j, field))) {
            if (System.nanoTime() > deadline) throw new AssertionError(field + " never became " + value);
            Thread.sleep(10);
        }
    }

    @Test
    void bigRoundsHandedToThePersistenceThreadSurviveAnAofRestart() {
        // Under appendfsync always every round goes to the persistence thread; rounds of 20 KB and
        // more come back to the write feed, once written, as the arrays its next rounds fill.
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 80; i++) values.add(String.valueOf((char) ('a' + i % 26)).repeat(20_000 + 97 * i));
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "always", "save", ""); Jedis j = client(s)) {
            for (int i = 0; i < 40; i++) assertEquals("OK", j.set("big:" + i, values.get(i)));
            Pipeline p = j.pipelined();
            for (int i = 40; i < 80; i++) p.set("big:" + i, values.get(i));
            p.sync();
        }
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            for (int i = 0; i < 80; i++) assertEquals(values.get(i), j.get("big:" + i), "big:" + i);
        }
    }

    @Test
    void scriptWritesAndLoadedFunctionsSurviveAnAofRestart() {
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            assertEquals(1L, j.eval("redis.call('set', KEYS[1], ARGV[1]); return redis.call('rpush', KEYS[2], ARGV[1])",
                    2, "s:k", "s:list", "v"));
            j.functionLoad("#!lua name=lib\nredis.register_function('incr2', function(keys) "
                    + "return redis.call('incrby', keys[1], 2) end)");
            assertEquals(2L, j.fcall("incr2", java.util.List.of("s:n"), java.util.List.of()));
        }
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            assertEquals("v", j.get("s:k"));
            assertEquals(java.util.List.of("v"), j.lrange("s:list", 0, -1));
            assertEquals("2", j.get("s:n"));
            // The library came back from the AOF's FUNCTION LOAD: it still runs.
            assertEquals(4L, j.fcall("incr2", java.util.List.of("s:n"), java.util.List.of()));
        }
    }

    @Test
    void geoWritesSurviveAnAofRestart() {
        String pos;
        String stored;
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            j.sendCommand(() -> "GEOADD".getBytes(), "g:pts", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania");
            j.sendCommand(() -> "GEOSEARCHSTORE".getBytes(), "g:near", "g:pts", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "STOREDIST");
            pos = j.geopos("g:pts", "Palermo").toString();
            stored = j.zrangeWithScores("g:near", 0, -1).toString();
        }
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            assertEquals(pos, j.geopos("g:pts", "Palermo").toString());
            assertEquals(stored, j.zrangeWithScores("g:near", 0, -1).toString());
            assertEquals(2L, j.zcard("g:near"));
        }
    }

    /**
     * A short string is overwritten where it lies with its key (same length), and so is a small
     * hash's value of the same length, and a BITOP result over the last one: both files keep the
     * new ones, in the hash's order.
     */
    @Test
    void stringsOverwrittenInPlaceSurviveAofAndRdbRestarts() {
        String first = "a".repeat(61);
        String second = "b".repeat(61);
        List<String> hashValues = List.of("w1", "w2", "longer3", "v4");
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            j.set("k", first);
            j.set("k", second);
            j.incr("n");
            j.incr("n");
            // INCR's digits written over the old ones where the length stays (1005, 1004, -999).
            j.set("big", "1000");
            j.incrBy("big", 5);
            j.decr("big");
            j.set("neg", "-998");
            j.decr("neg");
            // BITOP's result written over the last one, which kept its own buffer.
            j.set("bsrc", "x".repeat(100));
            j.set("bsrc2", "y".repeat(100));
            j.bitop(BitOP.NOT, "bits", "bsrc");
            j.bitop(BitOP.XOR, "bits", "bsrc", "bsrc2");
            j.hset("h", "f1", "v1");
            j.sendCommand(redis.clients.jedis.Protocol.Command.HSET, "h", "f2", "v2", "f3", "v3");
            j.hset("h", "f1", "w1");
            // In place (f2), then the pack edited (f3 grows, f4 is new).
            j.sendCommand(redis.clients.jedis.Protocol.Command.HSET, "h", "f2", "w2", "f3", "longer3", "f4", "v4");
            assertEquals(hashValues, j.hvals("h"));
            assertEquals("OK", j.save());
        }
        try (CinnabarServer s = start("appendonly", "yes", "save", ""); Jedis j = client(s)) {
            assertEquals(second, j.get("k"), "from the AOF");
            assertEquals("2", j.get("n"), "from the AOF");
            assertEquals("1004", j.get("big"), "from the AOF");
            assertEquals("-999", j.get("neg"), "from the AOF");
            assertEquals("\u0001".repeat(100), j.get("bits"), "from the AOF");
            assertEquals(hashValues, j.hvals("h"), "from the AOF");
        }
        try (CinnabarServer s = start("appendonly", "no", "save", ""); Jedis j = client(s)) {
            assertEquals(second, j.get("k"), "from the RDB");
            assertEquals("2", j.get("n"), "from the RDB");
            assertEquals("1004", j.get("big"), "from the RDB");
            assertEquals("-999", j.get("neg"), "from the RDB");
            assertEquals("\u0001".repeat(100), j.get("bits"), "from the RDB");
            assertEquals(hashValues, j.hvals("h"), "from the RDB");
        }
    }

    @Test
    void saveThenRestartRestoresEveryTypeEncodingTtlAndDatabase() {
        Map<String, String> before;
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            DataSet.fill(j);
            before = DataSet.of(j, 16);
            assertEquals("OK", j.save());
            assertEquals("0", info(j, "rdb_changes_since_last_save"));
        }
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            DataSet.assertSame(before, DataSet.of(j, 16), "after restart");
            assertEquals("quicklist", j.objectEncoding("list-big"));
            assertEquals("listpack", j.objectEncoding("hash-small"));
            assertEquals("intset", j.objectEncoding("set-ints"));
            assertEquals("skiplist", j.objectEncoding("zset-big"));
            assertEquals(Long.toString(before.size()), info(j, "rdb_last_load_keys_loaded"));
        }
    }

    @Test
    void savePointsAndSigtermStyleCloseWriteTheDump() throws Exception {
        try (CinnabarServer s = start("save", "3600 1"); Jedis j = client(s)) {
            j.set("k", "v");
        }
        assertTrue(Files.exists(dir.resolve("dump.rdb")), "close() saves when save points are set");
        io.cinnabar.ManualClock clock = new io.cinnabar.ManualClock();
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", dir.toString()).option("save", "1 1")
                .clock(clock).build().start(); Jedis j = client(s)) {
            assertEquals("v", j.get("k"));
            long last = Long.parseLong(info(j, "rdb_last_save_time"));
            j.set("k2", "v2");
            // The save point "1 1" fires from the cron once more than a second has passed since the last save.
            clock.advance(java.time.Duration.ofSeconds(2));
            // What is left to wait for is the cron's next tick and the save itself, not time.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (Long.parseLong(info(j, "rdb_last_save_time")) == last || !"0".equals(info(j, "rdb_bgsave_in_progress"))) {
                assertTrue(System.nanoTime() < deadline, "save point never fired");
                Thread.sleep(20);
            }
            assertEquals("0", info(j, "rdb_changes_since_last_save"));
        }
    }

    @Test
    void bgsaveWritesThePointInTimeWhileWritesGoOn() throws Exception {
        Map<String, String> atSnapshot;
        try (CinnabarServer s = start("rdb-key-save-delay", "20"); Jedis j = client(s)) {
            for (int i = 0; i < 3000; i++) j.set("k" + i, "old" + i);
            j.sadd("set", "a", "b");
            j.hset("hash", "f", "1");
            j.set("counter", "500");
            j.set("bits-source", "x".repeat(100));
            j.bitop(BitOP.NOT, "bits", "bits-source");
            atSnapshot = DataSet.of(j, 1);
            j.bitop(BitOP.NOT, "bits", "bits-source"); // the same, in a buffer no reader has had
            assertEquals("Background saving started", j.bgsave());
            j.bitop(BitOP.OR, "bits", "bits-source"); // written over the last result's buffer, unless already saved
            assertEquals("1", info(j, "rdb_bgsave_in_progress"));
            assertThrows(JedisDataException.class, j::bgsave, "ERR Background save already in progress");
            for (int i = 0; i < 3000; i += 3) j.set("k" + i, "new" + i);
            for (int i = 1; i < 3000; i += 3) j.del("k" + i);
            j.sadd("set", "c");
            j.hset("hash", "f", "2"); // written over in place: the snapshot keeps its own copy
            j.incr("counter"); // so is INCR's 501
            j.set("added-later", "x");
            j.flushDB();
            awaitInfo(j, "rdb_bgsave_in_progress", "0");
            assertEquals("ok", info(j, "rdb_last_bgsave_status"));
            assertTrue(Long.parseLong(info(j, "rdb_changes_since_last_save")) > 0, "writes after the snapshot stay unsaved");
            j.configSet("rdb-key-save-delay", "0");
            j.configSet("save", "");
        }
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            DataSet.assertSame(atSnapshot, DataSet.of(j, 1), "after restart");
        }
    }

    @Test
    void flushallStopsABgsaveAndSavesTheEmptyDataSetWithSavePoints() throws Exception {
        try (CinnabarServer s = start("rdb-key-save-delay", "1000000", "save", "3600 1"); Jedis j = client(s)) {
            j.set("a", "1");
            j.set("b", "2");
            j.bgsave();
            assertEquals("1", info(j, "rdb_bgsave_in_progress"));
            j.flushAll();
            assertEquals("0", info(j, "rdb_bgsave_in_progress"));
            assertEquals("ok", info(j, "rdb_last_bgsave_status"));
            assertEquals("0", info(j, "rdb_changes_since_last_save"));
            j.configSet("rdb-key-save-delay", "0");
        }
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            assertEquals(0, j.dbSize());
        }
    }

    @Test
    void appendOnlyFileSurvivesRestartWithEveryFsyncPolicy() {
        for (String policy : List.of("always", "everysec", "no")) {
            Path sub = dir.resolve(policy);
            sub.toFile().mkdirs();
            Map<String, String> before;
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString())
                    .option("appendonly", "yes").option("appendfsync", policy).build().start(); Jedis j = client(s)) {
                DataSet.fill(j);
                j.incrByFloat("float", 1.5);
                j.hincrByFloat("hfloat", "f", 10.99);
                j.hincrByFloat("hfloat", "f", 0.01);
                j.spop("set-strings");
                j.lpush("queue", "job");
                assertEquals(List.of("queue", "job"), j.blpop(1, "queue"));
                before = DataSet.of(j, 16);
            }
            assertTrue(Files.exists(sub.resolve("appendonlydir/appendonly.aof.manifest")));
            assertFalse(Files.exists(sub.resolve("dump.rdb")));
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString())
                    .option("appendonly", "yes").build().start(); Jedis j = client(s)) {
                DataSet.assertSame(before, DataSet.of(j, 16), policy);
            }
        }
    }

    @Test
    void underAppendfsyncAlwaysConcurrentClientsShareFsyncsAndKeepEveryAcknowledgedWrite() throws Exception {
        int clients = 8, perClient = 500;
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "always")) {
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<Long>> acked = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int id = c;
                acked.add(pool.submit(() -> {
                    long ok = 0;
                    try (Jedis j = client(s)) {
                        for (int batch = 0; batch < perClient; batch += 50) {
                            Pipeline p = j.pipelined();
                            List<Response<String>> replies = new ArrayList<>();
                            for (int i = batch; i < batch + 50; i++) replies.add(p.set("c" + id + ":" + i, "v" + i));
                            p.sync();
                            for (Response<String> r : replies) if ("OK".equals(r.get())) ok++;
                            j.incr("rounds");
                        }
                    }
                    return ok;
                }));
            }
            long total = 0;
            for (Future<Long> f : acked) total += f.get(60, TimeUnit.SECONDS);
            pool.shutdown();
            assertEquals((long) clients * perClient, total);
        }
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            assertEquals((long) clients * perClient + 1, j.dbSize());
            assertEquals(String.valueOf(clients * perClient / 50), j.get("rounds"));
            for (int c = 0; c < clients; c++) assertEquals("v" + (perClient - 1), j.get("c" + c + ":" + (perClient - 1)));
        }
    }

    @Test
    void writesArePropagatedAsRedisPropagatesThem() throws IOException {
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "always"); Jedis j = client(s)) {
            j.set("a", "1");
            j.expire("a", 100);
            j.setex("b", 100, "2");
            j.incrByFloat("f", 0.5);
            j.sadd("s", "only");
            j.spop("s");
            j.rpush("l", "x");
            j.blpop(0, "l");
            redis.clients.jedis.Transaction tx = j.multi();
            tx.set("t1", "1");
            tx.set("t2", "2");
            tx.exec();
            j.set("gone", "x");
            j.pexpire("gone", 1);
            j.sadd("nothing-changed", "m");
            j.sadd("nothing-changed", "m");
        }
        Path incr = dir.resolve("appendonlydir/appendonly.aof.1.incr.aof");
        String aof = new String(Files.readAllBytes(incr), StandardCharsets.UTF_8).replace("\r\n", " ");
        assertTrue(aof.startsWith("*2 $6 SELECT $1 0 *3 $3 SET $1 a $1 1 *3 $9 PEXPIREAT $1 a $13 "), aof);
        assertTrue(aof.contains("$3 SET $1 b $1 2 $4 PXAT $13 "), aof);
        assertTrue(aof.contains("*4 $3 SET $1 f $3 0.5 $7 KEEPTTL "), aof);
        assertTrue(aof.contains("*3 $4 SREM $1 s $4 only "), aof);
        assertTrue(aof.contains("*2 $4 LPOP $1 l "), aof);
        assertTrue(aof.contains("*1 $5 MULTI *3 $3 SET $2 t1 $1 1 *3 $3 SET $2 t2 $1 2 *1 $4 EXEC "), aof);
        assertFalse(aof.contains("SPOP") || aof.contains("BLPOP") || aof.contains("INCRBYFLOAT")
                || aof.contains("SETEX") || aof.contains(" EXPIRE "), aof);
        assertEquals(1, aof.split("nothing-changed", -1).length - 1, "a SADD that added nothing is not propagated");
    }

    @Test
    void bgrewriteaofWhileWritingKeepsEveryWrite() throws Exception {
        for (String preamble : List.of("yes", "no")) {
            Path sub = dir.resolve("preamble-" + preamble);
            sub.toFile().mkdirs();
            Map<String, String> before;
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString())
                    .option("appendonly", "yes").option("aof-use-rdb-preamble", preamble)
                    .option("rdb-key-save-delay", "50").build().start(); Jedis j = client(s)) {
                DataSet.fill(j);
                for (int i = 0; i < 500; i++) j.set("k" + i, "v" + i);
                assertEquals("Background append only file rewriting started", j.bgrewriteaof());
                assertEquals("1", info(j, "aof_rewrite_in_progress"));
                for (int i = 0; i < 500; i += 2) j.set("k" + i, "changed" + i);
                j.del("list-big");
                j.select(3);
                j.set("db3", "x");
                j.select(0);
                awaitInfo(j, "aof_rewrite_in_progress", "0");
                assertEquals("ok", info(j, "aof_last_bgrewrite_status"));
                j.set("after", "rewrite");
                before = DataSet.of(j, 16);
            }
            String manifest = Files.readString(sub.resolve("appendonlydir/appendonly.aof.manifest"));
            String base = "yes".equals(preamble) ? "appendonly.aof.2.base.rdb" : "appendonly.aof.2.base.aof";
            assertEquals("file " + base + " seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n", manifest);
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString())
                    .option("appendonly", "yes").build().start(); Jedis j = client(s)) {
                DataSet.assertSame(before, DataSet.of(j, 16), "preamble " + preamble);
            }
        }
    }

    /**
     * Rounds handed to the persistence thread (behind each rewrite's start) and those the event
     * loop writes itself keep their order: after a restart every client's list holds its pushes
     * in the order they were sent. (Whether the event loop also drains handed rounds here
     * depends on timing: a build that wrote its own round before them still passed once.)
     */
    @Test
    void roundsHandedOverBehindRewritesKeepTheirOrderAcrossARestart() throws Exception {
        int clients = 4;
        int pushes = 3000;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "everysec"); Jedis j = client(s)) {
            List<Future<?>> writers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String key = "list" + c;
                writers.add(pool.submit(() -> {
                    try (Jedis w = client(s)) {
                        for (int i = 0; i < pushes; i += 50) {
                            Pipeline p = w.pipelined();
                            for (int k = i; k < i + 50; k++) p.rpush(key, Integer.toString(k));
                            p.sync();
                        }
                    }
                    return null;
                }));
            }
            int rewrites = 0;
            while (writers.stream().anyMatch(f -> !f.isDone())) {
                try {
                    j.bgrewriteaof();
                    rewrites++;
                } catch (JedisDataException alreadyRunning) {
                    // the last one has not finished: the next try comes after another round trip
                }
            }
            for (Future<?> f : writers) f.get();
            assertTrue(rewrites > 0);
            awaitInfo(j, "aof_rewrite_in_progress", "0");
        } finally {
            pool.shutdownNow();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < pushes; i++) expected.add(Integer.toString(i));
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            for (int c = 0; c < clients; c++) assertEquals(expected, j.lrange("list" + c, 0, -1), "list" + c);
        }
    }

    /**
     * Rounds handed to the persistence thread (here while DEBUG AOF-FLUSH-SLEEP is on) and still
     * queued when the keyspace thread may write again: its next write writes them first, then its
     * own, while the persistence thread is held. Handed over behind them instead, that write and
     * its reply would wait for the persistence thread; written ahead of them, the AOF would hold
     * the pushes out of order.
     */
    @Test
    void aWriteOfTheKeyspaceThreadWritesTheRoundsQueuedBeforeItFirst() throws Exception {
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "everysec");
             Jedis j = client(s);
             java.net.Socket raw = new java.net.Socket("127.0.0.1", s.port())) {
            j.rpush("list", "0"); // the AOF is written: nothing of the start-up is queued any more
            try (AutoCloseable hold = s.controls().holdPersistenceThread()) {
                debug(j, "AOF-FLUSH-SLEEP", "1"); // writes are handed over
                raw.getOutputStream().write(("*3\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n$1\r\n1\r\n"
                        + "*3\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n$1\r\n2\r\n"
                        + "*3\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n$1\r\n3\r\n").getBytes(StandardCharsets.US_ASCII));
                // Run (reads see them), handed over, and their replies wait for the held thread.
                while (j.llen("list") < 4) Thread.onSpinWait();
                debug(j, "AOF-FLUSH-SLEEP", "0");
                long pushed = io.cinnabar.util.OwnThread.supply(() -> j.rpush("list", "4")).get(30, TimeUnit.SECONDS);
                assertEquals(5, pushed);
                raw.setSoTimeout(30_000);
                byte[] replies = ":2\r\n:3\r\n:4\r\n".getBytes(StandardCharsets.US_ASCII);
                assertEquals(new String(replies, StandardCharsets.US_ASCII),
                        new String(raw.getInputStream().readNBytes(replies.length), StandardCharsets.US_ASCII));
                String aof;
                try (var files = Files.list(dir.resolve("appendonlydir"))) {
                    Path incr = files.filter(f -> f.toString().endsWith(".incr.aof")).findFirst().orElseThrow();
                    aof = Files.readString(incr, StandardCharsets.ISO_8859_1);
                }
                int at = -1;
                for (String value : List.of("0", "1", "2", "3", "4")) {
                    int next = aof.indexOf("$4\r\nlist\r\n$1\r\n" + value + "\r\n", at + 1);
                    assertTrue(next > at, "RPUSH list " + value + " not after the ones before it in " + aof);
                    at = next;
                }
            }
        }
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            assertEquals(List.of("0", "1", "2", "3", "4"), j.lrange("list", 0, -1));
        }
    }

    /** PFDEBUG TODENSE stores the dense form in place (Database.reencode): the AOF and the RDB keep it. */
    @Test
    void aHyperLogLogMadeDenseByPfdebugStaysDenseAcrossRestarts() {
        Object dense;
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            j.pfadd("h", "a", "b", "c");
            assertEquals(1L, j.sendCommand(() -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII), "TODENSE", "h"));
            dense = j.sendCommand(() -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII), "GETREG", "h");
        }
        for (String appendonly : List.of("yes", "no")) {
            try (CinnabarServer s = start("appendonly", appendonly); Jedis j = client(s)) {
                assertEquals("dense", new String((byte[]) j.sendCommand(() -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII),
                        "ENCODING", "h"), StandardCharsets.US_ASCII), "appendonly " + appendonly);
                assertEquals(dense, j.sendCommand(() -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII), "GETREG", "h"));
                assertEquals(3L, j.pfcount("h"));
                if (appendonly.equals("yes")) j.save(); // the next start reads the RDB
            }
        }
    }

    @Test
    void aRewriteHoldingEverysecFsyncsBackDoesNotSpinThePersistenceThread() throws Exception {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.Set<Long> before = java.util.Arrays.stream(threads.getAllThreadIds()).boxed()
                .collect(java.util.stream.Collectors.toSet());
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "everysec",
                "no-appendfsync-on-rewrite", "yes"); Jedis j = client(s)) {
            long persistence = java.util.Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                    .filter(t -> t != null && !before.contains(t.getThreadId())
                            && t.getThreadName().equals("cinnabar-persistence"))
                    .findFirst().orElseThrow().getThreadId();
            for (int i = 0; i < 300; i++) j.set("k" + i, "v");
            // 300 keys: a rewrite of at least 1.5 s, past the second after the last fsync.
            j.configSet("rdb-key-save-delay", "5000");
            long cpuBefore = threads.getThreadCpuTime(persistence);
            long start = System.nanoTime();
            j.bgrewriteaof();
            j.set("during", "rewrite"); // written, and its fsync held back until the rewrite ends
            awaitInfo(j, "aof_rewrite_in_progress", "0");
            long elapsed = System.nanoTime() - start;
            long cpu = threads.getThreadCpuTime(persistence) - cpuBefore;
            assertTrue(elapsed > 1_500_000_000L, "the rewrite took " + elapsed / 1_000_000 + " ms");
            // It spun before: the duty asked to run again at a second after the last fsync, long past.
            assertTrue(cpu < elapsed / 4, "persistence thread CPU " + cpu / 1_000_000 + " ms in "
                    + elapsed / 1_000_000 + " ms of rewrite");
        }
    }

    @Test
    void appendonlyCanBeSwitchedOnAndOffAtRunTime() throws Exception {
        Map<String, String> before;
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            DataSet.fill(j);
            j.configSet("appendonly", "yes");
            awaitInfo(j, "aof_rewrite_in_progress", "0");
            assertEquals("1", info(j, "aof_enabled"));
            j.set("after-switch", "1");
            before = DataSet.of(j, 16);
        }
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            DataSet.assertSame(before, DataSet.of(j, 16), "after restart");
            j.configSet("appendonly", "no");
            assertEquals("0", info(j, "aof_enabled"));
            j.set("not-in-aof", "1");
        }
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            assertNull(j.get("not-in-aof"));
        }
    }

    private static long forks(Jedis j) {
        for (String line : j.info("stats").split("\r\n")) {
            if (line.startsWith("total_forks:")) return Long.parseLong(line.substring("total_forks:".length()));
        }
        throw new AssertionError("no total_forks in INFO stats");
    }

    /**
     * Inside EXEC, Redis schedules a rewrite instead of forking (BGREWRITEAOF, CONFIG SET appendonly
     * yes) and its cron starts it; INFO counts each background save that starts as a fork, which
     * tools and Redis's own tests watch for.
     */
    @Test
    void rewritesAskedForInATransactionStartFromTheCronAndCountAsForks() throws Exception {
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            long forks = forks(j);
            debug(j, "PAUSE-CRON", "1");
            redis.clients.jedis.Transaction t = j.multi();
            t.set("k", "v");
            t.sendCommand(redis.clients.jedis.Protocol.Command.BGREWRITEAOF, new String[0]);
            List<Object> replies = t.exec();
            assertEquals("Background append only file rewriting scheduled", new String((byte[]) replies.get(1), StandardCharsets.UTF_8));
            assertEquals("1", info(j, "aof_rewrite_scheduled"));
            assertEquals(forks, forks(j));
            debug(j, "PAUSE-CRON", "0");
            awaitInfo(j, "aof_rewrites", "1");
            assertEquals(forks + 1, forks(j));

            debug(j, "PAUSE-CRON", "1");
            t = j.multi();
            t.sendCommand(redis.clients.jedis.Protocol.Command.CONFIG, "SET", "appendonly", "yes");
            t.exec();
            assertEquals("1", info(j, "aof_rewrite_scheduled"));
            debug(j, "PAUSE-CRON", "0");
            awaitInfo(j, "aof_rewrites", "2");
            assertEquals("1", info(j, "aof_enabled"));
            assertEquals(forks + 2, forks(j));

            j.bgsave();
            awaitInfo(j, "rdb_bgsave_in_progress", "0");
            assertEquals(forks + 3, forks(j));
        }
    }

    private static final String LIBRARY = "#!lua name=lib\nredis.register_function('incr2', function(keys) "
            + "return redis.call('incrby', keys[1], 2) end)\n-- padded past 20 bytes so that rdbcompression applies";

    private static List<String> libraries(Jedis j) {
        return j.functionList().stream().map(redis.clients.jedis.resps.LibraryInfo::getLibraryName).sorted().toList();
    }

    @Test
    void functionLibrariesSurviveARestartOverTheRdb() {
        try (CinnabarServer s = start("save", ""); Jedis j = client(s)) {
            j.functionLoad(LIBRARY);
            j.functionLoad("#!lua name=other\nredis.register_function{function_name='ro', callback=function() return 'x' end, "
                    + "flags={'no-writes'}, description='read only'}");
            j.set("k", "v");
            assertEquals("OK", j.save());
        }
        try (CinnabarServer s = start("save", ""); Jedis j = client(s)) {
            assertEquals(List.of("lib", "other"), libraries(j));
            assertEquals(2L, j.fcall("incr2", List.of("n"), List.of()));
            assertEquals("x", j.fcallReadonly("ro", List.of(), List.of()));
            assertEquals("v", j.get("k"));
        }
    }

    @Test
    void debugReloadSavesAndLoadsLibrariesAndItsOptionsDecideOnCollisions() {
        try (CinnabarServer s = start("save", ""); Jedis j = client(s)) {
            j.functionLoad(LIBRARY);
            assertEquals("OK", debug(j, "RELOAD"));
            assertEquals(List.of("lib"), libraries(j));
            JedisDataException e = assertThrows(JedisDataException.class, () -> debug(j, "RELOAD", "NOFLUSH"));
            assertTrue(e.getMessage().startsWith("ERR Error trying to load the RDB dump"), "the library is there already");
            j.functionLoad("#!lua name=unsaved\nredis.register_function('u', function() return 1 end)");
            assertEquals("OK", debug(j, "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"));
            assertEquals(List.of("lib", "unsaved"), libraries(j), "MERGE replaces lib and keeps the unsaved one");
            assertEquals("OK", debug(j, "RELOAD", "NOSAVE"));
            assertEquals(List.of("lib"), libraries(j), "the reload empties the libraries first");
        }
    }

    /** Redis's DEBUG RELOAD NOSAVE fails when there is no dump file (rdbLoad's fopen), after emptying the data set
     *  unless NOFLUSH (checked against redis-server 7.0.15 in an empty directory). */
    @Test
    void debugReloadWithoutADumpFileFails() {
        try (CinnabarServer s = start("save", ""); Jedis j = client(s)) {
            j.set("k", "v");
            JedisDataException e = assertThrows(JedisDataException.class, () -> debug(j, "RELOAD", "NOSAVE", "NOFLUSH"));
            assertEquals("ERR Error trying to load the RDB dump", e.getMessage());
            assertEquals("v", j.get("k"));
            e = assertThrows(JedisDataException.class, () -> debug(j, "RELOAD", "NOSAVE"));
            assertEquals("ERR Error trying to load the RDB dump", e.getMessage());
            assertEquals(0L, j.dbSize());
        }
    }

    @Test
    void anAofRewriteKeepsLibrariesWithEitherBase() throws Exception {
        for (String preamble : List.of("yes", "no")) {
            Path sub = dir.resolve("functions-preamble-" + preamble);
            sub.toFile().mkdirs();
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString()).option("save", "")
                    .option("appendonly", "yes").option("aof-use-rdb-preamble", preamble).build().start(); Jedis j = client(s)) {
                j.functionLoad(LIBRARY);
                assertEquals("Background append only file rewriting started", j.bgrewriteaof());
                awaitInfo(j, "aof_rewrite_in_progress", "0");
                assertEquals("ok", info(j, "aof_last_bgrewrite_status"));
            }
            String base = "yes".equals(preamble) ? "appendonly.aof.2.base.rdb" : "appendonly.aof.2.base.aof";
            assertTrue(Files.readString(sub.resolve("appendonlydir/" + base), StandardCharsets.ISO_8859_1).contains("incr2"));
            try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", sub.toString()).option("save", "")
                    .option("appendonly", "yes").build().start(); Jedis j = client(s)) {
                assertEquals(2L, j.fcall("incr2", List.of("n"), List.of()), "preamble " + preamble);
            }
        }
    }

    /** As Redis's RDB_OPCODE_IDLE / RDB_OPCODE_FREQ: written only under the policy that ranks by them. */
    @Test
    void lruIdleTimesAndLfuCountersSurviveAReloadUnderTheirPolicy() {
        io.cinnabar.ManualClock clock = new io.cinnabar.ManualClock();
        try (CinnabarServer s = start(clock); Jedis j = client(s)) {
            j.set("idle", "v");
            clock.advance(java.time.Duration.ofSeconds(500));
            assertEquals("OK", debug(j, "RELOAD"));
            assertEquals(0L, j.objectIdletime("idle"), "noeviction keeps no idle times: the key loads as just used");

            j.configSet("maxmemory-policy", "allkeys-lru");
            clock.advance(java.time.Duration.ofSeconds(500));
            assertEquals("OK", debug(j, "RELOAD"));
            assertEquals(500L, j.objectIdletime("idle"));

            j.configSet("maxmemory-policy", "allkeys-lfu");
            j.set("hot", "v");
            for (int i = 0; i < 200; i++) j.get("hot");
            long freq = j.objectFreq("hot");
            assertTrue(freq > 5, "counted above LFU_INIT_VAL: " + freq);
            assertEquals("OK", debug(j, "RELOAD"));
            assertEquals(freq, j.objectFreq("hot"));
        }
    }

    /** A read-only replica still replays its own AOF, scripts' writes included (Redis obeys the AOF client). */
    @Test
    void aReadOnlyReplicaLoadsTheWritesOfScriptsFromItsAof() {
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            j.eval("redis.call('set', KEYS[1], '100')", 1, "foo");
            j.eval("redis.call('incr', KEYS[1])", 1, "foo");
        }
        try (CinnabarServer s = start("appendonly", "yes", "replicaof", "127.0.0.1 0"); Jedis j = client(s)) {
            assertEquals("101", j.get("foo"));
            assertEquals("READONLY You can't write against a read only replica.",
                    assertThrows(JedisDataException.class, () -> j.set("foo", "1")).getMessage());
        }
    }

    @Test
    void debugReloadAndLoadaofKeepTheDataSet() {
        try (CinnabarServer s = start("appendonly", "yes"); Jedis j = client(s)) {
            DataSet.fill(j);
            Map<String, String> before = DataSet.of(j, 16);
            assertEquals("OK", debug(j, "RELOAD"));
            DataSet.assertSame(before, DataSet.of(j, 16), "after restart");
            assertEquals("OK", debug(j, "LOADAOF"));
            DataSet.assertSame(before, DataSet.of(j, 16), "after restart");
        }
    }

    @Test
    void failedBgsaveRefusesWritesWithMisconfUntilASaveSucceeds() throws Exception {
        try (CinnabarServer s = start("save", "3600 1"); Jedis j = client(s)) {
            j.set("a", "1");
            Files.createDirectory(dir.resolve("blocked.rdb"));
            j.configSet("dbfilename", "blocked.rdb");
            j.bgsave();
            awaitInfo(j, "rdb_bgsave_in_progress", "0");
            assertEquals("err", info(j, "rdb_last_bgsave_status"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.set("b", "2"));
            assertTrue(e.getMessage().startsWith("MISCONF Redis is configured to save RDB snapshots"), e.getMessage());
            assertEquals("1", j.get("a"), "reads go on");
            j.configSet("dbfilename", "dump.rdb");
            j.bgsave();
            awaitInfo(j, "rdb_bgsave_in_progress", "0");
            assertEquals("OK", j.set("b", "2"));
        }
    }

    @Test
    void dumpAndRestoreOptionsAndErrors() {
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            j.rpush("l", "a", "b");
            byte[] payload = j.dump("l");
            assertNull(j.dump("missing"));
            assertEquals("BUSYKEY Target key name already exists.",
                    assertThrows(JedisDataException.class, () -> j.restore("l", 0, payload)).getMessage());
            assertEquals("OK", j.restore("l2", 0, payload));
            assertEquals(List.of("a", "b"), j.lrange("l2", 0, -1));
            long at = System.currentTimeMillis() + 100_000;
            assertEquals("OK", j.restore("l3".getBytes(), at, payload,
                    RestoreParams.restoreParams().absTtl()));
            assertEquals(at, j.pexpireTime("l3"));
            byte[] corrupt = payload.clone();
            corrupt[1] ^= 0x55;
            assertEquals("ERR DUMP payload version or checksum are wrong",
                    assertThrows(JedisDataException.class, () -> j.restore("x", 0, corrupt)).getMessage());
            assertEquals("ERR Invalid TTL value, must be >= 0",
                    assertThrows(JedisDataException.class, () -> j.restore("x", -1, payload)).getMessage());
            debug(j, "SET-SKIP-CHECKSUM-VALIDATION", "1");
            byte[] garbage = payload.clone();
            garbage[2] = (byte) 0xff;
            String err = assertThrows(JedisDataException.class, () -> j.restore("x", 0, garbage)).getMessage();
            assertEquals("ERR Bad data format", err);
            assertEquals("PONG", j.ping());
            j.restore("idle".getBytes(), 0, payload, RestoreParams.restoreParams().idleTime(1000));
            assertTrue(j.objectIdletime("idle") >= 1000);
        }
    }

    @Test
    void clientsGetLoadingWhileTheDataSetLoads() throws Exception {
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            for (int i = 0; i < 2000; i++) j.set("k" + i, "v");
            j.save();
        }
        CinnabarServer slow = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("key-load-delay", "1000").build();
        Thread starter = new Thread(slow::start);
        starter.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (slow.port() <= 0) {
                assertTrue(System.nanoTime() < deadline, "never bound");
                Thread.sleep(5);
            }
            try (Jedis j = new Jedis("127.0.0.1", slow.port())) {
                assertEquals("LOADING Redis is loading the dataset in memory",
                        assertThrows(JedisDataException.class, () -> j.get("k1")).getMessage());
                assertEquals("1", info(j, "loading"), "INFO answers while loading");
                assertTrue(Long.parseLong(info(j, "loading_total_bytes")) > 0);
                j.configSet("key-load-delay", "0");
                starter.join(30_000);
                assertEquals("v", j.get("k1"));
                assertEquals("0", info(j, "loading"));
                assertEquals("2000", info(j, "rdb_last_load_keys_loaded"));
            }
        } finally {
            starter.join(30_000);
            slow.close();
        }
    }

    @Test
    void corruptDumpStopsStartupNamingFileAndOffset() throws Exception {
        try (CinnabarServer s = start(); Jedis j = client(s)) {
            for (int i = 0; i < 100; i++) j.set("key" + i, "value" + i);
            j.save();
        }
        Path dump = dir.resolve("dump.rdb");
        byte[] bytes = Files.readAllBytes(dump);
        Files.write(dump, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> start().close());
        assertTrue(e.getMessage().contains(dump.toString()) && e.getMessage().contains("at offset "), e.getMessage());
        // Nothing was saved over the damaged file.
        assertEquals(bytes.length / 2, Files.size(dump));
    }

    @Test
    void agedKeysInADumpAreDroppedOnLoadButKeptInAnAofBase() throws Exception {
        io.cinnabar.ManualClock clock = new io.cinnabar.ManualClock();
        try (CinnabarServer s = start(clock); Jedis j = client(s)) {
            j.set("short-lived", "x");
            j.expire("short-lived", 3600);
            j.set("stays", "y");
            j.save();
        }
        // More than the key's hour passes between the two servers, which share the clock.
        clock.advance(java.time.Duration.ofHours(2));
        try (CinnabarServer s = start(clock); Jedis j = client(s)) {
            assertEquals("1", info(j, "rdb_last_load_keys_loaded"));
            assertEquals("1", info(j, "rdb_last_load_keys_expired"));
            assertEquals(1, j.dbSize());
        }
    }

    @Test
    void failingAofWritesRefuseWritesWithMisconfWhileReadsGoOn() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(FULL_DISK), "needs /dev/full");
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "everysec"); Jedis j = client(s)) {
            moveAofOntoAFullDisk(j);
            assertWriteIsNeverAcknowledged(s, j);
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.set("refused", "1"));
            assertEquals("MISCONF Errors writing to the AOF file: No space left on device", e.getMessage());
            assertEquals("1", j.get("before"));
            assertEquals("MISCONF Errors writing to the AOF file: No space left on device",
                    assertThrows(JedisDataException.class, j::ping).getMessage());
            // Switching the AOF off and on again starts over with fresh files.
            j.configSet("appendonly", "no");
            assertEquals("OK", j.set("works-again", "1"));
        }
    }

    @Test
    void underAppendfsyncAlwaysAWriteThatCannotReachTheDiskIsNeverAcknowledged() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(FULL_DISK), "needs /dev/full");
        try (CinnabarServer s = start("appendonly", "yes", "appendfsync", "always"); Jedis j = client(s)) {
            moveAofOntoAFullDisk(j);
            assertWriteIsNeverAcknowledged(s, j);
            assertEquals("1", j.get("before"));
        }
    }

    private static final Path FULL_DISK = Path.of("/dev/full");

    /** A SET whose bytes cannot be written (the AOF is on a full disk) gets no reply: it is held. */
    private void assertWriteIsNeverAcknowledged(CinnabarServer s, Jedis j) throws Exception {
        try (java.net.Socket raw = new java.net.Socket("127.0.0.1", s.port())) {
            raw.getOutputStream().write("SET never-acknowledged x\r\n".getBytes(StandardCharsets.US_ASCII));
            raw.setSoTimeout(300);
            awaitInfo(j, "aof_last_write_status", "err");
            assertThrows(java.net.SocketTimeoutException.class, () -> raw.getInputStream().read());
        }
    }

    /** Writes "before", then makes the AOF's next incr file a disk that is always full and switches to it. */
    private void moveAofOntoAFullDisk(Jedis j) throws Exception {
        j.set("before", "1");
        Files.createSymbolicLink(dir.resolve("appendonlydir/appendonly.aof.2.incr.aof"), FULL_DISK);
        j.bgrewriteaof();
        awaitInfo(j, "aof_rewrite_in_progress", "0");
    }
}
