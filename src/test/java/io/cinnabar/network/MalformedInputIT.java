package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad clients over raw sockets: each gets Redis's error and then EOF (or only EOF where Redis
 * closes silently), while a well-behaved Jedis client keeps working next to it.
 */
@CinnabarTest
class MalformedInputIT {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Throwable> bystanderError = new AtomicReference<>();
    private final AtomicLong bystanderRounds = new AtomicLong();
    private Thread bystander;

    @BeforeEach
    void startBystander(CinnabarServer server) {
        bystander = new Thread(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", server.port(), 5000)) {
                for (long i = 0; !stop.get(); i++) {
                    assertEquals("PONG", jedis.ping());
                    assertEquals("OK", jedis.set("bystander", "v" + i));
                    assertEquals("v" + i, jedis.get("bystander"));
                    bystanderRounds.incrementAndGet();
                }
            } catch (Throwable e) {
                bystanderError.set(e);
            }
        }, "bystander");
        bystander.start();
    }

    @AfterEach
    void bystanderKeptWorking() throws InterruptedException {
        long before = bystanderRounds.get();
        Thread.sleep(100);
        stop.set(true);
        bystander.join(10_000);
        assertNull(bystanderError.get(), () -> "well-behaved client failed: " + bystanderError.get());
        assertTrue(bystanderRounds.get() > before, "well-behaved client made no progress at the end");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Socket connect(CinnabarServer server) throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    /** Everything the server sends until it closes the connection. */
    private static String readToEof(Socket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) out.write(buf, 0, n);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("server did not close the connection; got so far: "
                    + out.toString(StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            // A reset after the server closed with our unread bytes pending still ends the stream.
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    /** Writes as much of data as the server takes before it closes; a write failure is how closing shows up. */
    private static void writeQuietly(Socket s, byte[] data) {
        try {
            OutputStream out = s.getOutputStream();
            out.write(data);
            out.flush();
        } catch (IOException expectedOnceClosed) {
            // the server closed the connection while we were still writing
        }
    }

    private void assertErrorThenEof(CinnabarServer server, byte[] input, String expected) throws IOException {
        try (Socket s = connect(server)) {
            writeQuietly(s, input);
            assertEquals(expected, readToEof(s));
        }
    }

    @Test
    void anUnknownCommandsArgumentsAreQuotedAsCStrings(CinnabarServer server) throws IOException {
        // As redis-server 7.0.15 words it ("'%.*s' "): each stops at a NUL byte, the list at 128 bytes.
        try (Socket s = connect(server)) {
            s.getOutputStream().write(bytes("*3\r\n$3\r\nfoo\r\n$3\r\na\0b\r\n$1\r\nc\r\n"));
            assertEquals("-ERR unknown command 'foo', with args beginning with: 'a' 'c' ", RawSockets.line(s));
            s.getOutputStream().write(bytes("*3\r\n$3\r\nfoo\r\n$200\r\n" + "x".repeat(200) + "\r\n$1\r\nc\r\n"));
            assertEquals("-ERR unknown command 'foo', with args beginning with: '" + "x".repeat(128) + "' ", RawSockets.line(s));
        }
    }

    @Test
    void garbageMultibulkCount(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("*abc\r\n"), "-ERR Protocol error: invalid multibulk length\r\n");
        assertErrorThenEof(server, bytes("*3000000000\r\n"), "-ERR Protocol error: invalid multibulk length\r\n");
    }

    @Test
    void garbageInsteadOfBulkHeader(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n"),
                "-ERR Protocol error: expected '$', got 'f'\r\n");
    }

    @Test
    void theUnexpectedByteIsQuotedAsItCame(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("*2\r\n$4\r\nECHO\r\n\u009e5\r\nhello\r\n"),
                "-ERR Protocol error: expected '$', got '\u009e'\r\n");
    }

    @Test
    void aNulBeforeTheHeadersCrHidesItAsRedisStrchrDoes(CinnabarServer server) throws IOException {
        // Nothing comes back, not even the PING's reply, until the line passes the inline limit.
        byte[] padding = new byte[70_000];
        Arrays.fill(padding, (byte) 'x');
        assertErrorThenEof(server, concat(bytes("*\0*-1\r\nPING\r\n"), padding),
                "-ERR Protocol error: too big mbulk count string\r\n");
        assertErrorThenEof(server, concat(bytes("*1\r\n$4\0\r\n"), padding), "-ERR Protocol error: too big bulk count string\r\n");
    }

    @Test
    void binaryGarbageWithoutNewline(CinnabarServer server) throws IOException {
        byte[] garbage = new byte[200_000];
        for (int i = 0; i < garbage.length; i++) garbage[i] = (byte) ((i * 7919) % 251 + 1);
        for (int i = 0; i < garbage.length; i++) if (garbage[i] == '\n' || garbage[i] == '*') garbage[i] = 'x';
        assertErrorThenEof(server, garbage, "-ERR Protocol error: too big inline request\r\n");
    }

    @Test
    void repliesBeforeTheErrorAreSent(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$-5\r\nPING\r\n"),
                "+PONG\r\n+PONG\r\n-ERR Protocol error: invalid bulk length\r\n");
    }

    @Test
    void hugeBulkLengthHeader(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("*1\r\n$629145600\r\n"), "-ERR Protocol error: invalid bulk length\r\n");
    }

    @Test
    void hugeMultibulkHeaderWaitsForItsArguments(CinnabarServer server) throws IOException {
        try (Socket s = connect(server)) {
            OutputStream out = s.getOutputStream();
            out.write(bytes("*1000000\r\n"));
            for (int i = 0; i < 1000; i++) out.write(bytes("$3\r\nabc\r\n"));
            out.flush();
            s.setSoTimeout(500);
            try {
                int b = s.getInputStream().read();
                throw new AssertionError("server answered an incomplete request: " + b);
            } catch (SocketTimeoutException expected) {
                // like Redis: it waits for the other 999,000 arguments
            }
        }
    }

    @Test
    void halfAFrameThenDisconnect(CinnabarServer server) throws IOException {
        try (Socket s = connect(server)) {
            OutputStream out = s.getOutputStream();
            out.write(bytes("*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$10\r\nabc"));
            out.flush();
        }
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            assertEquals("PONG", jedis.ping());
            assertNull(jedis.get("half"));
        }
    }

    @Test
    void tooBigInlineRequest(CinnabarServer server) throws IOException {
        byte[] line = new byte[100 * 1024];
        Arrays.fill(line, (byte) 'a');
        assertErrorThenEof(server, line, "-ERR Protocol error: too big inline request\r\n");
        byte[] withNewline = Arrays.copyOf(line, line.length + 2);
        withNewline[line.length] = '\r';
        withNewline[line.length + 1] = '\n';
        assertErrorThenEof(server, withNewline, "-ERR Protocol error: too big inline request\r\n");
    }

    @Test
    void unbalancedQuotes(CinnabarServer server) throws IOException {
        assertErrorThenEof(server, bytes("set \"\"\"test-key\"\"\" test-value\r\nping\r\n"),
                "-ERR Protocol error: unbalanced quotes in request\r\n");
    }

    /**
     * 10,000 ECHOs of 1 KB written before reading anything: 10 MB of replies, more than both
     * sockets' buffers hold, so a server that stopped reading until its output drained would
     * deadlock with this client.
     */
    @Test
    void longPipelineWrittenBeforeReading(CinnabarServer server) throws Exception {
        int count = 10_000;
        byte[] pad = new byte[1000];
        Arrays.fill(pad, (byte) 'p');
        ByteArrayOutputStream requests = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            byte[] arg = concat(bytes(String.format("%06d", i)), pad);
            requests.write(bytes("*2\r\n$4\r\nECHO\r\n$" + arg.length + "\r\n"));
            requests.write(arg);
            requests.write(bytes("\r\n"));
        }
        try (Socket s = connect(server)) {
            CompletableFuture<Void> written = OwnThread.run(() -> {
                try {
                    s.getOutputStream().write(requests.toByteArray());
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try {
                written.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("deadlock: the server stopped reading while its replies were unread");
            }
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            for (int i = 0; i < count; i++) {
                byte[] arg = concat(bytes(String.format("%06d", i)), pad);
                byte[] expected = concat(bytes("$" + arg.length + "\r\n"), concat(arg, bytes("\r\n")));
                assertArrayEquals(expected, in.readNBytes(expected.length), "reply " + i);
            }
        }
    }

    @Test
    void outputBufferHardLimitClosesWithoutTheReply(CinnabarServer server) throws IOException {
        try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
            admin.configSet("client-output-buffer-limit", "normal 100000 0 0");
            try {
                byte[] big = new byte[150_000];
                Arrays.fill(big, (byte) 'x');
                ByteArrayOutputStream request = new ByteArrayOutputStream();
                request.write(bytes("PING\r\n*2\r\n$4\r\nECHO\r\n$" + big.length + "\r\n"));
                request.write(big);
                request.write(bytes("\r\n"));
                // One batch: like Redis, the reply that passes the limit is not sent, nor what came before it in the batch.
                String got = sendAndReadToEof(server, request.toByteArray());
                assertTrue(got.isEmpty() || got.equals("+PONG\r\n"), got.length() + " bytes");
                assertEquals("PONG", admin.ping());
            } finally {
                admin.configSet("client-output-buffer-limit", "normal 0 0 0");
            }
        }
    }

    @Test
    void repeatedRandomPicksStopAtTheOutputLimitLikeRedis(CinnabarServer server) throws IOException {
        try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
            admin.hset("h", "a", "b");
            admin.sadd("s", "a");
            admin.zadd("z", 1, "a");
            admin.configSet("client-output-buffer-limit", "normal 1000000 0 0");
            try {
                // A billion picks: the building stops at the limit and the client goes unanswered.
                for (String pick : List.of("HRANDFIELD h -999999999", "SRANDMEMBER s -999999999",
                        "ZRANDMEMBER z -999999999 WITHSCORES")) {
                    assertEquals("", sendAndReadToEof(server, bytes(pick + "\r\n")), pick);
                }
                assertEquals("PONG", admin.ping());
            } finally {
                admin.configSet("client-output-buffer-limit", "normal 0 0 0");
            }
            // No limit would stop it: refused, where Redis would fill its memory (or, near 2^62, never end).
            for (String pick : List.of("HRANDFIELD h -999999999", "SRANDMEMBER s -999999999",
                    "ZRANDMEMBER z -4611686018427387903")) {
                assertEquals("-ERR value is out of range\r\n", sendAndReadToEof(server, bytes(pick + "\r\nQUIT\r\n"))
                        .replace("+OK\r\n", ""), pick);
            }
            assertEquals(3, admin.zrandmemberWithScores("z", -3).size());
            admin.del("h", "s", "z");
        }
    }

    private static String sendAndReadToEof(CinnabarServer server, byte[] input) throws IOException {
        try (Socket s = connect(server)) {
            writeQuietly(s, input);
            return readToEof(s);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
