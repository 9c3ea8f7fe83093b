package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.util.List;
import java.util.regex.Pattern;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MONITOR, CLIENT PAUSE / UNPAUSE and RESET, over raw sockets where replies arrive late. */
@CinnabarTest
class MonitorAndPauseIT {
    private final CinnabarServer server;

    MonitorAndPauseIT(CinnabarServer server) {
        this.server = server;
    }

    @AfterEach
    void unpause() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            str(j, "CLIENT", "UNPAUSE");
            j.configSet("client-output-buffer-limit", "normal 0 0 0");
        }
    }

    private RespSocket monitor() throws IOException {
        RespSocket m = new RespSocket(server.port());
        assertEquals("+OK", m.send("MONITOR").line());
        return m;
    }

    // ---- MONITOR ----

    @Test
    void monitorShowsEachCommandInRedisFormat(Jedis jedis) throws IOException {
        try (RespSocket m = monitor()) {
            jedis.set("foo", "a b\"\\\n\u0001");
            jedis.get("foo");
            String line = m.line();
            Pattern format = Pattern.compile("\\+\\d{10}\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] (.*)");
            var match = format.matcher(line);
            assertTrue(match.matches(), line);
            assertEquals("\"SET\" \"foo\" \"a b\\\"\\\\\\n\\x01\"", match.group(1));
            assertTrue(m.line().endsWith("\"GET\" \"foo\""));
            jedis.select(3);
            jedis.set("k", "v");
            assertTrue(m.line().contains("[3 127.0.0.1:"), "the database after the command");
        }
    }

    @Test
    void adminCommandsAreHiddenAndPasswordsRedacted(Jedis jedis) throws IOException {
        try (RespSocket m = monitor()) {
            cmd(jedis, "CONFIG", "GET", "hz");
            cmd(jedis, "CLIENT", "LIST");
            error(() -> cmd(jedis, "AUTH", "user", "secret"));
            error(() -> cmd(jedis, "HELLO", "2", "AUTH", "user", "secret"));
            jedis.ping();
            assertTrue(m.line().endsWith("\"AUTH\" \"(redacted)\" \"(redacted)\""));
            assertTrue(m.line().endsWith("\"HELLO\" \"2\" \"AUTH\" \"(redacted)\" \"(redacted)\""));
            assertTrue(m.line().endsWith("\"PING\""));
        }
    }

    @Test
    void transactionsShowMultiThenQueuedCommandsThenExec(Jedis jedis) throws IOException {
        try (RespSocket m = monitor()) {
            str(jedis, "MULTI");
            str(jedis, "SET", "a", "1");
            cmd(jedis, "EXEC");
            assertTrue(m.line().endsWith("\"MULTI\""));
            assertTrue(m.line().endsWith("\"SET\" \"a\" \"1\""));
            assertTrue(m.line().endsWith("\"EXEC\""));
            // Rejected commands are not shown; an aborted EXEC still is.
            str(jedis, "MULTI");
            error(() -> cmd(jedis, "NOSUCHCOMMAND"));
            error(() -> cmd(jedis, "EXEC"));
            assertTrue(m.line().endsWith("\"MULTI\""));
            assertTrue(m.line().endsWith("\"EXEC\""));
        }
    }

    @Test
    void scriptsAreShownBeforeTheCommandsTheyRunWhichComeFromLua(Jedis jedis) throws IOException {
        cmd(jedis, "FUNCTION", "LOAD", "REPLACE", "#!lua name=monitored\n"
                + "redis.register_function('setfoo', function() return redis.call('set', 'foo', 'bar') end)");
        try (RespSocket m = monitor()) {
            cmd(jedis, "EVAL", "redis.call('set', KEYS[1], ARGV[1])", "1", "foo", "bar");
            assertTrue(m.line().endsWith("\"EVAL\" \"redis.call('set', KEYS[1], ARGV[1])\" \"1\" \"foo\" \"bar\""));
            assertTrue(m.line().endsWith(" [0 lua] \"set\" \"foo\" \"bar\""));
            cmd(jedis, "FCALL", "setfoo", "0");
            assertTrue(m.line().endsWith("\"FCALL\" \"setfoo\" \"0\""));
            assertTrue(m.line().endsWith(" [0 lua] \"set\" \"foo\" \"bar\""));
        } finally {
            cmd(jedis, "FUNCTION", "DELETE", "monitored");
        }
    }

    @Test
    void monitoringClientMayNotTouchDataAndSeesItsOwnCommandsAfterTheirReplies() throws IOException {
        try (RespSocket m = monitor()) {
            assertEquals("-ERR Replica can't interact with the keyspace", m.send("GET", "x").line());
            assertEquals("+PONG", m.send("PING").line());
            assertTrue(m.line().endsWith("\"PING\""));
            // A second MONITOR is answered with nothing, as in Redis.
            m.send("MONITOR").send("ECHO", "after");
            assertEquals("$5", m.line());
        }
    }

    @Test
    void monitorInsideMultiIsRefused(Jedis jedis) {
        str(jedis, "MULTI");
        assertEquals("QUEUED", str(jedis, "MONITOR"));
        List<?> r = (List<?>) cmd(jedis, "EXEC");
        assertEquals("ERR MONITOR isn't allowed for DENY BLOCKING client",
                ((Exception) r.get(0)).getMessage());
        jedis.set("still", "normal");
        assertEquals("normal", jedis.get("still"));
    }

    @Test
    void resetLeavesMonitorMode(Jedis jedis) throws IOException {
        try (RespSocket m = monitor()) {
            assertEquals("+RESET", m.send("RESET").line());
            jedis.set("unseen", "1");
            assertEquals("+PONG", m.send("PING").line(), "no monitor line came before the reply");
            assertEquals("$1", m.send("GET", "unseen").line());
        }
    }

    @Test
    void monitorThatStopsReadingIsCutOffAtTheOutputBufferLimit(Jedis jedis) throws IOException {
        jedis.configSet("client-output-buffer-limit", "normal 262144 0 0");
        try (RespSocket m = new RespSocket(server.port())) {
            m.socket().setReceiveBufferSize(4096);
            m.send("MONITOR");
            String big = "x".repeat(64 * 1024);
            long start = System.nanoTime();
            // Each line is a non-printable-free 64 KB: far past 256 KB long before the socket holds it all.
            for (int i = 0; i < 400; i++) jedis.set("k" + i, big);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(big, jedis.get("k399"));
            assertTrue(ms < 10_000, "the writer was not slowed down: " + ms + " ms");
            // Draining what the kernel holds would take long through a 4 KB window: ask the server.
            long deadline = System.currentTimeMillis() + 5000;
            while (str(jedis, "CLIENT", "LIST").contains("flags=O") && System.currentTimeMillis() < deadline) {
                Thread.onSpinWait();
            }
            assertFalse(str(jedis, "CLIENT", "LIST").contains("flags=O"), "the monitor was disconnected");
        }
    }

    // ---- CLIENT PAUSE ----

    @Test
    void writePauseHoldsWritesButServesReads(Jedis jedis) throws IOException {
        jedis.set("k", "old");
        assertEquals("OK", str(jedis, "CLIENT", "PAUSE", "100000", "WRITE"));
        try (RespSocket writer = new RespSocket(server.port())) {
            writer.send("SET", "k", "new");
            assertNull(writer.lineWithin(100), "the write waits");
            assertEquals("old", jedis.get("k"));
            assertTrue(jedis.info("clients").contains("blocked_clients:1"));
            assertTrue(str(jedis, "CLIENT", "LIST").contains("flags=b"));
            // Arity errors are answered at once, paused or not.
            try (RespSocket other = new RespSocket(server.port())) {
                assertEquals("-ERR wrong number of arguments for 'set' command", other.send("SET", "k").line());
            }
            assertEquals("OK", str(jedis, "CLIENT", "UNPAUSE"));
            assertEquals("+OK", writer.line());
            assertEquals("new", jedis.get("k"));
            assertTrue(jedis.info("clients").contains("blocked_clients:0"));
        }
    }

    @Test
    void writePauseAlsoHoldsMayReplicateCommands(Jedis jedis) throws IOException {
        str(jedis, "CLIENT", "PAUSE", "100000", "WRITE");
        try (RespSocket publisher = new RespSocket(server.port())) {
            publisher.send("PUBLISH", "ch", "msg");
            assertNull(publisher.lineWithin(100), "PUBLISH propagates, so it waits");
            assertEquals("PONG", jedis.ping());
            str(jedis, "CLIENT", "UNPAUSE");
            assertEquals(":0", publisher.line());
        }
    }

    @Test
    void allPauseHoldsEveryCommandUntilItsTimeout(Jedis jedis) throws IOException {
        long start = System.nanoTime();
        assertEquals("OK", str(jedis, "CLIENT", "PAUSE", "300"));
        try (RespSocket c = new RespSocket(server.port())) {
            c.send("PING");
            assertEquals("+PONG", c.line());
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms >= 250, "PING waited for the pause to end: " + ms + " ms");
        }
    }

    @Test
    void pausedClientsResumeInArrivalOrderWithTheirLaterRequests(Jedis jedis) throws IOException {
        str(jedis, "CLIENT", "PAUSE", "100000", "WRITE");
        try (RespSocket a = new RespSocket(server.port());
             RespSocket b = new RespSocket(server.port());
             RespSocket c = new RespSocket(server.port())) {
            a.send("APPEND", "log", "a");
            assertNull(a.lineWithin(50));
            b.send("APPEND", "log", "b").send("GET", "log");
            assertNull(b.lineWithin(50));
            c.send("APPEND", "log", "c");
            assertNull(c.lineWithin(50));
            str(jedis, "CLIENT", "UNPAUSE");
            assertEquals(":1", a.line());
            assertEquals(":2", b.line());
            assertEquals("$2", b.line());
            assertEquals("ab", b.line());
            assertEquals(":3", c.line());
        }
    }

    @Test
    void expiryStopsDuringAPause() throws Exception {
        try (CinnabarServer manual = CinnabarServer.builder().port(0).clock(new io.cinnabar.ManualClock()).build().start();
             Jedis j = new Jedis(manual.host(), manual.port())) {
            expiryStopsDuringAPause(j, manual.clock());
        }
    }

    private static void expiryStopsDuringAPause(Jedis jedis, io.cinnabar.ManualClock clock) throws Exception {
        jedis.psetex("soon", 30, "v");
        str(jedis, "CLIENT", "PAUSE", "100000", "WRITE");
        long expiredBefore = expiredKeys(jedis);
        clock.advanceMillis(31);
        assertNull(jedis.get("soon"), "logically expired");
        assertEquals(1L, jedis.dbSize(), "but still stored");
        assertEquals(expiredBefore, expiredKeys(jedis));
        str(jedis, "CLIENT", "UNPAUSE");
        assertNull(jedis.get("soon"));
        assertEquals(0L, jedis.dbSize());
        assertEquals(expiredBefore + 1, expiredKeys(jedis));
    }

    private static long expiredKeys(Jedis jedis) {
        for (String l : jedis.info("stats").split("\r\n")) {
            if (l.startsWith("expired_keys:")) return Long.parseLong(l.substring(13));
        }
        throw new AssertionError("no expired_keys");
    }

    @Test
    void pauseInsideATransactionStartsAfterIt(Jedis jedis) throws IOException {
        str(jedis, "MULTI");
        str(jedis, "SET", "one", "1");
        str(jedis, "CLIENT", "PAUSE", "100000", "WRITE");
        str(jedis, "SET", "two", "2");
        List<?> r = (List<?>) cmd(jedis, "EXEC");
        assertEquals(3, r.size());
        assertEquals("2", jedis.get("two"));
        try (RespSocket c = new RespSocket(server.port())) {
            assertNull(c.send("SET", "three", "3").lineWithin(100));
        }
    }

    @Test
    void pauseArgumentErrors(Jedis jedis) {
        assertEquals("ERR timeout is not an integer or out of range", error(() -> cmd(jedis, "CLIENT", "PAUSE", "abc")));
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "CLIENT", "PAUSE", "-1")));
        assertEquals("ERR CLIENT PAUSE mode must be WRITE or ALL", error(() -> cmd(jedis, "CLIENT", "PAUSE", "10", "READ")));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.",
                error(() -> cmd(jedis, "CLIENT", "pause", "10", "ALL", "x")));
        // A zero timeout ends at once.
        assertEquals("OK", str(jedis, "CLIENT", "PAUSE", "0"));
        jedis.set("free", "yes");
    }

    // ---- RESET ----

    @Test
    void resetRestoresAFreshConnection(Jedis jedis) throws IOException {
        try (RespSocket c = new RespSocket(server.port())) {
            c.send("HELLO", "3");
            String first = c.line();
            assertTrue(first.startsWith("%"), first);
            while (!c.line().equals("*0")) {
                // the rest of HELLO's map; modules is the last, empty entry
            }
            c.send("SELECT", "2").line();
            c.send("CLIENT", "SETNAME", "named").line();
            c.send("WATCH", "w").line();
            c.send("MULTI").line();
            assertEquals("+RESET", c.send("RESET").line());
            jedis.set("w", "changed");
            assertEquals("$-1", c.send("CLIENT", "GETNAME").line(), "RESP2 and no name");
            assertEquals("+OK", c.send("MULTI").line(), "MULTI dropped");
            assertEquals("+QUEUED", c.send("GET", "w").line());
            assertEquals("*1", c.send("EXEC").line(), "WATCH dropped, database 0");
            assertEquals("$7", c.line());
        }
    }
}
