package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.network.RawSockets.connect;
import static io.cinnabar.network.RawSockets.send;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients' buffers are part of used_memory (INFO mem_clients_normal), as Redis's allocator counts
 * them: a client that stopped half-way through a request, or one that does not read its replies,
 * makes maxmemory evict keys; what it held leaves used_memory when it goes.
 */
@CinnabarTest
class ClientBuffersInUsedMemoryIT {
    private static final int ARG = 1000, ARGS = 250;
    private Jedis jedis;

    @BeforeEach
    void keep(Jedis jedis) {
        this.jedis = jedis;
    }

    @AfterEach
    void reset() {
        jedis.configSet("maxmemory", "0");
        jedis.configSet("maxmemory-policy", "noeviction");
        jedis.flushAll();
    }

    @Test
    void argumentsOfAnUnfinishedRequestCountAndMakeKeysGo(CinnabarServer server, Jedis jedis) throws IOException,
            InterruptedException {
        for (int i = 0; i < 50; i++) jedis.setrange("k" + i, 10_000, "x");
        long limit = memory(jedis, "used_memory") + 100_000;
        jedis.configSet("maxmemory-policy", "allkeys-lru");
        jedis.configSet("maxmemory", String.valueOf(limit));
        try (Socket dead = connect(server)) {
            // All but the last of 250 arguments: nothing runs, the arguments read so far are held.
            OutputStream out = dead.getOutputStream();
            out.write(("*" + ARGS + "\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] arg = ("$" + ARG + "\r\n" + "x".repeat(ARG) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < ARGS - 1; i++) out.write(arg);
            out.flush();
            awaitClientMemory(jedis, (ARGS - 1) * ARG);
            assertTrue(Long.parseLong(field(jedis.info("stats"), "evicted_keys")) > 0);
            assertTrue(jedis.dbSize() < 50);
            assertTrue(memory(jedis, "used_memory") <= limit, "evicted down to the limit, the client counted");
        }
    }

    @Test
    void repliesAClientDoesNotReadCountUntilItGoes(CinnabarServer server, Jedis jedis) throws IOException,
            InterruptedException {
        jedis.setrange("big", 1_000_000, "x");
        long idle = memory(jedis, "mem_clients_normal");
        try (Socket reader = connect(server)) {
            reader.setReceiveBufferSize(4096);
            // Replies pile up in the server once the socket's buffers are full.
            send(reader, "GET big\r\n".repeat(20));
            long held = awaitClientMemory(jedis, idle + 5_000_000);
            assertTrue(memory(jedis, "used_memory") > held);
        }
        // The socket closed: its replies are dropped, and used memory says so from the next command on.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long clients;
        while ((clients = memory(jedis, "mem_clients_normal")) > idle + 100_000 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(clients <= idle + 100_000, "mem_clients_normal " + clients);
        assertTrue(field(jedis.memoryStats(), "clients.normal") <= idle + 100_000);
    }

    /** Waits for the bytes sent to arrive (the network's time, not the server's clock). */
    private static long awaitClientMemory(Jedis jedis, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long clients;
        while ((clients = memory(jedis, "mem_clients_normal")) < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(clients >= atLeast, "mem_clients_normal " + clients + " < " + atLeast);
        return clients;
    }

    private static long memory(Jedis jedis, String name) {
        return Long.parseLong(field(jedis.info("memory"), name));
    }

    private static long field(java.util.Map<String, Object> stats, String name) {
        return ((Number) stats.get(name)).longValue();
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        }
        throw new AssertionError(name + " not in " + info);
    }
}
