package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;
import java.util.Map;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class ConfigCommandsIT {
    @Test
    void getWithPatternsAndSeveralArgs(Jedis jedis) {
        Map<String, String> hz = jedis.configGet("hz");
        assertEquals(Map.of("hz", "10"), hz);
        Map<String, String> several = jedis.configGet("hz", "maxmemory-p*", "nosuch");
        assertEquals("10", several.get("hz"));
        assertEquals("noeviction", several.get("maxmemory-policy"));
        assertEquals(2, several.size());
        assertTrue(jedis.configGet("*").size() > 20);
    }

    @Test
    void oomScoreAdjSetsTheProcessScoreForItsClass(Jedis jedis) throws Exception {
        // The embedded server's process is this JVM.
        java.nio.file.Path file = java.nio.file.Path.of("/proc/self/oom_score_adj");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isWritable(file));
        java.util.function.IntSupplier score = () -> {
            try {
                return Integer.parseInt(java.nio.file.Files.readString(file).trim());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        int base = score.getAsInt();
        try {
            assertEquals("OK", jedis.configSet("oom-score-adj-values", "10 20 30", "oom-score-adj", "yes"));
            assertEquals(base + 10, score.getAsInt());
            assertEquals("OK", jedis.replicaof("localhost", 1));
            assertEquals(base + 20, score.getAsInt());
            assertEquals("OK", jedis.replicaofNoOne());
            assertEquals(base + 10, score.getAsInt());
            assertEquals("OK", jedis.configSet("oom-score-adj", "absolute"));
            assertEquals(10, score.getAsInt());
            assertEquals("OK", jedis.configSet("oom-score-adj", "no"));
            assertEquals(base, score.getAsInt());
            // Off, a change of the values leaves the file alone.
            assertEquals("OK", jedis.configSet("oom-score-adj-values", "5 5 5"));
            assertEquals(base, score.getAsInt());
        } finally {
            jedis.configSet("oom-score-adj", "no", "oom-score-adj-values", "0 200 800");
            jedis.replicaofNoOne();
        }
    }

    @Test
    void setSeveralPairsAtomically(Jedis jedis) {
        assertEquals("OK", jedis.configSet("hz", "20", "maxmemory", "10mb"));
        assertEquals("20", jedis.configGet("hz").get("hz"));
        assertEquals("10485760", jedis.configGet("maxmemory").get("maxmemory"));
        JedisDataException e = assertThrows(JedisDataException.class,
                () -> jedis.configSet("hz", "30", "maxmemory", "lots"));
        assertTrue(e.getMessage().startsWith("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - "),
                e.getMessage());
        assertEquals("20", jedis.configGet("hz").get("hz"));
        jedis.configSet("hz", "10", "maxmemory", "0");
    }

    @Test
    void setErrors(Jedis jedis) {
        assertError(jedis, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                "CONFIG", "SET", "nosuch", "1");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter",
                "CONFIG", "SET", "hz", "10", "hz", "11");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config",
                "CONFIG", "SET", "daemonize", "yes");
        assertError(jedis, "ERR wrong number of arguments for 'config|set' command", "CONFIG", "SET", "hz");
        // A name without its value past the first pair: Redis's syntax error (found by diff-fuzz --families config, seed 1).
        assertError(jedis, "ERR syntax error", "CONFIG", "SET", "hz", "1", "maxmemory");
        assertError(jedis, "ERR wrong number of arguments for 'config|get' command", "CONFIG", "GET");
        assertError(jedis, "ERR unknown subcommand 'nope'. Try CONFIG HELP.", "CONFIG", "nope");
    }

    @Test
    void valuesReadAsCStringsAndUnknownNamesEndAtANulByte(Jedis jedis) {
        // memtoull reads a C string and the unknown name is quoted with %s (found by hand after
        // diff-fuzz seed 211's ACL CAT, comparing with redis-server 7.0.15).
        assertError(jedis, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                "CONFIG", "SET", "nosuch\0x", "1");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "proto-max-bulk-len", "2mb\0x", "maxmemory-clients", "1kb\0%"));
        assertEquals("2097152", jedis.configGet("proto-max-bulk-len").get("proto-max-bulk-len"));
        assertEquals("1024", jedis.configGet("maxmemory-clients").get("maxmemory-clients"));
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value",
                "CONFIG", "SET", "maxmemory-clients", "10%\0");
        jedis.configSet("proto-max-bulk-len", "512mb", "maxmemory-clients", "0");
        // yes/no and enum names are matched with strcasecmp, event classes read up to the NUL.
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "activerehashing", "no\0x", "loglevel", "Warning\0x",
                "notify-keyspace-events", "KEA\0z"));
        assertEquals("no", jedis.configGet("activerehashing").get("activerehashing"));
        assertEquals("warning", jedis.configGet("loglevel").get("loglevel"));
        assertEquals("AKE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        jedis.configSet("activerehashing", "yes", "loglevel", "notice", "notify-keyspace-events", "");
        // save: each word through strtoll, "" by strcasecmp.
        String save = jedis.configGet("save").get("save");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "save", "100 1\0 200 2"));
        assertEquals("100 1 200 2", jedis.configGet("save").get("save"));
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "save", "\0x"));
        assertEquals("", jedis.configGet("save").get("save"));
        jedis.configSet("save", save);
    }

    @Test
    void valueErrorsNameTheEntryFoundNotTheCaseGiven(Jedis jedis) {
        // Found by diff-fuzz --families config, seed 1: CONFIG SET ACTIVEREHASHING 1 named 'ACTIVEREHASHING'.
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'activerehashing') - argument must be 'yes' or 'no'",
                "CONFIG", "SET", "ACTIVEREHASHING", "1");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - argument couldn't be parsed into an integer",
                "CONFIG", "SET", "HASH-MAX-ZIPLIST-ENTRIES", "abc");
        // Redis keeps an alias as an entry of its own: an option set by both names in one call is no duplicate.
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "hash-max-ziplist-entries", "7", "hash-max-listpack-entries", "9"));
        assertEquals("9", jedis.configGet("hash-max-listpack-entries").get("hash-max-listpack-entries"));
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'Hash-Max-ZIPLIST-entries') - duplicate parameter",
                "CONFIG", "SET", "HASH-MAX-ZIPLIST-ENTRIES", "1", "Hash-Max-ZIPLIST-entries", "2");
        cmd(jedis, "CONFIG", "SET", "hash-max-listpack-entries", "512");
    }

    @Test
    void getAnswersAnExactNameAsItWasSpelt(Jedis jedis) {
        // Found by diff-fuzz --families config, seed 1: CONFIG GET HZ answered "hz".
        assertEquals(List.of("HZ", "10"), cmd(jedis, "CONFIG", "GET", "HZ"));
        assertEquals(List.of("HZ", "10"), cmd(jedis, "CONFIG", "GET", "HZ", "hz", "Hz"));
        assertEquals(List.of("hz", "10"), cmd(jedis, "CONFIG", "GET", "h?", "HZ"));
    }

    @Test
    void memoryValuesAndEnumListsAsRedisParsesThem(Jedis jedis) {
        // Found by diff-fuzz --families config, seed 1 (memtoull: no sign, digits then a unit).
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-value') - argument must be a memory value",
                "CONFIG", "SET", "hash-max-listpack-value", "abc");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value",
                "CONFIG", "SET", "maxmemory", "-1");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'stream-node-max-bytes') - argument must be a memory value",
                "CONFIG", "SET", "stream-node-max-bytes", "+1");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "zset-max-listpack-value", "1KB"));
        assertEquals(List.of("zset-max-listpack-value", "1024"), cmd(jedis, "CONFIG", "GET", "zset-max-listpack-value"));
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "zset-max-listpack-value", "", "stream-node-max-bytes", "kb"));
        assertEquals(List.of("zset-max-listpack-value", "0"), cmd(jedis, "CONFIG", "GET", "zset-max-listpack-value"));
        cmd(jedis, "CONFIG", "SET", "zset-max-listpack-value", "64", "stream-node-max-bytes", "4096");
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no",
                "CONFIG", "SET", "APPENDFSYNC", "1");
        // "relative" is a synonym of "yes" in Redis's table, shown by its first name (diff-fuzz --families config, seed 1).
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "oom-score-adj", "relative"));
        assertEquals(List.of("oom-score-adj", "yes"), cmd(jedis, "CONFIG", "GET", "oom-score-adj"));
        cmd(jedis, "CONFIG", "SET", "oom-score-adj", "no");
    }

    @Test
    void shutdownFlagsSaveAndNosaveExclusive(Jedis jedis) {
        // isValidShutdownOnSigFlags's text (found by hand beside redis-server 7.0.15).
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - "
                + "shutdown options SAVE and NOSAVE can't be used simultaneously",
                "CONFIG", "SET", "shutdown-on-sigterm", "save nosave");
        assertEquals(List.of("shutdown-on-sigterm", "default"), cmd(jedis, "CONFIG", "GET", "shutdown-on-sigterm"));
    }

    @Test
    void valuesParsedAndBoundedAsRedis70(Jedis jedis) {
        // Found by a CONFIG SET sweep of every parameter beside real Redis (after diff-fuzz --families config).
        String failed = "ERR CONFIG SET failed (possibly related to argument '%s') - %s";
        assertError(jedis, String.format(failed, "rdbchecksum", "can't set immutable config"), "CONFIG", "SET", "rdbchecksum", "no");
        assertError(jedis, String.format(failed, "maxclients", "argument must be between 1 and 4294967295 inclusive"),
                "CONFIG", "SET", "maxclients", "0");
        for (String notInteger : new String[] {"-0", "+1", "01"}) {
            assertError(jedis, String.format(failed, "hz", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "hz", notInteger);
        }
        // memtoull's unsigned result: past 2^63 a range error, or a value of an unsigned option.
        assertError(jedis, String.format(failed, "hash-max-listpack-value", "argument must be between 0 and 9223372036854775807 inclusive"),
                "CONFIG", "SET", "hash-max-listpack-value", "9223372036854775808");
        assertError(jedis, String.format(failed, "maxmemory-clients", "percentage argument must be less or equal to 100"),
                "CONFIG", "SET", "maxmemory-clients", "9223372036854775808");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "cluster-link-sendbuf-limit", "18446744073709551615"));
        assertEquals(List.of("cluster-link-sendbuf-limit", "18446744073709551615"), cmd(jedis, "CONFIG", "GET", "cluster-link-sendbuf-limit"));
        cmd(jedis, "CONFIG", "SET", "cluster-link-sendbuf-limit", "0");
        // Redis raises a backlog under 16 KB to 16 KB.
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "repl-backlog-size", "1k"));
        assertEquals(List.of("repl-backlog-size", "16384"), cmd(jedis, "CONFIG", "GET", "repl-backlog-size"));
        cmd(jedis, "CONFIG", "SET", "repl-backlog-size", "1mb");
        // Multi-word values split at each single space; client classes not named keep their limits.
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 1mb 1"));
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "client-output-buffer-limit", "normal 2mb 2mb 2"));
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "client-output-buffer-limit", ""));
        assertEquals(List.of("client-output-buffer-limit", "normal 2097152 2097152 2 slave 268435456 67108864 60 pubsub 1048576 1048576 1"),
                cmd(jedis, "CONFIG", "GET", "client-output-buffer-limit"));
        cmd(jedis, "CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 pubsub 32mb 8mb 60");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "oom-score-adj-values", "1  2"));
        assertEquals(List.of("oom-score-adj-values", "1 0 2"), cmd(jedis, "CONFIG", "GET", "oom-score-adj-values"));
        cmd(jedis, "CONFIG", "SET", "oom-score-adj-values", "0 200 800");
        assertError(jedis, String.format(failed, "latency-tracking-info-percentiles", "Invalid latency-tracking-info-percentiles parameters"),
                "CONFIG", "SET", "latency-tracking-info-percentiles", " 1");
        assertEquals("OK", cmd(jedis, "CONFIG", "SET", "latency-tracking-info-percentiles", "0x10 -0"));
        assertEquals(List.of("latency-tracking-info-percentiles", "16 -0"), cmd(jedis, "CONFIG", "GET", "latency-tracking-info-percentiles"));
        cmd(jedis, "CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9");
        assertError(jedis, String.format(failed, "proc-title-template", "template format is invalid or contains unknown variables"),
                "CONFIG", "SET", "proc-title-template", " ");
    }

    @Test
    void maxclientsTheOpenFilesLimitCannotHoldIsRefused(Jedis jedis) {
        // As redis-server 7.0.15 where it cannot raise the limit; HotSpot raised the soft limit to
        // the hard one at start, and Redis keeps 32 descriptors for itself.
        assertError(jedis, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not "
                + "able to handle the specified number of clients, try with " + (openFilesLimit() - 32),
                "CONFIG", "SET", "maxclients", "4294967295");
        assertEquals("10000", jedis.configGet("maxclients").get("maxclients"));
    }

    private static long openFilesLimit() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) return Long.parseLong(line.substring(14).trim().split("\\s+")[0]);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new IllegalStateException("no open files limit");
    }

    @Test
    void resetstatAndRewriteWithoutFile(Jedis jedis) {
        jedis.set("a", "b");
        assertEquals("OK", jedis.configResetStat());
        assertTrue(jedis.info("stats").contains("\r\ntotal_commands_processed:1\r\n"));
        assertError(jedis, "ERR The server is running without a config file", "CONFIG", "REWRITE");
        assertEquals("CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                ((List<?>) cmd(jedis, "CONFIG", "HELP")).get(0));
    }

    private static void assertError(Jedis jedis, String expected, String name, String... args) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, name, args));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void setPortListensThereAndKeepsConnectedClients() throws Exception {
        try (io.cinnabar.CinnabarServer s = io.cinnabar.CinnabarServer.builder().port(0).build().start();
             Jedis before = new Jedis(s.host(), s.port())) {
            int old = s.port();
            int next = io.cinnabar.persistence.LocalServers.freePort();
            assertEquals("OK", before.configSet("port", String.valueOf(next)));
            assertEquals(next, s.port());
            assertEquals("PONG", before.ping(), "a client connected before still is");
            try (Jedis after = new Jedis(s.host(), next)) {
                assertEquals(String.valueOf(next), after.configGet("port").get("port"));
                assertTrue(after.info("server").contains("tcp_port:" + next));
            }
            assertThrows(java.net.ConnectException.class, () -> new java.net.Socket(s.host(), old).close());
            // Same value: nothing to do. Other addresses on the same port: the listener moves.
            assertEquals("OK", before.configSet("port", String.valueOf(next)));
            assertEquals("OK", before.configSet("bind", "127.0.0.1"));
            try (Jedis after = new Jedis("127.0.0.1", next)) {
                assertEquals("PONG", after.ping());
            }
        }
    }

    @Test
    void setPortToABusyPortUndoesTheWholeConfigSet() throws Exception {
        try (io.cinnabar.CinnabarServer s = io.cinnabar.CinnabarServer.builder().port(0).build().start();
             Jedis j = new Jedis(s.host(), s.port());
             java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            int port = s.port();
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.configSet(
                    "maxmemory", "10000001", "port", String.valueOf(taken.getLocalPort()), "client-query-buffer-limit", "10mb"));
            assertEquals("ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
                    e.getMessage());
            assertEquals("0", j.configGet("maxmemory").get("maxmemory"));
            assertEquals("0", j.configGet("port").get("port"));
            assertEquals("1073741824", j.configGet("client-query-buffer-limit").get("client-query-buffer-limit"));
            assertEquals(port, s.port());
            try (Jedis again = new Jedis(s.host(), port)) {
                assertEquals("PONG", again.ping(), "still listening where it was");
            }
        }
    }
}
