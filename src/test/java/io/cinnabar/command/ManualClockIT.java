package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server on a clock the test moves: what became due has happened when advance() returns
 * (expiry with its events, blocking timeouts, the end of a CLIENT PAUSE), nothing happens
 * before, and the times commands show follow the clock. Nothing here sleeps.
 */
@CinnabarTest(clock = ClockMode.MANUAL, options = {"enable-test-commands", "yes"})
class ManualClockIT {
    @Test
    void aOneHourTtlExpiresWhenTheClockPassesItWithTheExpiredEvent(Jedis jedis, HostAndPort at, ManualClock clock)
            throws IOException {
        jedis.configResetStat();
        jedis.configSet("notify-keyspace-events", "Ex");
        try (KeyspaceNotificationsIT.Subscriber s = new KeyspaceNotificationsIT.Subscriber(at)) {
            jedis.setex("session", 3600, "x");
            clock.advance(Duration.ofHours(1));
            // The marker is published after advance() returned: anything it expired came before it.
            // At its expiry's own millisecond the key still lives, as in Redis (now > when).
            assertEquals(List.of(), s.lines(jedis));
            clock.advance(Duration.ofMillis(1));
            assertEquals(List.of("__keyevent@0__:expired session"), s.lines(jedis));
            assertTrue(jedis.info("stats").contains("expired_keys:1\r"), "the active cycle, not an access, expired it");
        } finally {
            jedis.configSet("notify-keyspace-events", "");
        }
        assertFalse(jedis.exists("session"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BLPOP l 10", "BRPOPLPUSH l d 10", "BLMOVE l d LEFT RIGHT 10", "BZPOPMIN z 10",
            "BLMPOP 10 1 l LEFT", "XREAD BLOCK 10000 STREAMS s $"})
    void blockingCommandsTimeOutWhenTheClockPassesTheirDeadline(String command, Jedis jedis, HostAndPort at,
                                                                ManualClock clock) throws Exception {
        String[] words = command.split(" ");
        try (Jedis blocked = new Jedis(at)) {
            CompletableFuture<Object> reply = OwnThread.supply(() ->
                    cmd(blocked, words[0], java.util.Arrays.copyOfRange(words, 1, words.length)));
            waitBlocked(jedis, 1);
            clock.advance(Duration.ofMillis(10_000));
            // Redis times a client out once the clock is past its deadline (timeout < now).
            assertEquals(1, blockedClients(jedis), "not yet due");
            clock.advance(Duration.ofMillis(1));
            // The timeout was answered before advance() returned; only the reply's trip is left.
            assertEquals(0, blockedClients(jedis));
            assertNull(reply.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void clientPauseEndsWhenTheClockPassesItsEnd(Jedis jedis, HostAndPort at, ManualClock clock) throws Exception {
        cmd(jedis, "CLIENT", "PAUSE", "5000", "WRITE");
        try (Jedis writer = new Jedis(at)) {
            CompletableFuture<String> set = OwnThread.supply(() -> writer.set("k", "v"));
            waitBlocked(jedis, 1);
            clock.advance(Duration.ofMillis(5_000));
            // Redis unpauses once the clock is past the end (client_pause_end_time < mstime).
            assertEquals(1, blockedClients(jedis));
            clock.advance(Duration.ofMillis(1));
            assertEquals("OK", set.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void streamIdsTimeIdleTimesAndSlowlogFollowTheClock(Jedis jedis, HostAndPort at, ManualClock clock) {
        Instant t = Instant.parse("2031-05-06T07:08:09.123Z");
        clock.set(t);
        assertEquals(t.toEpochMilli() + "-0", cmd(jedis, "XADD", "s", "*", "f", "v"));
        assertEquals(List.of(Long.toString(t.getEpochSecond()), "123000"), cmd(jedis, "TIME"));
        jedis.set("k", "v");
        try (Jedis other = new Jedis(at)) {
            other.ping();
            clock.advance(Duration.ofSeconds(100));
            assertEquals(100L, jedis.objectIdletime("k"));
            String line = jedis.clientList().lines().filter(l -> l.contains(" cmd=ping")).findFirst().orElseThrow();
            assertTrue(line.contains(" age=100 idle=100 "), line);
        }
        jedis.configSet("slowlog-log-slower-than", "0");
        try {
            jedis.slowlogReset();
            jedis.ping();
            assertEquals(clock.millis() / 1000, jedis.slowlogGet(1).get(0).getTimeStamp());
        } finally {
            jedis.configSet("slowlog-log-slower-than", "10000");
        }
    }

    @Test
    void cinnabarClockReadsAndMovesTheSameClock(Jedis jedis, ManualClock clock) {
        assertEquals(clock.millis(), cmd(jedis, "CINNABAR", "CLOCK", "NOW"));
        long before = clock.millis();
        assertEquals(before + 1500, cmd(jedis, "CINNABAR", "clock", "advance", "1500"));
        assertEquals(before + 1500, clock.millis());
        assertEquals(1_000_000_000_000L, cmd(jedis, "CINNABAR", "CLOCK", "SET", "1000000000000"));
        assertEquals(1_000_000_000_000L, clock.millis());
        // What became due expired before the reply: the stats say so before any access.
        jedis.configResetStat();
        jedis.psetex("k", 100, "v");
        cmd(jedis, "CINNABAR", "CLOCK", "ADVANCE", "101");
        assertTrue(jedis.info("stats").contains("expired_keys:1\r"), jedis.info("stats"));
        assertEquals("ERR the clock only advances: ms must not be negative", error(() -> cmd(jedis, "CINNABAR", "CLOCK", "ADVANCE", "-1")));
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "CINNABAR", "CLOCK", "SET", "soon")));
        assertEquals("ERR wrong number of arguments for 'cinnabar|clock' command", error(() -> cmd(jedis, "CINNABAR", "CLOCK")));
        assertTrue(error(() -> cmd(jedis, "CINNABAR", "NOPE")).equals("ERR unknown subcommand or wrong number of arguments for 'NOPE'. Try CINNABAR HELP."));
    }

    @Test
    void anotherServerCanShareTheClock(CinnabarServer server, ManualClock clock) {
        try (CinnabarServer second = CinnabarServer.builder().port(0).clock(clock).build().start();
             Jedis a = new Jedis(server.host(), server.port()); Jedis b = new Jedis(second.host(), second.port())) {
            a.psetex("k", 1000, "v");
            b.psetex("k", 1000, "v");
            clock.advance(Duration.ofSeconds(1).plusMillis(1));
            assertTrue(a.info("stats").contains("expired_keys:1\r"));
            assertTrue(b.info("stats").contains("expired_keys:1\r"));
        }
    }

    static int blockedClients(Jedis jedis) {
        String info = jedis.info("clients");
        int i = info.indexOf("blocked_clients:") + "blocked_clients:".length();
        return Integer.parseInt(info.substring(i, info.indexOf('\r', i)));
    }

    /** Waits for the other client's command to reach the server: a network wait, not a wait for time. */
    static void waitBlocked(Jedis jedis, int n) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (blockedClients(jedis) == n) return;
            Thread.sleep(2);
        }
        throw new AssertionError("blocked_clients never reached " + n + ": " + jedis.info("clients"));
    }
}
