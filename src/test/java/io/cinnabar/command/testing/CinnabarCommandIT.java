package io.cinnabar.command.testing;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CINNABAR exists only with enable-test-commands yes; its CLOCK moves only a manual clock. */
class CinnabarCommandIT {
    private static Object cmd(Jedis j, String... words) {
        Object reply = j.sendCommand(() -> SafeEncoder.encode(words[0]), Arrays.copyOfRange(words, 1, words.length));
        return reply instanceof byte[] ? SafeEncoder.encode((byte[]) reply) : reply;
    }

    private static String error(Jedis j, String... words) {
        return assertThrows(JedisDataException.class, () -> cmd(j, words)).getMessage();
    }

    @Test
    void withoutTestCommandsCinnabarIsUnknownAndUnlisted() {
        try (CinnabarServer off = CinnabarServer.builder().port(0).build().start();
             CinnabarServer on = CinnabarServer.builder().port(0).option("enable-test-commands", "yes").build().start();
             Jedis j = new Jedis(off.host(), off.port()); Jedis k = new Jedis(on.host(), on.port())) {
            assertEquals("ERR unknown command 'CINNABAR', with args beginning with: 'CLOCK' 'NOW' ", error(j, "CINNABAR", "CLOCK", "NOW"));
            assertEquals(j.commandCount() + 1, k.commandCount());
            assertFalse(j.commandList().contains("cinnabar"));
            assertTrue(k.commandList().contains("cinnabar"));
            assertEquals(Arrays.asList((Object) null), j.sendCommand(() -> SafeEncoder.encode("COMMAND"), "INFO", "cinnabar"));
            // Both options are fixed at start-up, and hidden from CONFIG GET * like Redis's testing knobs.
            assertTrue(error(k, "CONFIG", "SET", "enable-test-commands", "no").contains("can't set immutable config"));
            assertTrue(error(k, "CONFIG", "SET", "clock", "manual").contains("can't set immutable config"));
            assertEquals(List.of("clock", "system"), k.configGet("clock").entrySet().stream()
                    .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toList());
            assertFalse(k.configGet("*").containsKey("clock"));
        }
    }

    @Test
    void theSystemClockIsReadButNotMoved() {
        try (CinnabarServer on = CinnabarServer.builder().port(0).option("enable-test-commands", "yes").build().start();
             Jedis k = new Jedis(on.host(), on.port())) {
            long now = (Long) cmd(k, "CINNABAR", "CLOCK", "NOW");
            assertTrue(Math.abs(now - System.currentTimeMillis()) < 60_000, "system time: " + now);
            assertEquals(ClockSubcommand.NOT_MANUAL, error(k, "CINNABAR", "CLOCK", "ADVANCE", "1"));
            assertEquals(ClockSubcommand.NOT_MANUAL, error(k, "CINNABAR", "CLOCK", "SET", "1"));
            assertEquals("ERR unknown CLOCK subcommand 'BACK'. Use NOW, ADVANCE <ms> or SET <unix-ms>.",
                    error(k, "CINNABAR", "CLOCK", "BACK"));
        }
    }

    /** clock manual from the configuration alone (as redis-server arguments give it): the server makes the clock. */
    @Test
    void clockManualMakesAClockThatStandsStill() {
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("enable-test-commands", "yes")
                .option("clock", "manual").build().start();
             Jedis k = new Jedis(s.host(), s.port())) {
            long t = (Long) cmd(k, "CINNABAR", "CLOCK", "NOW");
            k.psetex("k", 50, "v");
            assertEquals(t, cmd(k, "CINNABAR", "CLOCK", "NOW"));
            assertEquals(t, s.clock().millis());
            assertEquals(50L, k.pttl("k"));
            assertEquals(t + 50, cmd(k, "CINNABAR", "CLOCK", "ADVANCE", "50"));
            assertEquals(0L, k.pttl("k"));
            assertEquals(t + 51, cmd(k, "CINNABAR", "CLOCK", "ADVANCE", "1"));
            assertFalse(k.exists("k"));
        }
    }
}
