package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.util.OpenFiles;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import javax.net.ssl.SSLEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static io.cinnabar.persistence.LocalServers.freePort;
import static io.cinnabar.network.TestCerts.tlsServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad handshakes on the TLS port (plain text, a truncated ClientHello, random bytes, a record
 * header announcing more than a record may hold, hang-ups and resets at every step): the server
 * keeps serving, and once the peers are gone it holds no more file descriptors than before,
 * counted in /proc/self/fd of this JVM, which runs the embedded server.
 */
class TlsHandshakeAbuseIT {
    private static final int ROUNDS = 20;

    @Test
    void badHandshakesNeitherCrashNorLeak() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertEquals("PONG", admin.ping()); // Jedis connects on first use
            assertTrue(TlsIT.tlsPings(tlsPort, true, null)); // the TLS classes and files are loaded now
            assertTrue(TlsIT.tlsPings(tlsPort, false, null) == false);
            long baseline = settledFdCount(Long.MAX_VALUE);
            java.util.Set<String> before = OpenFiles.list();
            byte[] clientHello = clientHello();
            Random random = new Random(42);
            for (int round = 0; round < ROUNDS; round++) {
                expectClosed(tlsPort, "PING\r\n*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                expectClosed(tlsPort, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                hangUpAfter(tlsPort, Arrays.copyOf(clientHello, 1 + random.nextInt(clientHello.length - 1)), round % 2 == 0);
                byte[] noise = new byte[1 + random.nextInt(4096)];
                random.nextBytes(noise);
                hangUpAfter(tlsPort, noise, round % 3 == 0);
                // A handshake record header that announces 64 KB (more than a TLS record may hold): the
                // server waits for it (bounded by the 10 s handshake timeout) until the peer goes.
                hangUpAfter(tlsPort, new byte[] {0x16, 0x03, 0x01, (byte) 0xff, (byte) 0xff, 1, 2, 3}, round % 2 == 0);
                hangUpAfter(tlsPort, new byte[0], round % 2 == 1);
                hangUpAfter(tlsPort, clientHello, round % 2 == 0);
            }
            assertTrue(TlsIT.tlsPings(tlsPort, true, null));
            assertEquals("PONG", admin.ping());
            long after = settledFdCount(baseline);
            java.util.Set<String> extra = OpenFiles.list();
            extra.removeAll(before);

            assertTrue(after <= baseline, "file descriptors before " + baseline + ", after " + after + ", new: " + extra);
            assertTrue(admin.info("clients").contains("connected_clients:1\r\n"), admin.info("clients"));
        }
    }

    /** Sends bytes and expects the server to hang up (EOF or reset) without answering in RESP. */
    private static void expectClosed(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    // a TLS alert may come first; RESP never does
                    assertTrue(n == 0 || buf[0] != '+' && buf[0] != '-', "a RESP reply on the TLS port");
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server kept the connection open", e);
            } catch (IOException e) {
                // a reset is a hang-up too
            }
        }
    }

    /** Sends bytes and goes away at once, closing normally or with a reset. */
    private static void hangUpAfter(int port, byte[] bytes, boolean reset) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            if (bytes.length > 0) {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
            }
            if (reset) s.setSoLinger(true, 0);
        }
    }

    /** A real ClientHello, as the JDK's TLS client sends it first. */
    private static byte[] clientHello() throws Exception {
        SSLEngine engine = TestCerts.clientContext(true).createSSLEngine("127.0.0.1", 0);
        engine.setUseClientMode(true);
        engine.beginHandshake();
        ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] hello = new byte[out.remaining()];
        out.get(hello);
        assertEquals(0x16, hello[0]); // a handshake record
        return hello;
    }

    /** The JVM's open file descriptors once the count stops falling (or reaches target), for up to 15 s. */
    private static long settledFdCount(long target) throws Exception {
        long last = OpenFiles.count();
        for (int i = 0; i < 150 && last > target || i < 5; i++) {
            Thread.sleep(100);
            long now = OpenFiles.count();
            if (now == last && now <= target) break;
            last = now;
        }
        return last;
    }
}
