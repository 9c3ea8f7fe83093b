package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LATENCY and INFO latencystats through Jedis; shapes and texts are Redis 7.0.15's. A slow
 * command is DEBUG SLEEP (tens of milliseconds); the samples are dated by the server's driven clock.
 */
@CinnabarTest(options = {"enable-debug-command", "yes"})
class LatencyIT {
    private static Object latency(Jedis jedis, String... args) {
        return jedis.sendCommand(Protocol.Command.LATENCY, args);
    }

    private static void debugSleep(Jedis jedis, String seconds) {
        jedis.sendCommand(() -> SafeEncoder.encode("DEBUG"), "SLEEP", seconds);
    }

    private static Object decoded(Object reply) {
        return SafeEncoder.encodeObject(reply);
    }

    @Test
    void slowCommandsBecomeOneSamplePerSecondDatedByTheServerClock(CinnabarServer server, Jedis jedis) {
        AtomicLong ms = new AtomicLong(1_800_000_000_000L);
        server.clock(ms::get);
        try {
            latency(jedis, "RESET");
            jedis.configSet("latency-monitor-threshold", "20");
            debugSleep(jedis, "0.03");
            debugSleep(jedis, "0.021"); // same second: the worse one stays
            ms.addAndGet(2_000);
            debugSleep(jedis, "0.025");
            jedis.ping(); // under the threshold: no sample

            List<?> history = (List<?>) decoded(latency(jedis, "HISTORY", "command"));
            assertEquals(2, history.size());
            List<?> first = (List<?>) history.get(0), second = (List<?>) history.get(1);
            assertEquals(1_800_000_000L, first.get(0));
            assertTrue((Long) first.get(1) >= 30, first.toString());
            assertEquals(1_800_000_002L, second.get(0));
            assertEquals(List.of(), decoded(latency(jedis, "HISTORY", "fast-command")));

            List<?> latest = (List<?>) decoded(latency(jedis, "LATEST"));
            assertEquals(1, latest.size());
            List<?> event = (List<?>) latest.get(0);
            assertEquals("command", event.get(0));
            assertEquals(1_800_000_002L, event.get(1));
            assertEquals(first.get(1), event.get(3), "the all-time maximum");

            String graph = (String) decoded(latency(jedis, "GRAPH", "command"));
            assertTrue(graph.startsWith("command - high " + first.get(1) + " ms, low " + second.get(1) + " ms (all time high "), graph);
            assertTrue(graph.contains("-".repeat(80) + "\n"), graph);
            JedisDataException e = assertThrows(JedisDataException.class, () -> latency(jedis, "GRAPH", "nope"));
            assertEquals("ERR No samples available for event 'nope'", e.getMessage());

            String doctor = (String) decoded(latency(jedis, "DOCTOR"));
            assertTrue(doctor.startsWith("Dave, I have observed latency spikes in this Redis instance."), doctor);
            assertTrue(doctor.contains("\n1. command: 2 latency spikes (average "), doctor);
            assertTrue(doctor.contains("- Check your Slow Log to understand"), doctor);

            assertEquals(0L, latency(jedis, "RESET", "nope"));
            assertEquals(1L, latency(jedis, "RESET", "COMMAND", "command"));
            assertEquals(List.of(), decoded(latency(jedis, "LATEST")));
        } finally {
            jedis.configSet("latency-monitor-threshold", "0");
            server.clock(System::currentTimeMillis);
        }
    }

    @Test
    void doctorSaysWhenMonitoringIsOff(Jedis jedis) {
        latency(jedis, "RESET");
        jedis.configSet("latency-monitor-threshold", "0");
        assertTrue(((String) decoded(latency(jedis, "DOCTOR"))).startsWith("I'm sorry, Dave, I can't do that."));
        JedisDataException e = assertThrows(JedisDataException.class, () -> latency(jedis, "HELP", "x"));
        assertEquals("ERR wrong number of arguments for 'latency|help' command", e.getMessage());
        List<?> help = (List<?>) decoded(latency(jedis, "HELP"));
        assertEquals("LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", help.get(0));
    }

    @Test
    void histogramCountsCallsPerCommandAndSubcommand(Jedis jedis) {
        jedis.configResetStat();
        jedis.set("a", "b");
        jedis.set("c", "d");
        jedis.clientId();
        List<?> all = (List<?>) decoded(latency(jedis, "HISTOGRAM"));
        assertTrue(all.contains("set") && all.contains("client|id") && all.contains("config|resetstat"), all.toString());

        List<?> set = (List<?>) decoded(latency(jedis, "HISTOGRAM", "set", "nosuchcommand", "get"));
        assertEquals(2, set.size(), "GET was not called, an unknown name is skipped");
        assertEquals("set", set.get(0));
        List<?> body = (List<?>) set.get(1);
        assertEquals(List.of("calls", 2L, "histogram_usec"), body.subList(0, 3));
        List<?> steps = (List<?>) body.get(3);
        assertEquals(2L, steps.get(steps.size() - 1), "the last step counts every call");

        List<?> client = (List<?>) decoded(latency(jedis, "HISTOGRAM", "client"));
        assertEquals("client|id", client.get(0));
    }

    /** A blocked command is recorded once, when it is served (Redis's updateStatsOnUnblock). */
    @Test
    void aBlockedCommandCountsOnceWhenServed(Jedis jedis, Jedis other) throws Exception {
        jedis.configResetStat();
        java.util.concurrent.Future<List<String>> popped = java.util.concurrent.Executors.newSingleThreadExecutor()
                .submit(() -> other.blpop(0, "list"));
        long deadline = System.currentTimeMillis() + 10_000;
        while (!jedis.info("clients").contains("blocked_clients:1") && System.currentTimeMillis() < deadline) Thread.sleep(10);
        assertEquals(List.of(), decoded(latency(jedis, "HISTOGRAM", "blpop")), "not while it waits");
        jedis.rpush("list", "x");
        assertEquals(List.of("list", "x"), popped.get());
        List<?> blpop = (List<?>) decoded(latency(jedis, "HISTOGRAM", "blpop"));
        assertEquals(List.of("calls", 1L, "histogram_usec"), ((List<?>) blpop.get(1)).subList(0, 3));
    }

    @Test
    void infoLatencystatsPrintsTheConfiguredPercentilesWhileTrackingIsOn(Jedis jedis) {
        try {
            jedis.configResetStat();
            jedis.set("a", "b");
            assertTrue(jedis.info("latencystats").matches("(?s)# Latencystats\r\n.*latency_percentiles_usec_set:p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},p99\\.9=\\d+\\.\\d{3}\r\n.*"));
            jedis.configSet("latency-tracking-info-percentiles", "0.0 50.0 100.0");
            assertTrue(jedis.info("latencystats").contains("latency_percentiles_usec_set:p0="), jedis.info("latencystats"));
            assertTrue(jedis.info("latencystats").contains(",p100="));
            jedis.configSet("latency-tracking", "no");
            assertEquals("# Latencystats\r\n", jedis.info("latencystats"));
            jedis.configSet("latency-tracking", "yes");
            jedis.configResetStat();
            jedis.get("a");
            assertFalse(jedis.info("latencystats").contains("usec_set:"), "CONFIG RESETSTAT forgets the histograms");
        } finally {
            jedis.configSet("latency-tracking", "yes", "latency-tracking-info-percentiles", "50 99 99.9");
        }
    }
}
