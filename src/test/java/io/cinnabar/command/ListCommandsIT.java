package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.ListPosition;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.LPosParams;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest(clock = ClockMode.MANUAL, options = {"enable-debug-command", "yes"})
class ListCommandsIT {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    /** A bare RESP connection: exact reply bytes, and reads that can time out. */
    static final class Conn implements AutoCloseable {
        final Socket s;
        final OutputStream out;
        final InputStream in;

        Conn(int port) throws IOException {
            s = new Socket("127.0.0.1", port);
            s.setTcpNoDelay(true);
            out = s.getOutputStream();
            in = s.getInputStream();
        }

        void send(String... args) throws IOException {
            StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
            }
            out.write(b.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        /** Reads whatever arrives within ms (at least expectedLength bytes if given), as text. */
        String read(int ms, int expectedLength) throws IOException {
            s.setSoTimeout(ms);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            long deadline = System.currentTimeMillis() + ms;
            try {
                while (got.size() < Math.max(1, expectedLength) && System.currentTimeMillis() < deadline) {
                    int n = in.read(buf);
                    if (n < 0) break;
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                // nothing (more) arrived
            }
            return got.toString(StandardCharsets.UTF_8);
        }

        String call(String... args) throws IOException {
            send(args);
            return read(2000, 1);
        }

        String expect(String reply, int ms) throws IOException {
            return read(ms, reply.length());
        }

        @Override
        public void close() throws IOException {
            s.close();
        }
    }

    private static void waitBlocked(Jedis jedis, int n) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (jedis.info("clients").contains("blocked_clients:" + n + "\r")) return;
            Thread.sleep(5);
        }
        throw new AssertionError("blocked_clients never reached " + n + ": " + jedis.info("clients"));
    }

    private static JedisDataException error(Runnable r) {
        return assertThrows(JedisDataException.class, r::run);
    }

    // ---- push / pop ----

    @Test
    void pushesReturnLengthAndKeepOrder(Jedis jedis) {
        assertEquals(3, jedis.rpush("l", "a", "b", "c"));
        assertEquals(5, jedis.lpush("l", "y", "x"));
        assertEquals(List.of("x", "y", "a", "b", "c"), jedis.lrange("l", 0, -1));
        assertEquals(0, jedis.lpushx("none", "a"));
        assertEquals(0, jedis.rpushx("none", "a"));
        assertEquals(0, jedis.exists("none") ? 1 : 0);
        assertEquals(7, jedis.rpushx("l", "d", "e"));
        assertEquals(8, jedis.lpushx("l", "w"));
        assertEquals("w", jedis.lindex("l", 0));
        assertEquals("e", jedis.lindex("l", -1));
        assertEquals("quicklist", jedis.objectEncoding("l"));
        assertEquals("list", jedis.type("l"));
    }

    @Test
    void popsWithAndWithoutCount(CinnabarServer server) throws IOException {
        try (Conn c = new Conn(server.port())) {
            assertEquals(":5\r\n", c.call("RPUSH", "l", "a", "b", "c", "d", "e"));
            assertEquals("$1\r\na\r\n", c.call("LPOP", "l"));
            assertEquals("*2\r\n$1\r\ne\r\n$1\r\nd\r\n", c.call("RPOP", "l", "2"));
            assertEquals("*0\r\n", c.call("LPOP", "l", "0"));
            assertEquals("*2\r\n$1\r\nb\r\n$1\r\nc\r\n", c.call("LPOP", "l", "10"));
            assertEquals(":0\r\n", c.call("EXISTS", "l"));
            assertEquals("$-1\r\n", c.call("LPOP", "l"));
            assertEquals("*-1\r\n", c.call("LPOP", "l", "2"));
            assertEquals("*-1\r\n", c.call("RPOP", "l", "0"));
            assertEquals("-ERR value is out of range, must be positive\r\n", c.call("LPOP", "l", "-1"));
            assertEquals("-ERR value is out of range, must be positive\r\n", c.call("LPOP", "l", "x"));
            assertEquals("-ERR wrong number of arguments for 'lpop' command\r\n", c.call("LPOP", "l", "1", "2"));
            c.call("HELLO", "3");
            assertEquals("_\r\n", c.call("LPOP", "l"));
            assertEquals("_\r\n", c.call("LPOP", "l", "2"));
            assertEquals("_\r\n", c.call("LINDEX", "l", "0"));
            assertEquals("*0\r\n", c.call("LRANGE", "l", "0", "-1"));
        }
    }

