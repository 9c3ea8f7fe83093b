package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pipelines whose replies pass the size at which a batch's replies start leaving before it ends:
 * every reply arrives whole and in its place, also when replies of writes wait for the AOF.
 */
@CinnabarTest
class BigPipelinedRepliesIT {
    private static final int KEYS = 24;
    private static final int VALUE_BYTES = 200 * 1024;

    @TempDir
    Path dir;

    @Test
    void bigRepliesOfOnePipelineArriveWholeAndInOrder(CinnabarServer server, Jedis jedis) throws IOException {
        byte[][] values = storeValues(jedis);
        ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
        for (int i = 0; i < KEYS; i++) {
            command(pipeline, "GET", "big:" + i);
            command(pipeline, "INCR", "n");
        }
        try (Socket s = RawSockets.connect(server)) {
            s.getOutputStream().write(pipeline.toByteArray());
            InputStream in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(values[i], bulk(in), "GET big:" + i);
                assertEquals(":" + (i + 1), line(in));
            }
        }
    }

    /**
     * A client that reads nothing while it sends one GET at a time: its replies go to the socket
     * until the socket takes only part of one; that one's rest, and every reply after it, wait in
     * the server and still arrive whole and in order once the client reads.
     */
    @Test
    void repliesTheSocketTookPartOfKeepTheirPlace(CinnabarServer server, Jedis jedis) throws IOException {
        byte[][] values = storeValues(jedis);
        int sent = 0;
        try (Socket s = RawSockets.connect(server)) {
            s.getOutputStream().write(request("CLIENT", "SETNAME", "slow-reader"));
            // One request a write, each answered before the next is sent: one reply a delivery.
            for (int queuedAt = -1; sent < 1000 && (queuedAt < 0 || sent < queuedAt + 3); sent++) {
                s.getOutputStream().write(request("GET", "big:" + sent % KEYS));
                s.getOutputStream().write(request("INCR", "n"));
                awaitCount(jedis, sent + 1);
                if (queuedAt < 0 && outputWaits(jedis, "slow-reader")) queuedAt = sent;
            }
            InputStream in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
            assertEquals("+OK", line(in));
            for (int i = 0; i < sent; i++) {
                assertArrayEquals(values[i % KEYS], bulk(in), "GET big:" + i % KEYS);
                assertEquals(":" + (i + 1), line(in));
            }
        }
        assertTrue(sent < 1000, "the socket never stopped taking replies");
    }

    /** Waits (without sleeping for time to pass) until INCR n has run count times and been answered. */
    private static void awaitCount(Jedis jedis, int count) {
        for (int i = 0; i < 100_000; i++) {
            if (String.valueOf(count).equals(jedis.get("n"))) return;
            Thread.onSpinWait();
        }
        throw new AssertionError("n never reached " + count + ": " + jedis.get("n"));
    }

    /** True when replies to the named client wait in the server. */
    private static boolean outputWaits(Jedis jedis, String name) {
        for (String client : jedis.clientList().split("\\n")) {
            if (client.contains(" name=" + name + " ")) return !client.contains(" omem=0 ");
        }
        throw new AssertionError("no client named " + name);
    }

    @Test
    void repliesOfWritesWaitingForTheAofKeepTheirPlace() throws IOException {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("save", "").option("appendonly", "yes").option("appendfsync", "always").build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            byte[][] values = storeValues(jedis);
            ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
            for (int i = 0; i < KEYS; i++) {
                command(pipeline, "GET", "big:" + i);
                if (i % 6 == 5) command(pipeline, "INCR", "n");
            }
            try (Socket s = RawSockets.connect(server)) {
                s.getOutputStream().write(pipeline.toByteArray());
                InputStream in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
                for (int i = 0; i < KEYS; i++) {
                    assertArrayEquals(values[i], bulk(in), "GET big:" + i);
                    if (i % 6 == 5) assertEquals(":" + (i / 6 + 1), line(in));
                }
            }
            assertEquals("4", jedis.get("n"));
        }
    }

    /** KEYS values of VALUE_BYTES, each filled with a byte of its own. */
    private static byte[][] storeValues(Jedis jedis) {
        byte[][] values = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            values[i] = new byte[VALUE_BYTES];
            Arrays.fill(values[i], (byte) ('a' + i));
            jedis.set(("big:" + i).getBytes(StandardCharsets.US_ASCII), values[i]);
        }
        return values;
    }

    private static void command(ByteArrayOutputStream out, String... args) {
        out.writeBytes(request(args));
    }

    private static byte[] request(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bulk(InputStream in) throws IOException {
        String header = line(in);
        assertEquals('$', header.charAt(0), header);
        byte[] data = in.readNBytes(Integer.parseInt(header.substring(1)));
        assertEquals("", line(in));
        return data;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) throw new IOException("EOF after " + b);
            b.append((char) c);
        }
        if (in.read() != '\n') throw new IOException("CR without LF after " + b);
        return b.toString();
    }
}
