package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.network.RawSockets.connect;
import static io.cinnabar.network.RawSockets.readToEof;
import static io.cinnabar.network.RawSockets.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** maxmemory-clients: the largest clients go once all together pass it, except CLIENT NO-EVICT ones. */
@CinnabarTest
class ClientEvictionIT {
    private static final int LIMIT = 1024 * 1024;

    @Test
    void aClientWhoseUnfinishedRequestPassesTheLimitIsClosed(CinnabarServer server, Jedis control) throws IOException {
        control.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "NO-EVICT", "on");
        long evicted = evicted(control);
        control.configSet("maxmemory-clients", String.valueOf(LIMIT));
        try (Socket small = connect(server); Socket big = connect(server)) {
            send(small, "CLIENT SETNAME small\r\n");
            assertEquals('+', small.getInputStream().read());
            partialBulk(big, LIMIT + 1);
            // Closed without a reply as soon as its input is counted.
            assertEquals("", readToEof(big));
            assertEquals(evicted + 1, evicted(control));
            assertTrue(control.clientList().contains("name=small"));
        } finally {
            control.configSet("maxmemory-clients", "0"); // by a no-evict client: nobody else may be evicted for it
        }
    }

    @Test
    void noEvictClientsStayAndShowWhatTheyCost(CinnabarServer server, Jedis control) throws IOException, InterruptedException {
        control.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "NO-EVICT", "on");
        long evicted = evicted(control);
        control.configSet("maxmemory-clients", String.valueOf(LIMIT));
        try (Socket kept = connect(server)) {
            send(kept, "CLIENT NO-EVICT on\r\nCLIENT SETNAME kept\r\n");
            byte[] ok = new byte[10];
            assertEquals(10, kept.getInputStream().readNBytes(ok, 0, 10));
            partialBulk(kept, LIMIT + 1);
            // The last bytes may still be in flight on a loaded machine: wait for them, not for a count of polls.
            long totMem = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((totMem = field(control.clientList(), "kept", "tot-mem")) <= LIMIT && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(totMem > LIMIT, "tot-mem " + totMem);
            String list = control.clientList();
            assertTrue(list.contains("name=kept") && list.contains("flags=e"), list);
            assertEquals(evicted, evicted(control));
        } finally {
            control.configSet("maxmemory-clients", "0");
        }
    }

    @Test
    void aBigBulkCostsItsWholeLengthOnceItStartsArriving(CinnabarServer server, Jedis control) throws IOException, InterruptedException {
        // Redis sizes its query buffer to a big bulk's declared length at once and counts all of
        // it in tot-mem (its test "evict clients in right order" relies on that).
        try (Socket uploading = connect(server)) {
            send(uploading, "CLIENT SETNAME uploading\r\n");
            assertEquals('+', uploading.getInputStream().read());
            OutputStream out = uploading.getOutputStream();
            out.write("*2\r\n$3\r\nSET\r\n$500000\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[100_000]);
            out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (field(control.clientList(), "uploading", "qbuf") < 100_000 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(100_000, field(control.clientList(), "uploading", "qbuf"));
            long totMem = field(control.clientList(), "uploading", "tot-mem");
            assertTrue(totMem >= 500_000 && totMem < 600_000, "tot-mem " + totMem);
        }
    }

    @Test
    void aLimitUnder128KbCountsAs128Kb(Jedis jedis) {
        // Found by diff-fuzz --families config, seed 61: CONFIG SET MAXMEMORY-CLIENTS 1 closed the
        // connection that set it; Redis (getClientEvictionLimit) never goes under 128 KB.
        long evicted = evicted(jedis);
        try {
            assertEquals("OK", jedis.configSet("maxmemory-clients", "1"));
            assertEquals("PONG", jedis.ping());
            assertEquals("OK", jedis.configSet("maxmemory-clients", "10%")); // of no maxmemory: no limit
            assertEquals("PONG", jedis.ping());
            assertEquals(evicted, evicted(jedis));
        } finally {
            jedis.configSet("maxmemory-clients", "0");
        }
    }

    /** A one-argument request header and n bytes of a bulk whose end has not come yet. */
    private static void partialBulk(Socket s, int n) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("*1\r\n$" + n + "\r\n").getBytes(StandardCharsets.US_ASCII));
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'v');
        try {
            for (int left = n; left > 0; left -= chunk.length) out.write(chunk, 0, Math.min(chunk.length, left));
            out.flush();
        } catch (IOException closedMeanwhile) {
            // the server may close the socket before the last bytes are written
        }
    }

    private static long evicted(Jedis control) {
        String stats = control.info("stats");
        int at = stats.indexOf("evicted_clients:") + "evicted_clients:".length();
        return Long.parseLong(stats.substring(at, stats.indexOf('\r', at)));
    }

    private static long field(String clientList, String name, String field) {
        for (String line : clientList.split("\n")) {
            if (!line.contains("name=" + name + " ")) continue;
            for (String kv : line.trim().split(" ")) {
                if (kv.startsWith(field + "=")) return Long.parseLong(kv.substring(field.length() + 1));
            }
        }
        return -1;
    }
}
