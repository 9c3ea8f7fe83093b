package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest(options = {"enable-debug-command", "yes"})
class ServerCommandsIT {
    @Test
    void defaultInfoHasDefaultSectionsOnly(Jedis jedis) {
        String info = jedis.info();
        assertTrue(info.startsWith("# Server\r\nredis_version:7.0.15\r\n"), info);
        for (String s : new String[] {"# Clients", "# Memory", "# Persistence", "# Stats", "# Replication",
                "# CPU", "# Modules", "# Errorstats", "# Cluster", "# Keyspace"}) {
            assertTrue(info.contains("\r\n\r\n" + s + "\r\n"), s);
        }
        assertFalse(info.contains("# Commandstats"));
        assertTrue(info.contains("\r\ncinnabar_version:" + io.cinnabar.Version.CINNABAR_VERSION + "\r\n"));
        assertTrue(info.contains("\r\nredis_mode:standalone\r\n"));
        assertTrue(info.contains("\r\nrole:master\r\n"));
        assertTrue(info.contains("\r\ncluster_enabled:0\r\n"));
        assertTrue(info.endsWith("\r\n"));
    }

    @Test
    void runIdAndReplicationIdAreFortyHexCharactersThatStay(Jedis jedis) {
        String runId = infoField(jedis.info("server"), "run_id");
        String replId = infoField(jedis.info("replication"), "master_replid");
        assertTrue(runId.matches("[0-9a-f]{40}"), runId);
        assertTrue(replId.matches("[0-9a-f]{40}"), replId);
        assertFalse(runId.equals(replId));
        assertEquals(runId, infoField(jedis.info("server"), "run_id"));
        assertEquals(replId, infoField(jedis.info("replication"), "master_replid"));
    }

    @Test
    void executableAndSystemMemoryAreThereInEveryInfo(Jedis jedis) {
        // Looked up once (InfoCommand.ProcessFacts): the second INFO must still carry them.
        for (int i = 0; i < 2; i++) {
            String executable = infoField(jedis.info("server"), "executable");
            assertEquals(ProcessHandle.current().info().command().orElse(""), executable);
            long systemMemory = Long.parseLong(infoField(jedis.info("memory"), "total_system_memory"));
            assertTrue(systemMemory > 64L * 1024 * 1024, Long.toString(systemMemory));
            assertTrue(infoField(jedis.info("memory"), "total_system_memory_human").endsWith("G")
                    || systemMemory < 1024L * 1024 * 1024);
        }
    }