    @Test
    void wrongTypeEverywhere(Jedis jedis) {
        jedis.set("s", "x");
        for (String[] a : new String[][] {{"LPUSH", "s", "a"}, {"RPUSHX", "s", "a"}, {"LPOP", "s"}, {"RPOP", "s", "1"},
                {"LLEN", "s"}, {"LRANGE", "s", "0", "1"}, {"LINDEX", "s", "0"}, {"LSET", "s", "0", "a"},
                {"LINSERT", "s", "BEFORE", "a", "b"}, {"LREM", "s", "0", "a"}, {"LTRIM", "s", "0", "1"},
                {"LPOS", "s", "a"}, {"LMOVE", "s", "d", "LEFT", "LEFT"}, {"RPOPLPUSH", "s", "d"},
                {"LMPOP", "1", "s", "LEFT"}, {"BLPOP", "s", "0"}, {"BLMPOP", "0", "1", "s", "LEFT"}}) {
            JedisDataException e = error(() -> cmd(jedis, a[0], java.util.Arrays.copyOfRange(a, 1, a.length)));
            assertEquals(WRONGTYPE, e.getMessage(), String.join(" ", a));
        }
        jedis.rpush("l", "a");
        assertEquals(WRONGTYPE, error(() -> jedis.rpoplpush("l", "s")).getMessage());
        assertEquals(List.of("a"), jedis.lrange("l", 0, -1), "nothing popped when the destination is wrong");
    }

    // ---- reads ----

