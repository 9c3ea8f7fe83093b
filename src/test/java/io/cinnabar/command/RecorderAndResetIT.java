package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.command.testing.DataSnapshot;
import io.cinnabar.command.testing.RecordedCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command recorder, reset, snapshots and fixtures through the Java API. */
@CinnabarTest(flushBetweenTests = false)
class RecorderAndResetIT {
    private CinnabarServer server;

    /** One server for the class, put back to how it started before each test. */
    @BeforeEach
    void fresh(CinnabarServer server) {
        this.server = server;
        server.reset();
    }

    private Jedis jedis() {
        return new Jedis("127.0.0.1", server.port());
    }

    @Test
    void theRecorderKeepsWhatEachClientSent() {
        long before = System.currentTimeMillis();
        try (Jedis app = jedis(); Jedis other = jedis()) {
            app.clientSetname("app");
            assertEquals("PONG", app.ping());
            assertTrue(server.recorder().commands().isEmpty(), "off until started");
            server.recorder().start();
            app.select(1);
            app.set("a", "1");
            app.set("b", "2");
            app.get("a");
            other.set("c", "3");
            assertThrows(Exception.class, () -> other.sendCommand(() -> "NOSUCH".getBytes(), "x"));
            server.recorder().stop();
            app.set("after", "stop");
        }
        List<RecordedCommand> sets = server.recorder().commands("set");
        assertEquals(3, sets.size());
        RecordedCommand first = sets.get(0);
        assertEquals("SET", first.command());
        assertEquals(List.of("a", "1"), first.args());
        assertEquals("app", first.clientName());
        assertEquals(1, first.db());
        assertTrue(first.timeMs() >= before, "time on the server clock");
        assertEquals("", sets.get(2).clientName());
        assertEquals(0, sets.get(2).db());
        assertEquals("SET c 3", sets.get(2).toString());
        List<RecordedCommand> all = server.recorder().commands();
        assertEquals(List.of("SELECT", "SET", "SET", "GET", "SET", "NOSUCH"), all.stream().map(RecordedCommand::command).toList());
        server.recorder().clear();
        assertTrue(server.recorder().commands().isEmpty());
    }

    @Test
    void resetPutsTheServerBackAsItStartedWithConnectionsLeftOpen() throws Exception {
        try (Jedis jedis = jedis(); RespSocket subscriber = new RespSocket(server.port()); RespSocket blocked = new RespSocket(server.port())) {
            jedis.set("k", "v");
            jedis.select(3);
            jedis.hset("h", "f", "v");
            jedis.configSet("maxmemory-policy", "allkeys-lru");
            String sha = jedis.scriptLoad("return 1");
            jedis.functionLoad("#!lua name=lib\nredis.register_function('f', function() return 1 end)");
            server.recorder().start();
            server.faults().on("GET").replyError("LOADING x");
            assertEquals(List.of("subscribe", "ch", 1L), subscriber.call("SUBSCRIBE", "ch"));
            blocked.send("BLPOP", "list", "0");
            waitUntil(() -> jedis.info("clients").contains("blocked_clients:1"));

            server.reset();

            assertEquals(List.of("unsubscribe", "ch", 0L), subscriber.read());
            assertNull(blocked.read(), "a blocked client is answered as at its timeout");
            assertEquals("PONG", subscriber.call("PING"), "the connection is still open");
            assertEquals(3, jedis.getDB(), "the client keeps its database");
            assertEquals(0, jedis.dbSize());
            jedis.select(0);
            assertEquals(0, jedis.dbSize());
            assertNull(jedis.get("k"), "no faults any more");
            assertEquals(Map.of("maxmemory-policy", "noeviction"), jedis.configGet("maxmemory-policy"));
            assertFalse(jedis.scriptExists(sha));
            assertTrue(jedis.functionList().isEmpty());
            assertFalse(server.recorder().isRecording());
            assertTrue(server.recorder().commands().isEmpty());
            assertTrue(jedis.info("commandstats").lines().noneMatch(l -> l.startsWith("cmdstat_hset")));
        }
    }

