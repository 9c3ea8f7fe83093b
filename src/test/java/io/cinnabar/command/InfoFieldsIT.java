package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Every section and field Redis 7.0.15 prints in INFO everything (the list in
 * src/test/resources/info, taken from the real server) is in Cinnabar's, in the same section:
 * monitoring stacks such as redis_exporter read them by name.
 */
@CinnabarTest
class InfoFieldsIT {
    @Test
    void everyFieldOfRedis7015IsPrintedInItsSection(Jedis jedis) throws IOException {
        jedis.configSet("appendonly", "yes");
        try {
            Map<String, List<String>> ours = sections(jedis.info("everything"));
            Map<String, List<String>> redis = sections(redisFields());
            assertEquals(List.copyOf(redis.keySet()), List.copyOf(ours.keySet()), "sections and their order");
            List<String> missing = new ArrayList<>();
            for (Map.Entry<String, List<String>> e : redis.entrySet()) {
                for (String field : e.getValue()) {
                    if (!ours.get(e.getKey()).contains(field)) missing.add(e.getKey() + "/" + field);
                }
            }
            assertEquals(List.of(), missing);
        } finally {
            jedis.configSet("appendonly", "no");
        }
    }

    /** Redis prints the good replicas' count only while min-replicas-to-write (and its lag) are in force. */
    @Test
    void goodReplicasAreCountedWhileMinReplicasToWriteIsInForce(Jedis jedis) {
        assertFalse(jedis.info("replication").contains("min_slaves_good_slaves"));
        jedis.configSet("min-replicas-to-write", "2");
        try {
            assertTrue(jedis.info("replication").contains("\r\nconnected_slaves:0\r\nmin_slaves_good_slaves:0\r\n"));
            jedis.configSet("min-replicas-max-lag", "0");
            assertFalse(jedis.info("replication").contains("min_slaves_good_slaves"));
        } finally {
            jedis.configSet("min-replicas-to-write", "0");
            jedis.configSet("min-replicas-max-lag", "10");
        }
    }

    /** As Redis's: the error code's bytes as the client sent them, negative numbers as they are. */
    @Test
    void nonAsciiErrorCodesAndNegativeFiguresKeepTheirBytes(Jedis jedis) {
        jedis.configResetStat();
        byte[] code = "ÉRR".getBytes(StandardCharsets.UTF_8);
        // (Jedis decodes an error line a byte a char: its message is not the text sent.)
        org.junit.jupiter.api.Assertions.assertThrows(redis.clients.jedis.exceptions.JedisDataException.class,
                () -> jedis.eval("return {err='ÉRR boom'}"));
        byte[] info = (byte[]) jedis.sendCommand(redis.clients.jedis.Protocol.Command.INFO, "errorstats");
        String line = "errorstat_" + new String(code, StandardCharsets.ISO_8859_1) + ":count=1\r\n";
        assertTrue(new String(info, StandardCharsets.ISO_8859_1).contains(line), new String(info, StandardCharsets.ISO_8859_1));
        assertTrue(jedis.info("persistence").contains("\r\nrdb_current_bgsave_time_sec:-1\r\n"));
    }

    /** Counted as Redis counts them: the request bytes as read, before they run. */
    @Test
    void netInputBytesAreTheBytesClientsSent(Jedis jedis) {
        jedis.configResetStat();
        jedis.ping(); // *1 $4 PING: 14 bytes
        String stats = jedis.info("stats"); // *2 $4 INFO $5 stats: 25 bytes
        assertTrue(stats.contains("\r\ntotal_net_input_bytes:39\r\n"), stats);
    }

    /** The active cycle found every sampled key stale: the moving average moves 5% of the way. */
    @Test
    void activeExpiryReportsStalePercentAndItsTime(io.cinnabar.CinnabarServer server, Jedis jedis) throws InterruptedException {
        java.util.concurrent.atomic.AtomicLong ms = new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());
        server.clock(ms::get);
        try {
            jedis.flushAll();
            jedis.configResetStat();
            for (int i = 0; i < 50; i++) jedis.psetex("k" + i, 10, "v");
            ms.addAndGet(1000);
            long deadline = System.currentTimeMillis() + 10_000;
            while (jedis.dbSize() > 0 && System.currentTimeMillis() < deadline) Thread.sleep(20); // the cron's cycles
            assertEquals(0, jedis.dbSize());
            String stats = jedis.info("stats");
            assertTrue(stats.contains("\r\nexpired_keys:50\r\n"), stats);
            assertFalse(stats.contains("\r\nexpired_stale_perc:0.00\r\n"), stats);
        } finally {
            server.clock(System::currentTimeMillis);
        }
    }

    /**
     * The server runs in this JVM: INFO's CPU times and resident size are this process's, read
     * from /proc (through descriptors INFO keeps open, so the second reading must move too).
     */
    @Test
    void cpuTimesAndResidentSizeAreTheProcesss(Jedis jedis) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/statm")));
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        double lastUsed = -1;
        for (int i = 0; i < 2; i++) {
            double before = os.getProcessCpuTime() / 1e9;
            long rssBefore = rss();
            String info = jedis.info("everything");
            double after = os.getProcessCpuTime() / 1e9;
            long rssAfter = rss();
            double used = number(info, "used_cpu_user") + number(info, "used_cpu_sys");
            // stat counts 10 ms ticks and INFO keeps a reading for 10 ms; the JDK's figure is exact.
            assertTrue(used >= before - 0.05 && used <= after + 0.05, before + " <= " + used + " <= " + after);
            assertTrue(used >= lastUsed, "CPU time went back: " + lastUsed + " then " + used);
            lastUsed = used;
            double mainThread = number(info, "used_cpu_user_main_thread") + number(info, "used_cpu_sys_main_thread");
            assertTrue(mainThread >= 0 && mainThread <= used, mainThread + " of " + used);
            long reported = (long) number(info, "used_memory_rss");
            long slack = 16L << 20;
            assertTrue(reported >= Math.min(rssBefore, rssAfter) - slack && reported <= Math.max(rssBefore, rssAfter) + slack,
                    rssBefore + " / " + reported + " / " + rssAfter);
            assertEquals(Long.parseLong(java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo")).get(0)
                    .replaceAll("[^0-9]", "")) * 1024, (long) number(info, "total_system_memory"));
            // Burn CPU time for the second reading to see.
            long spin = System.nanoTime() + 50_000_000;
            while (System.nanoTime() < spin) Thread.onSpinWait();
        }
    }

    private static long rss() throws IOException {
        String statm = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/statm"));
        return Long.parseLong(statm.split(" ")[1]) * 4096;
    }

    private static double number(String info, String field) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(field + ":")) return Double.parseDouble(line.substring(field.length() + 1));
        }
        throw new AssertionError("no " + field + " in INFO");
    }

    private static String redisFields() throws IOException {
        try (InputStream in = InfoFieldsIT.class.getResourceAsStream("/info/redis-7.0.15-fields.txt")) {
            assertNotNull(in);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Section title to its field names, in order; lines starting with ';' are comments. */
    private static Map<String, List<String>> sections(String text) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : text.split("\r?\n")) {
            if (line.isEmpty() || line.startsWith(";")) continue;
            if (line.startsWith("# ")) {
                out.put(line.substring(2), current = new ArrayList<>());
            } else {
                int colon = line.indexOf(':');
                current.add(colon < 0 ? line : line.substring(0, colon));
            }
        }
        return out;
    }
}
