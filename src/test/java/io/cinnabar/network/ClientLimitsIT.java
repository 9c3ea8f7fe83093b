package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.junit.ClockMode;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;

import static io.cinnabar.network.RawSockets.connect;
import static io.cinnabar.network.RawSockets.line;
import static io.cinnabar.network.RawSockets.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** maxclients, timeout and the output buffer limit, seen from raw sockets. */
@CinnabarTest(clock = ClockMode.MANUAL, options = {"hz", "100"})
class ClientLimitsIT {
    @Test
    void idleClientsAreClosedButSubscribersAndBlockedClientsStay(CinnabarServer server, Jedis jedis, ManualClock clock)
            throws IOException {
        try (Socket idle = connect(server); Socket subscriber = connect(server); Socket blocked = connect(server)) {
            send(idle, "PING\r\n");
            assertEquals("+PONG", line(idle));
            send(subscriber, "SUBSCRIBE news\r\n");
            assertEquals("*3", line(subscriber));
            send(blocked, "BLPOP queue 0\r\n");
            jedis.configSet("timeout", "1");
            clock.advance(Duration.ofSeconds(2));
            // Idle for more than a whole second of the server's clock: closed by the cron, with no reply (so is jedis).
            assertEquals(-1, idle.getInputStream().read());
            try (Jedis fresh = new Jedis("127.0.0.1", server.port())) {
                fresh.configSet("timeout", "0");
                fresh.lpush("queue", "job");
                for (String expected : new String[] {"*2", "$5", "queue", "$3", "job"}) assertEquals(expected, line(blocked));
                assertEquals(1, fresh.publish("news", "hello"));
            }
        }
    }

    @Test
    void connectionsPastMaxclientsAreRefused(CinnabarServer server, Jedis jedis) throws IOException {
        jedis.ping();
        long rejected = rejectedConnections(jedis);
        jedis.configSet("maxclients", "1");
        try (Socket extra = connect(server)) {
            assertEquals("-ERR max number of clients reached", line(extra));
            assertEquals(-1, extra.getInputStream().read());
        } finally {
            jedis.configSet("maxclients", "10000");
        }
        assertEquals(rejected + 1, rejectedConnections(jedis));
    }

    @Test
    void requestsAfterAReplyPastTheOutputLimitDoNotRun(CinnabarServer server, Jedis jedis) throws IOException {
        jedis.set("big", "x".repeat(60_000));
        jedis.configSet("client-output-buffer-limit", "normal 100000 0 0");
        try (Socket client = connect(server)) {
            // The second reply passes the limit: as in Redis, the client goes at once, without
            // replies, and the SET after it never runs.
            send(client, "GET big\r\nGET big\r\nSET after 1\r\nGET big\r\n");
            assertEquals("", RawSockets.readToEof(client));
        } finally {
            jedis.configSet("client-output-buffer-limit", "normal 0 0 0");
        }
        assertFalse(jedis.exists("after"));
    }

    @Test
    void theFirstKilobyteOfRepliesIsNotCountedAgainstTheOutputLimit(CinnabarServer server, Jedis jedis) throws IOException {
        jedis.set("small", "x".repeat(1000));
        jedis.set("large", "x".repeat(3000));
        try (Socket client = connect(server)) {
            // As Redis's reply buffer (1 KB once idle), which its limit does not count: the
            // client that sets a tiny limit keeps getting short replies.
            send(client, "CONFIG SET client-output-buffer-limit \"normal 1 2 3\"\r\n");
            assertEquals("+OK", line(client));
            send(client, "PING\r\n");
            assertEquals("+PONG", line(client));
            send(client, "GET small\r\n");
            assertEquals("$1000", line(client));
            assertEquals("x".repeat(1000), line(client));
            send(client, "GET large\r\n");
            assertEquals("", RawSockets.readToEof(client));
        } finally {
            jedis.configSet("client-output-buffer-limit", "normal 0 0 0");
        }
    }

    @Test
    void repliesPastTheBufferCountAsTheNodeRedisAllocatesForThem(CinnabarServer server, Jedis jedis) throws IOException {
        // Redis puts what passes its reply buffer in a list node of at least 16 KB and counts the
        // node's allocation as jemalloc sizes it: a 3,000-byte GET counts 20,504 bytes, a
        // 40,000-byte one 40,984 (limits found by bisection against redis-server 7.0.15).
        jedis.set("v3k", "x".repeat(3000));
        jedis.set("v40k", "x".repeat(40_000));
        try {
            assertTrue(closedBy(server, jedis, 20_504, "v3k"));
            assertFalse(closedBy(server, jedis, 20_505, "v3k"));
            assertTrue(closedBy(server, jedis, 40_984, "v40k"));
            assertFalse(closedBy(server, jedis, 40_985, "v40k"));
        } finally {
            jedis.configSet("client-output-buffer-limit", "normal 0 0 0");
        }
    }

    @Test
    void pipelinedRepliesFillTheTailNodeBeforeANewOne(CinnabarServer server, Jedis jedis) throws IOException {
        // Three 30,000-byte GETs at once: Redis's nodes of 32,752, 28,656 and 28,656 bytes, 90,184
        // with their list nodes; five of 5,000 bytes fill two 16 KB nodes, 41,008 (redis-server 7.0.15).
        jedis.set("v30k", "x".repeat(30_000));
        jedis.set("v5k", "x".repeat(5000));
        try {
            assertTrue(closedBy(server, jedis, 90_184, "v30k", 3));
            assertFalse(closedBy(server, jedis, 90_185, "v30k", 3));
            assertTrue(closedBy(server, jedis, 41_008, "v5k", 5));
            assertFalse(closedBy(server, jedis, 41_009, "v5k", 5));
        } finally {
            jedis.configSet("client-output-buffer-limit", "normal 0 0 0");
        }
    }

    /** Whether a GET of key closes a new client under a hard limit for normal clients. */
    private static boolean closedBy(CinnabarServer server, Jedis jedis, long hardLimit, String key) throws IOException {
        return closedBy(server, jedis, hardLimit, key, 1);
    }

    /** Whether gets pipelined GETs of key close a new client under a hard limit for normal clients. */
    private static boolean closedBy(CinnabarServer server, Jedis jedis, long hardLimit, String key, int gets) throws IOException {
        jedis.configSet("client-output-buffer-limit", "normal " + hardLimit + " 0 0");
        try (Socket client = connect(server)) {
            // Answered, the GETs' replies and QUIT's come before the close; refused, nothing does.
            send(client, ("GET " + key + "\r\n").repeat(gets) + "QUIT\r\n");
            return RawSockets.readToEof(client).isEmpty();
        }
    }

    private static long rejectedConnections(Jedis jedis) {
        for (String l : jedis.info("stats").split("\r\n")) {
            if (l.startsWith("rejected_connections:")) return Long.parseLong(l.substring(l.indexOf(':') + 1));
        }
        throw new AssertionError("no rejected_connections");
    }
}
