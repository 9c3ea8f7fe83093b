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
        assertError(jedis, "ERR wrong number of arguments for 'config|set' command", "CONFIG", "SET", "hz", "1", "maxmemory");
        assertError(jedis, "ERR wrong number of arguments for 'config|get' command", "CONFIG", "GET");
        assertError(jedis, "ERR unknown subcommand 'nope'. Try CONFIG HELP.", "CONFIG", "nope");
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
}