    @Test
    void aSnapshotIsRestoredAsOftenAsNeededAndSharesNothingWithTheLiveData() {
        try (Jedis jedis = jedis()) {
            jedis.set("s", "text");
            jedis.append("grown", "a");
            jedis.append("grown", "b");
            assertEquals("raw", jedis.objectEncoding("grown"));
            jedis.setex("ttl", 1000, "t");
            jedis.hset("h", Map.of("f1", "v1", "f2", "v2"));
            jedis.rpush("l", "a", "b", "c");
            jedis.sadd("set", "x", "y");
            jedis.zadd("z", 1, "m");
            jedis.xadd("st", XAddParams.xAddParams().id(new StreamEntryID(1, 0)), Map.of("f", "v"));
            jedis.select(5);
            jedis.set("in5", "five");
            jedis.select(0);
            DataSnapshot fixture = server.snapshot();
            assertEquals(9, fixture.keyCount());

            for (int round = 0; round < 2; round++) {
                jedis.hset("h", "f1", "changed");
                jedis.rpush("l", "d");
                jedis.append("grown", "cd");
                jedis.srem("set", "x");
                jedis.zincrby("z", 5, "m");
                jedis.xadd("st", XAddParams.xAddParams().id(new StreamEntryID(2, 0)), Map.of("f", "w"));
                jedis.del("s");
                jedis.set("extra", "1");

                server.restore(fixture);

                assertEquals("text", jedis.get("s"));
                assertEquals("ab", jedis.get("grown"));
                assertEquals("raw", jedis.objectEncoding("grown"), "encoding flags come back");
                assertTrue(jedis.ttl("ttl") > 900);
                assertEquals(Map.of("f1", "v1", "f2", "v2"), jedis.hgetAll("h"));
                assertEquals(List.of("a", "b", "c"), jedis.lrange("l", 0, -1));
                assertEquals(Set.of("x", "y"), jedis.smembers("set"));
                assertEquals(1.0, jedis.zscore("z", "m"));
                assertEquals(1, jedis.xlen("st"));
                assertNull(jedis.get("extra"));
                jedis.select(5);
                assertEquals("five", jedis.get("in5"));
                jedis.select(0);
            }
        }
    }

    @Test
    void fixturesLoadFromCommandFilesAndDumps(@TempDir Path dir) throws Exception {
        Path lines = dir.resolve("fixture.redis");
        Files.writeString(lines, "# users\nSET user:1 \"Ann Smith\"\nHSET user:1:prefs theme dark\n\nRPUSH queue a b\r\n");
        Path resp = dir.resolve("fixture.resp");
        Files.writeString(resp, "*3\r\n$3\r\nSET\r\n$4\r\nresp\r\n$5\r\nvalue\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n");
        server.loadFixture(lines);
        server.loadFixture(resp);
        try (Jedis jedis = jedis()) {
            assertEquals("Ann Smith", jedis.get("user:1"));
            assertEquals("dark", jedis.hget("user:1:prefs", "theme"));
            assertEquals(List.of("a", "b"), jedis.lrange("queue", 0, -1));
            assertEquals("value", jedis.get("resp"));
            assertEquals("1", jedis.get("n"));
        }

        Path bad = dir.resolve("bad.redis");
        Files.writeString(bad, "SET a 1\nHSET user:1 f v\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> server.loadFixture(bad));
        assertTrue(e.getMessage().contains("command 2 (HSET): WRONGTYPE"), e.getMessage());

        // A dump written by another server is a fixture too.
        Path dumpDir = dir.resolve("dump");
        Files.createDirectories(dumpDir);
        try (CinnabarServer other = CinnabarServer.builder().port(0).option("dir", dumpDir.toString()).build().start();
             Jedis o = new Jedis("127.0.0.1", other.port())) {
            o.set("from-dump", "yes");
            o.zadd("scores", 2, "b");
            o.save();
        }
        server.reset();
        server.loadFixture(dumpDir.resolve("dump.rdb"));
        try (Jedis jedis = jedis()) {
            assertEquals("yes", jedis.get("from-dump"));
            assertEquals(2.0, jedis.zscore("scores", "b"));
        }
    }

    @Test
    void resetPutsAManualClockBackAndTheRecorderUsesItsTime() {
        io.cinnabar.ManualClock clock = new io.cinnabar.ManualClock(1_000_000_000_000L);
        try (CinnabarServer manual = CinnabarServer.builder().port(0).clock(clock).build().start();
             Jedis jedis = new Jedis("127.0.0.1", manual.port())) {
            clock.advance(java.time.Duration.ofHours(1));
            manual.recorder().start();
            jedis.set("k", "v");
            assertEquals(1_000_000_000_000L + 3_600_000, manual.recorder().commands("SET").get(0).timeMs());
            manual.reset();
            assertEquals(1_000_000_000_000L, clock.millis());
            assertEquals(List.of("1000000000", "0"), jedis.time());
        }
    }

    @Test
    void withTheAofOnARestoredDataSetSurvivesARestart(@TempDir Path dir) throws Exception {
        try (CinnabarServer aof = CinnabarServer.builder().port(0).option("dir", dir.toString()).option("appendonly", "yes").build().start();
             Jedis jedis = new Jedis("127.0.0.1", aof.port())) {
            jedis.set("fixture", "1");
            DataSnapshot fixture = aof.snapshot();
            jedis.set("test-data", "2");
            aof.restore(fixture);
            waitUntil(() -> jedis.info("persistence").contains("aof_rewrite_in_progress:0")
                    && !jedis.info("persistence").contains("aof_rewrite_scheduled:1"));
        }
        try (CinnabarServer again = CinnabarServer.builder().port(0).option("dir", dir.toString()).option("appendonly", "yes").build().start();
             Jedis jedis = new Jedis("127.0.0.1", again.port())) {
            assertEquals("1", jedis.get("fixture"));
            assertNull(jedis.get("test-data"));
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("condition not met in 10 s");
            Thread.sleep(5);
        }
    }
}