    private static String infoField(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        }
        throw new AssertionError(name + " missing from " + info);
    }

    @Test
    void sectionSelection(Jedis jedis) {
        String cpu = jedis.info("cpu");
        assertTrue(cpu.startsWith("# CPU\r\nused_cpu_sys:"), cpu);
        assertFalse(cpu.contains("used_memory"));
        assertEquals("", jedis.info("sentinel"));
        String multi = Raw.str(jedis, "INFO", "cpu", "CLIENTS");
        assertTrue(multi.startsWith("# Clients\r\n") && multi.contains("\r\n\r\n# CPU\r\n"), multi);
        String all = jedis.info("all");
        assertTrue(all.contains("# Commandstats") && all.contains("rejected_calls="));
        String cpuAll = Raw.str(jedis, "INFO", "cpu", "all");
        assertEquals(cpuAll.indexOf("used_cpu_user_children"), cpuAll.lastIndexOf("used_cpu_user_children"));
    }

    @Test
    void keyspaceAndStats(Jedis jedis) {
        jedis.set("a", "1");
        jedis.set("b", "2");
        jedis.get("a");
        jedis.get("nope");
        String ks = jedis.info("keyspace");
        assertEquals("# Keyspace\r\ndb0:keys=2,expires=0,avg_ttl=0\r\n", ks);
        String stats = jedis.info("stats");
        assertTrue(stats.contains("\r\nkeyspace_hits:1\r\n"), stats);
        assertTrue(stats.contains("\r\nkeyspace_misses:1\r\n"), stats);
    }

    @Test
    void commandStatsAndErrorStats(Jedis jedis) {
        jedis.configResetStat();
        jedis.set("k", "v");
        assertThrows(JedisDataException.class, () -> cmd(jedis, "GET"));
        assertThrows(JedisDataException.class, () -> cmd(jedis, "CONFIG", "SET", "hz", "x"));
        jedis.configGet("hz");
        String cs = jedis.info("commandstats");
        assertTrue(cs.matches("(?s).*\r\ncmdstat_set:calls=1,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=0,failed_calls=0\r\n.*"), cs);
        assertTrue(cs.contains("cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0"), cs);
        assertTrue(cs.contains("cmdstat_config|set:calls=1,"), cs);
        assertTrue(cs.contains("cmdstat_config|get:calls=1,"), cs);
        assertEquals("# Errorstats\r\nerrorstat_ERR:count=2\r\n", jedis.info("errorstats"));
        jedis.configResetStat();
        assertEquals("# Errorstats\r\n", jedis.info("errorstats"));
    }

    @Test
    void unknownSubcommandCountsNoRejectedCallButItsContainerWithoutOneDoes(Jedis jedis) {
        jedis.configResetStat();
        assertThrows(JedisDataException.class, () -> cmd(jedis, "CONFIG", "NOPE"));
        assertThrows(JedisDataException.class, () -> cmd(jedis, "LATENCY", "NOPE", "x"));
        assertThrows(JedisDataException.class, () -> cmd(jedis, "XINFO"));
        String cs = jedis.info("commandstats");
        assertFalse(cs.contains("cmdstat_config:"), cs);
        assertFalse(cs.contains("cmdstat_latency"), cs);
        assertTrue(cs.contains("cmdstat_xinfo:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0"), cs);
        assertEquals("# Errorstats\r\nerrorstat_ERR:count=3\r\n", jedis.info("errorstats"));
    }

    @Test
    void infoIsVerbatimInResp3(CinnabarServer server) {
        try (Jedis j3 = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            String info = j3.info("server");
            // A RESP3 verbatim string; Jedis hands it over with its "txt:" format prefix (as with Redis).
            assertTrue(info.startsWith("txt:# Server\r\n"), info);
        }
    }

    @Test
    void debugProtocolInResp2(Jedis jedis) {
        assertEquals("1234567999999999999999999999999999999", Raw.str(jedis, "DEBUG", "PROTOCOL", "bignum"));
        assertEquals(1L, cmd(jedis, "DEBUG", "PROTOCOL", "true"));
        assertEquals("Some real reply following the attribute", Raw.str(jedis, "DEBUG", "PROTOCOL", "attrib"));
        assertEquals(List.of(0L, 1L, 2L), cmd(jedis, "DEBUG", "PROTOCOL", "set"));
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "PROTOCOL", "push"));
        assertEquals("ERR RESP2 is not supported by this command", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "PROTOCOL", "x"));
        assertEquals("ERR Wrong protocol type name. Please use one of the following: "
                + "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "NOPE"));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'NOPE'. Try DEBUG HELP.", e.getMessage());
    }

    /** What client libraries' own tests use to see how they map error codes (redis-py's OOM, READONLY, LOADING...). */
    @Test
    void debugErrorRepliesWithTheGivenErrorLineUncounted(Jedis jedis) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "ERROR", "OOM blah blah"));
        assertEquals("OOM blah blah", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "ERROR", "two\nlines"));
        assertEquals("two lines", e.getMessage());
        assertTrue(jedis.info("errorstats").lines().noneMatch(l -> l.startsWith("errorstat_OOM")), jedis.info("errorstats"));
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "ERROR"));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'ERROR'. Try DEBUG HELP.", e.getMessage());
    }

    @Test
    void debugObject(Jedis jedis) {
        jedis.set("n", "12");
        jedis.set("s", "hello");
        String n = Raw.str(jedis, "DEBUG", "OBJECT", "n");
        assertTrue(n.matches("Value at:0x[0-9a-f]+ refcount:2147483647 encoding:int serializedlength:2 lru:\\d+ lru_seconds_idle:\\d+"), n);
        String s = Raw.str(jedis, "DEBUG", "OBJECT", "s");
        assertTrue(s.matches("Value at:0x[0-9a-f]+ refcount:1 encoding:embstr serializedlength:6 lru:\\d+ lru_seconds_idle:\\d+"), s);
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DEBUG", "OBJECT", "none"));
        assertEquals("ERR no such key", e.getMessage());
    }
}