    @Test
    void rangeAndIndex(Jedis jedis) {
        jedis.rpush("l", "0", "1", "2", "3", "4", "5");
        assertEquals(List.of("1", "2"), jedis.lrange("l", 1, 2));
        assertEquals(List.of("4", "5"), jedis.lrange("l", -2, 100));
        assertEquals(List.of(), jedis.lrange("l", 4, 2));
        assertEquals(List.of(), jedis.lrange("l", 10, 20));
        assertEquals(List.of("0", "1", "2", "3", "4", "5"), jedis.lrange("l", -100, 100));
        assertEquals(List.of(), jedis.lrange("none", 0, -1));
        assertNull(jedis.lindex("l", 6));
        assertNull(jedis.lindex("l", -7));
        assertEquals("0", jedis.lindex("l", -6));
        assertEquals(6, jedis.llen("l"));
        assertEquals(0, jedis.llen("none"));
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "LRANGE", "l", "a", "1")).getMessage());
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "LINDEX", "l", "a")).getMessage());
    }

    @Test
    void lpos(CinnabarServer server) throws IOException {
        try (Conn c = new Conn(server.port())) {
            c.call("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c");
            assertEquals(":2\r\n", c.call("LPOS", "l", "c"));
            assertEquals(":6\r\n", c.call("LPOS", "l", "c", "RANK", "2"));
            assertEquals(":7\r\n", c.call("LPOS", "l", "c", "RANK", "-1"));
            assertEquals("*3\r\n:2\r\n:6\r\n:7\r\n", c.call("LPOS", "l", "c", "COUNT", "0"));
            assertEquals("*2\r\n:7\r\n:6\r\n", c.call("LPOS", "l", "c", "RANK", "-1", "COUNT", "2"));
            assertEquals("*1\r\n:2\r\n", c.call("LPOS", "l", "c", "COUNT", "0", "MAXLEN", "6"));
            assertEquals("$-1\r\n", c.call("LPOS", "l", "c", "RANK", "4"));
            assertEquals("$-1\r\n", c.call("LPOS", "none", "c"));
            assertEquals("*0\r\n", c.call("LPOS", "none", "c", "COUNT", "1"));
            assertEquals("-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                    + "or use negative to start from the end of the list\r\n", c.call("LPOS", "l", "c", "RANK", "0"));
            assertEquals("-ERR COUNT can't be negative\r\n", c.call("LPOS", "l", "c", "COUNT", "-1"));
            assertEquals("-ERR MAXLEN can't be negative\r\n", c.call("LPOS", "l", "c", "MAXLEN", "-1"));
            assertEquals("-ERR syntax error\r\n", c.call("LPOS", "l", "c", "COUNT"));
            assertEquals("-ERR syntax error\r\n", c.call("LPOS", "l", "c", "FOO", "1"));
        }
    }

    @Test
    void lposThroughJedis(Jedis jedis) {
        jedis.rpush("l", "a", "b", "a");
        assertEquals(List.of(0L, 2L), jedis.lpos("l", "a", LPosParams.lPosParams(), 0));
    }

    // ---- edits ----

    @Test
    void lsetLinsertLremLtrim(Jedis jedis) {
        jedis.rpush("l", "a", "b", "c");
        assertEquals("OK", jedis.lset("l", 1, "B"));
        assertEquals("OK", jedis.lset("l", -1, "a much longer element than before"));
        assertEquals(List.of("a", "B", "a much longer element than before"), jedis.lrange("l", 0, -1));
        assertEquals("ERR index out of range", error(() -> jedis.lset("l", 3, "x")).getMessage());
        assertEquals("ERR no such key", error(() -> jedis.lset("none", 0, "x")).getMessage());

        assertEquals(4, jedis.linsert("l", ListPosition.BEFORE, "B", "x"));
        assertEquals(5, jedis.linsert("l", ListPosition.AFTER, "B", "y"));
        assertEquals(-1, jedis.linsert("l", ListPosition.AFTER, "nope", "y"));
        assertEquals(0, jedis.linsert("none", ListPosition.AFTER, "B", "y"));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "LINSERT", "l", "MIDDLE", "B", "z")).getMessage());
        assertEquals(List.of("a", "x", "B", "y", "a much longer element than before"), jedis.lrange("l", 0, -1));

        jedis.del("r");
        jedis.rpush("r", "k", "1", "k", "2", "k", "3", "k");
        assertEquals(2, jedis.lrem("r", -2, "k"));
        assertEquals(List.of("k", "1", "k", "2", "3"), jedis.lrange("r", 0, -1));
        assertEquals(1, jedis.lrem("r", 1, "k"));
        assertEquals(1, jedis.lrem("r", 0, "k"));
        assertEquals(0, jedis.lrem("none", 0, "k"));
        assertEquals(3, jedis.lrem("r", 0, "1") + jedis.lrem("r", 0, "2") + jedis.lrem("r", 0, "3"));
        assertTrue(!jedis.exists("r"), "LREM deletes an emptied list");

        jedis.rpush("t", "0", "1", "2", "3", "4");
        assertEquals("OK", jedis.ltrim("t", 1, -2));
        assertEquals(List.of("1", "2", "3"), jedis.lrange("t", 0, -1));
        assertEquals("OK", jedis.ltrim("t", 5, 10));
        assertTrue(!jedis.exists("t"), "LTRIM to nothing deletes the key");
        assertEquals("OK", jedis.ltrim("none", 0, 1));
    }

    // ---- moves ----

    @Test
    void lmoveAndRpoplpush(CinnabarServer server, Jedis jedis) throws IOException {
        jedis.rpush("src", "a", "b", "c");
        assertEquals("c", jedis.rpoplpush("src", "dst"));
        assertEquals("a", jedis.lmove("src", "dst", ListDirection.LEFT, ListDirection.RIGHT));
        assertEquals(List.of("c", "a"), jedis.lrange("dst", 0, -1));
        assertEquals("b", jedis.lmove("src", "src", ListDirection.LEFT, ListDirection.RIGHT));
        assertEquals(List.of("b"), jedis.lrange("src", 0, -1), "rotating a one-element list keeps it");
        assertEquals("c", jedis.lmove("dst", "dst", ListDirection.LEFT, ListDirection.RIGHT));
        assertEquals(List.of("a", "c"), jedis.lrange("dst", 0, -1));
        assertNull(jedis.rpoplpush("none", "dst"));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "LMOVE", "src", "dst", "UP", "LEFT")).getMessage());
        try (Conn c = new Conn(server.port())) {
            assertEquals("$-1\r\n", c.call("LMOVE", "none", "dst", "LEFT", "LEFT"));
            c.call("HELLO", "3");
            assertEquals("_\r\n", c.call("RPOPLPUSH", "none", "dst"));
        }
    }

    @Test
    void lmpop(CinnabarServer server) throws IOException {
        try (Conn c = new Conn(server.port())) {
            c.call("RPUSH", "b", "1", "2", "3");
            assertEquals("*2\r\n$1\r\nb\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n", c.call("LMPOP", "2", "a", "b", "LEFT", "COUNT", "2"));
            assertEquals("*2\r\n$1\r\nb\r\n*1\r\n$1\r\n3\r\n", c.call("LMPOP", "2", "a", "b", "RIGHT", "COUNT", "5"));
            assertEquals("*-1\r\n", c.call("LMPOP", "2", "a", "b", "RIGHT"));
            assertEquals("-ERR numkeys should be greater than 0\r\n", c.call("LMPOP", "0", "a", "LEFT"));
            assertEquals("-ERR numkeys should be greater than 0\r\n", c.call("LMPOP", "x", "a", "LEFT"));
            assertEquals("-ERR syntax error\r\n", c.call("LMPOP", "3", "a", "LEFT"));
            assertEquals("-ERR syntax error\r\n", c.call("LMPOP", "1", "a", "UP"));
            assertEquals("-ERR count should be greater than 0\r\n", c.call("LMPOP", "1", "a", "LEFT", "COUNT", "0"));
            assertEquals("-ERR syntax error\r\n", c.call("LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"));
            c.call("HELLO", "3");
            assertEquals("_\r\n", c.call("LMPOP", "1", "a", "LEFT"));
        }
    }

    // ---- blocking ----

    @Test
    void blpopServedByAnotherClientsPush(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("BLPOP", "k1", "k2", "0");
            waitBlocked(jedis, 1);
            assertEquals("", b.read(100, 0), "still blocked");
            jedis.rpush("k2", "v1", "v2");
            assertEquals("*2\r\n$2\r\nk2\r\n$2\r\nv1\r\n", b.expect("*2\r\n$2\r\nk2\r\n$2\r\nv1\r\n", 2000));
            assertEquals(List.of("v2"), jedis.lrange("k2", 0, -1));
            waitBlocked(jedis, 0);
        }
    }

    @Test
    void blockedClientsAreServedInFifoOrder(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn first = new Conn(server.port()); Conn second = new Conn(server.port())) {
            first.send("BRPOP", "q", "0");
            waitBlocked(jedis, 1);
            second.send("BRPOP", "q", "0");
            waitBlocked(jedis, 2);
            jedis.rpush("q", "a");
            assertEquals("*2\r\n$1\r\nq\r\n$1\r\na\r\n", first.expect("*2\r\n$1\r\nq\r\n$1\r\na\r\n", 2000));
            assertEquals("", second.read(100, 0));
            jedis.rpush("q", "b", "c");
            assertEquals("*2\r\n$1\r\nq\r\n$1\r\nc\r\n", second.expect("*2\r\n$1\r\nq\r\n$1\r\nc\r\n", 2000));
            assertEquals(List.of("b"), jedis.lrange("q", 0, -1));
        }
    }

    @Test
    void timeoutHasSubSecondPrecision(CinnabarServer server, Jedis jedis, ManualClock clock) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("BLPOP", "none", "0.2");
            timesOutAfter(jedis, clock, 200);
            assertEquals("*-1\r\n", b.expect("*-1\r\n", 3000));
            b.call("HELLO", "3");
            b.send("BLMOVE", "none", "d", "LEFT", "LEFT", "0.05");
            timesOutAfter(jedis, clock, 50);
            assertEquals("_\r\n", b.expect("_\r\n", 3000));
            b.send("BLMPOP", "0.05", "1", "none", "LEFT");
            timesOutAfter(jedis, clock, 50);
            assertEquals("_\r\n", b.expect("_\r\n", 3000));
        }
    }

    /**
     * The one blocked client is still blocked when ms have passed, and answered a millisecond later
     * (Redis's timeout < now).
     */
    private static void timesOutAfter(Jedis jedis, ManualClock clock, long ms) throws InterruptedException {
        waitBlocked(jedis, 1);
        clock.advanceMillis(ms);
        assertEquals(1, ManualClockIT.blockedClients(jedis));
        clock.advanceMillis(1);
        assertEquals(0, ManualClockIT.blockedClients(jedis));
    }

    @Test
    void timeoutErrors(Jedis jedis) {
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "-1")).getMessage());
        assertEquals("ERR timeout is not a float or out of range", error(() -> cmd(jedis, "BRPOP", "k", "abc")).getMessage());
        // Redis's (long long) cast of a timeout past its range is LLONG_MIN: negative, inf included.
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "inf")).getMessage());
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "-inf")).getMessage());
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "9223372036854775808")).getMessage());
        assertEquals("ERR timeout is not a float or out of range", error(() -> cmd(jedis, "BLPOP", "k", "nan")).getMessage());
        assertEquals("ERR timeout is not a float or out of range",
                error(() -> cmd(jedis, "BLMOVE", "k", "d", "LEFT", "LEFT", "x")).getMessage());
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "BLMOVE", "k", "d", "UP", "LEFT", "x")).getMessage());
        assertEquals("ERR numkeys should be greater than 0", error(() -> cmd(jedis, "BLMPOP", "x", "0", "k", "LEFT")).getMessage());
    }

    /** getTimeoutFromObjectOrReply reads seconds as a long double and takes ceill(seconds * 1000). */
    @Test
    void timeoutsReadAsLongDouble(CinnabarServer server, Jedis jedis, ManualClock clock) throws Exception {
        // In a long double's range (not a double's): 1e400 ms cast to long long is LLONG_MIN.
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "1e400")).getMessage());
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "BLPOP", "k", "-1e400")).getMessage());
        assertEquals("ERR timeout is not a float or out of range", error(() -> cmd(jedis, "BLPOP", "k", "1e5000")).getMessage());
        try (Conn b = new Conn(server.port())) {
            b.send("BLPOP", "k", "1e-400");
            timesOutAfter(jedis, clock, 1);
            assertEquals("*-1\r\n", b.expect("*-1\r\n", 3000));
            // Rounded up to 0, or a deadline past LLONG_MAX: Redis waits for ever.
            for (String timeout : new String[] {"-0.001", "-1e-400", "9223372036854774"}) {
                b.send("BLPOP", "k", timeout);
                waitBlocked(jedis, 1);
                clock.advance(java.time.Duration.ofDays(1));
                waitBlocked(jedis, 1);
                jedis.rpush("k", timeout);
                String r = "*2\r\n$1\r\nk\r\n$" + timeout.length() + "\r\n" + timeout + "\r\n";
                assertEquals(r, b.expect(r, 2000));
            }
        }
    }

    @Test
    void zeroTimeoutWaitsUntilPushed(CinnabarServer server, Jedis jedis, ManualClock clock) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("BLMPOP", "0", "2", "x", "y", "RIGHT", "COUNT", "2");
            waitBlocked(jedis, 1);
            clock.advance(java.time.Duration.ofDays(1));
            waitBlocked(jedis, 1);
            assertEquals("", b.read(50, 0));
            jedis.rpush("y", "1", "2", "3");
            String r = "*2\r\n$1\r\ny\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n";
            assertEquals(r, b.expect(r, 2000));
        }
    }

    @Test
    void blmoveServedPushesToDestination(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0");
            waitBlocked(jedis, 1);
            jedis.rpush("src", "a", "b");
            assertEquals("$1\r\nb\r\n", b.expect("$1\r\nb\r\n", 2000));
            assertEquals(List.of("b"), jedis.lrange("dst", 0, -1));
            assertEquals(List.of("a"), jedis.lrange("src", 0, -1));
        }
    }

    @Test
    void blmoveWithWrongTypeDestinationGetsWrongType(CinnabarServer server, Jedis jedis) throws Exception {
        jedis.set("dst", "string");
        try (Conn b = new Conn(server.port())) {
            b.send("BRPOPLPUSH", "src", "dst", "0");
            waitBlocked(jedis, 1);
            jedis.rpush("src", "a");
            assertEquals("-" + WRONGTYPE + "\r\n", b.expect("-" + WRONGTYPE + "\r\n", 2000));
            assertEquals(List.of("a"), jedis.lrange("src", 0, -1));
        }
    }

    @Test
    void keyReplacedByAnotherTypeKeepsClientBlocked(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("BLPOP", "k", "0");
            waitBlocked(jedis, 1);
            jedis.set("k", "string");
            assertEquals("", b.read(150, 0));
            waitBlocked(jedis, 1);
            jedis.del("k");
            jedis.lpush("k", "v");
            assertEquals("*2\r\n$1\r\nk\r\n$1\r\nv\r\n", b.expect("*2\r\n$1\r\nk\r\n$1\r\nv\r\n", 2000));
        }
    }

    @Test
    void disconnectedBlockedClientIsForgotten(CinnabarServer server, Jedis jedis) throws Exception {
        Conn b = new Conn(server.port());
        b.send("BLPOP", "k", "0");
        waitBlocked(jedis, 1);
        b.close();
        waitBlocked(jedis, 0);
        jedis.rpush("k", "v");
        assertEquals(List.of("v"), jedis.lrange("k", 0, -1), "nobody consumed the element");
    }

    @Test
    void clientUnblockTimeoutAndError(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("CLIENT", "ID");
            String id = b.read(2000, 3).trim().substring(1);
            b.send("BLPOP", "k", "0");
            waitBlocked(jedis, 1);
            assertTrue(jedis.clientList().contains("id=" + id + " ") && ((String) cmd(jedis, "CLIENT", "LIST", "ID", id)).contains(" flags=b "),
                    (String) cmd(jedis, "CLIENT", "LIST", "ID", id));
            assertEquals(1L, jedis.clientUnblock(Long.parseLong(id)));
            assertEquals("*-1\r\n", b.expect("*-1\r\n", 2000));
            b.send("BRPOPLPUSH", "k", "d", "0");
            waitBlocked(jedis, 1);
            assertEquals(1L, cmd(jedis, "CLIENT", "UNBLOCK", id, "ERROR"));
            String err = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n";
            assertEquals(err, b.expect(err, 2000));
            assertEquals(0L, cmd(jedis, "CLIENT", "UNBLOCK", id));
        }
    }

    @Test
    void blockingCommandsInsideMultiDoNotBlock(CinnabarServer server) throws Exception {
        try (Conn c = new Conn(server.port())) {
            c.call("MULTI");
            c.call("BLPOP", "none", "0");
            c.call("BLMOVE", "none", "d", "LEFT", "LEFT", "0");
            c.call("BLMPOP", "0", "1", "none", "LEFT");
            c.call("RPUSH", "l", "x");
            c.call("BRPOP", "l", "0");
            assertEquals("*5\r\n*-1\r\n$-1\r\n*-1\r\n:1\r\n*2\r\n$1\r\nl\r\n$1\r\nx\r\n", c.call("EXEC"));
        }
    }

    @Test
    void pipelinedCommandsAfterABlockingOneWaitForIt(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            // One write: BLPOP, then two more commands in the same packet.
            String pipeline = "*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n"
                    + "*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n";
            b.out.write(pipeline.getBytes(StandardCharsets.US_ASCII));
            b.out.flush();
            waitBlocked(jedis, 1);
            assertEquals("", b.read(100, 0), "nothing answered while blocked");
            jedis.rpush("k", "v1", "v2");
            String expected = "*2\r\n$1\r\nk\r\n$2\r\nv1\r\n$5\r\nafter\r\n:1\r\n";
            assertEquals(expected, b.expect(expected, 2000));
        }
    }

    @Test
    void chainedBlmovesAndRenameWakeClients(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn a = new Conn(server.port()); Conn b = new Conn(server.port())) {
            a.send("BLMOVE", "l1", "l2", "LEFT", "LEFT", "0");
            waitBlocked(jedis, 1);
            b.send("BLPOP", "l2", "0");
            waitBlocked(jedis, 2);
            jedis.rpush("tmp", "x");
            jedis.rename("tmp", "l1");
            assertEquals("$1\r\nx\r\n", a.expect("$1\r\nx\r\n", 2000));
            assertEquals("*2\r\n$2\r\nl2\r\n$1\r\nx\r\n", b.expect("*2\r\n$2\r\nl2\r\n$1\r\nx\r\n", 2000));
            assertTrue(!jedis.exists("l1") && !jedis.exists("l2"));
        }
    }

    @Test
    void blockingCommandCountedOnceInCommandstats(CinnabarServer server, Jedis jedis) throws Exception {
        jedis.configResetStat();
        try (Conn b = new Conn(server.port())) {
            b.send("BLPOP", "k", "0");
            waitBlocked(jedis, 1);
            jedis.set("k", "s");
            jedis.del("k");
            jedis.rpush("k", "v");
            b.expect("*2\r\n$1\r\nk\r\n$1\r\nv\r\n", 2000);
            String stats = jedis.info("commandstats");
            assertTrue(stats.contains("cmdstat_blpop:calls=1,"), stats);
        }
    }

    @Test
    void replyOffSilencesTheServedReply(CinnabarServer server, Jedis jedis) throws Exception {
        try (Conn b = new Conn(server.port())) {
            b.send("CLIENT", "REPLY", "OFF");
            b.send("BLPOP", "k", "0");
            waitBlocked(jedis, 1);
            jedis.rpush("k", "v1", "v2");
            waitBlocked(jedis, 0);
            b.send("CLIENT", "REPLY", "ON");
            assertEquals("+OK\r\n", b.read(2000, 5));
            assertEquals(List.of("v2"), jedis.lrange("k", 0, -1));
        }
    }

    @Test
    void commandInfo(Jedis jedis) {
        List<?> info = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "BLMPOP")).get(0);
        assertEquals(-5L, info.get(1));
        assertEquals(List.of("write", "blocking", "movablekeys"), info.get(2));
        info = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "BLPOP")).get(0);
        assertEquals(List.of(1L, -2L, 1L), info.subList(3, 6));
        assertEquals("OK", str(jedis, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b"));
        assertEquals("ERR argument must be a memory value bigger than 1 and smaller than 4gb",
                error(() -> cmd(jedis, "DEBUG", "QUICKLIST-PACKED-THRESHOLD", "x")).getMessage());
    }
}
