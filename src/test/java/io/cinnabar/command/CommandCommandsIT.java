package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class CommandCommandsIT {
    @Test
    void infoShapeMatchesRedis70(Jedis jedis) {
        List<?> all = (List<?>) cmd(jedis, "COMMAND", "INFO", "get", "nosuch", "config|get");
        List<?> get = (List<?>) all.get(0);
        assertEquals(10, get.size());
        assertEquals("get", get.get(0));
        assertEquals(2L, get.get(1));
        assertEquals(List.of("readonly", "fast"), get.get(2));
        assertEquals(Arrays.asList(1L, 1L, 1L), get.subList(3, 6));
        assertEquals(List.of("@read", "@string", "@fast"), get.get(6));
        assertEquals(List.of(), get.get(7));
        List<?> keySpec = (List<?>) ((List<?>) get.get(8)).get(0);
        assertEquals(List.of("flags", List.of("RO", "access"), "begin_search",
                List.of("type", "index", "spec", List.of("index", 1L)), "find_keys",
                List.of("type", "range", "spec", List.of("lastkey", 0L, "keystep", 1L, "limit", 0L))), keySpec);
        assertNull(all.get(1));
        List<?> configGet = (List<?>) all.get(2);
        assertEquals("config|get", configGet.get(0));
        assertEquals(List.of("@admin", "@slow", "@dangerous"), configGet.get(6));
    }

    @Test
    void containerListsSubcommands(Jedis jedis) {
        List<?> config = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "config")).get(0);
        assertEquals(-2L, config.get(1));
        assertEquals(List.of("@slow"), config.get(6));
        List<?> subs = (List<?>) config.get(9);
        assertTrue(subs.stream().anyMatch(s -> ((List<?>) s).get(0).equals("config|set")));
    }

    @Test
    void countListAndAll(Jedis jedis) {
        long count = (Long) cmd(jedis, "COMMAND", "COUNT");
        assertEquals(count, ((List<?>) cmd(jedis, "COMMAND")).size());
        List<?> names = (List<?>) cmd(jedis, "COMMAND", "LIST");
        assertTrue(names.contains("get") && names.contains("client|list"));
        assertEquals(List.of("discard", "exec", "multi", "unwatch", "watch"),
                ((List<?>) cmd(jedis, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "transaction")).stream().sorted().toList());
        assertEquals(List.of("config|get"), cmd(jedis, "COMMAND", "LIST", "FILTERBY", "PATTERN", "CONFIG|G*"));
        assertError(jedis, "ERR syntax error", "COMMAND", "LIST", "FILTERBY", "x", "y");
    }

    @Test
    void docs(Jedis jedis) {
        List<?> docs = (List<?>) cmd(jedis, "COMMAND", "DOCS", "get", "nosuch");
        assertEquals(2, docs.size());
        assertEquals("get", docs.get(0));
        List<?> body = (List<?>) docs.get(1);
        assertEquals("summary", body.get(0));
        assertTrue(body.contains("since") && body.contains("group") && body.contains("string"));
    }

    @Test
    void getkeys(Jedis jedis) {
        assertEquals(List.of("a"), cmd(jedis, "COMMAND", "GETKEYS", "get", "a"));
        assertEquals(List.of("a", "b"), cmd(jedis, "COMMAND", "GETKEYS", "del", "a", "b"));
        assertEquals(List.of(List.of("a", List.of("OW", "update"))), cmd(jedis, "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"));
        assertError(jedis, "ERR Invalid command specified", "COMMAND", "GETKEYS", "nosuch", "a");
        assertError(jedis, "ERR The command has no key arguments", "COMMAND", "GETKEYS", "ping", "a");
        assertError(jedis, "ERR Invalid number of arguments specified for command", "COMMAND", "GETKEYS", "get", "a", "b");
        assertError(jedis, "ERR wrong number of arguments for 'command|getkeys' command", "COMMAND", "GETKEYS");
    }

    private static void assertError(Jedis jedis, String expected, String name, String... args) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, name, args));
        assertEquals(expected, e.getMessage());
    }
}
