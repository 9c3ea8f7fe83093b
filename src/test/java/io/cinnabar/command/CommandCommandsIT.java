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
    void docsCarryComplexityHistoryAndDeprecation(Jedis jedis) {
        // As redis-server 7.0.15 answers.
        assertEquals("[getset, [summary, Set the string value of a key and return its old value, since, 1.0.0, group, string, "
                + "complexity, O(1), doc_flags, [deprecated], deprecated_since, 6.2.0, replaced_by, `SET` with the `!GET` argument, "
                + "arguments, [[name, key, type, key, key_spec_index, 0], [name, value, type, string]]]]",
                String.valueOf(cmd(jedis, "COMMAND", "DOCS", "getset")));
        List<?> set = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "DOCS", "set")).get(1);
        assertEquals("[[2.6.12, Added the `EX`, `PX`, `NX` and `XX` options.], [6.0.0, Added the `KEEPTTL` option.], "
                + "[6.2.0, Added the `GET`, `EXAT` and `PXAT` option.], [7.0.0, Allowed the `NX` and `GET` options to be used together.]]",
                String.valueOf(set.get(set.indexOf("history") + 1)));
    }

    @Test
    void docsDescribeArgumentsAsRedisDoes(Jedis jedis) {
        // As redis-server 7.0.15 answers: nested oneof/block arguments, tokens, since, flags,
        // MIGRATE's empty-string token, and a subcommand's arguments.
        List<?> zadd = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "DOCS", "zadd")).get(1);
        assertEquals("[[name, key, type, key, key_spec_index, 0], "
                + "[name, condition, type, oneof, since, 3.0.2, flags, [optional], arguments, "
                + "[[name, nx, type, pure-token, token, NX], [name, xx, type, pure-token, token, XX]]], "
                + "[name, comparison, type, oneof, since, 6.2.0, flags, [optional], arguments, "
                + "[[name, gt, type, pure-token, token, GT], [name, lt, type, pure-token, token, LT]]], "
                + "[name, change, type, pure-token, token, CH, since, 3.0.2, flags, [optional]], "
                + "[name, increment, type, pure-token, token, INCR, since, 3.0.2, flags, [optional]], "
                + "[name, score_member, type, block, flags, [multiple], arguments, "
                + "[[name, score, type, double], [name, member, type, string]]]]",
                String.valueOf(zadd.get(zadd.indexOf("arguments") + 1)));
        List<?> migrate = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "DOCS", "migrate")).get(1);
        assertEquals("[name, key_or_empty_string, type, oneof, arguments, [[name, key, type, key, key_spec_index, 0], "
                + "[name, empty_string, type, pure-token, token, ]]]",
                String.valueOf(((List<?>) migrate.get(migrate.indexOf("arguments") + 1)).get(2)));
        List<?> configGet = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "DOCS", "config|get")).get(1);
        assertEquals("[[name, parameter, type, block, flags, [multiple], arguments, [[name, parameter, type, string]]]]",
                String.valueOf(configGet.get(configGet.indexOf("arguments") + 1)));
        List<?> count = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "DOCS", "command|count")).get(1);
        assertTrue(!count.contains("arguments"), "COMMAND COUNT takes no arguments: no entry, as in Redis");
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

    /**
     * Replies of the real redis-server 7.0.15 to the same calls (rendered as Jedis lists print,
     * errors as "ERR:" + text): key specs with notes, flags per key, the legacy triple and
     * movablekeys derived from the specs, numkeys and STORE keys, the getkeys procedures' fallback.
     */
    private static final String[][] AS_REDIS = {
                {"COMMAND INFO set", "[[set, -3, [write, denyoom], 1, 1, 1, [@write, @string, @slow], [], [[notes, RW and ACCESS due to the optional `GET` argument, flags, [RW, access, update, variable_flags], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]]], []]]"},
                {"COMMAND INFO get", "[[get, 2, [readonly, fast], 1, 1, 1, [@read, @string, @fast], [], [[flags, [RO, access], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]]], []]]"},
                {"COMMAND INFO mset", "[[mset, -3, [write, denyoom], 1, -1, 2, [@write, @string, @slow], [request_policy:multi_shard, response_policy:all_succeeded], [[flags, [OW, update], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, -1, keystep, 2, limit, 0]]]], []]]"},
                {"COMMAND INFO lmove", "[[lmove, 5, [write, denyoom], 1, 2, 1, [@write, @list, @slow], [], [[flags, [RW, access, delete], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]], [flags, [RW, insert], begin_search, [type, index, spec, [index, 2]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]]], []]]"},
                {"COMMAND INFO eval", "[[eval, -3, [noscript, stale, skip_monitor, no_mandatory_keys, movablekeys], 0, 0, 0, [@slow, @scripting], [], [[notes, We cannot tell how the keys will be used so we assume the worst, RW and UPDATE, flags, [RW, access, update], begin_search, [type, index, spec, [index, 2]], find_keys, [type, keynum, spec, [keynumidx, 0, firstkey, 1, keystep, 1]]]], []]]"},
                {"COMMAND INFO zunionstore", "[[zunionstore, -4, [write, denyoom, movablekeys], 1, 1, 1, [@write, @sortedset, @slow], [], [[flags, [OW, update], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]], [flags, [RO, access], begin_search, [type, index, spec, [index, 2]], find_keys, [type, keynum, spec, [keynumidx, 0, firstkey, 1, keystep, 1]]]], []]]"},
                {"COMMAND INFO sort", "[[sort, -2, [write, denyoom, movablekeys], 1, 1, 1, [@write, @set, @sortedset, @list, @slow, @dangerous], [], [[flags, [RO, access], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]], [notes, For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort, flags, [RO, access], begin_search, [type, unknown, spec, []], find_keys, [type, unknown, spec, []]], [notes, For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array, flags, [OW, update], begin_search, [type, unknown, spec, []], find_keys, [type, unknown, spec, []]]], []]]"},
                {"COMMAND INFO georadius", "[[georadius, -6, [write, denyoom, movablekeys], 1, 1, 1, [@write, @geo, @slow], [], [[flags, [RO, access], begin_search, [type, index, spec, [index, 1]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]], [flags, [OW, update], begin_search, [type, keyword, spec, [keyword, STORE, startfrom, 6]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]], [flags, [OW, update], begin_search, [type, keyword, spec, [keyword, STOREDIST, startfrom, 6]], find_keys, [type, range, spec, [lastkey, 0, keystep, 1, limit, 0]]]], []]]"},
                {"COMMAND GETKEYSANDFLAGS set k1 v1", "[[k1, [OW, update]]]"},
                {"COMMAND GETKEYSANDFLAGS set k1 v1 get", "[[k1, [RW, access, update]]]"},
                {"COMMAND GETKEYSANDFLAGS lmove a b left right", "[[a, [RW, access, delete]], [b, [RW, insert]]]"},
                {"COMMAND GETKEYSANDFLAGS eval s 2 a b c", "[[a, [RW, access, update]], [b, [RW, access, update]]]"},
                {"COMMAND GETKEYSANDFLAGS eval s 1abc a", "[[a, []]]"},
                {"COMMAND GETKEYS eval s 0", "[]"},
                {"COMMAND GETKEYSANDFLAGS zunionstore d 2 a b weights 1 2", "[[d, [OW, update]], [a, [RO, access]], [b, [RO, access]]]"},
                {"COMMAND GETKEYS zunionstore d 3 a b", "ERR:ERR Invalid arguments specified for command"},
                {"COMMAND GETKEYSANDFLAGS sort k by w limit 0 1 get x store d", "[[k, [RO, access]], [d, [OW, update]]]"},
                {"COMMAND GETKEYS sort_ro k store d", "[k]"},
                {"COMMAND GETKEYSANDFLAGS georadius k 0 0 1 km store a storedist b", "[[k, [RO, access]], [a, [OW, update]], [b, [OW, update]]]"},
                {"COMMAND GETKEYSANDFLAGS mset a 1 b 2", "[[a, [OW, update]], [b, [OW, update]]]"},
                {"COMMAND GETKEYS lmpop 2 a b left", "[a, b]"},
                {"COMMAND GETKEYS spublish ch msg", "ERR:ERR The command has no key arguments"},
                {"COMMAND GETKEYS config get x", "ERR:ERR The command has no key arguments"},
    };

    @Test
    void keySpecsAndGetKeysAsRedis(Jedis jedis) {
        for (String[] c : AS_REDIS) {
            String[] words = c[0].split(" ");
            String actual;
            try {
                actual = String.valueOf(cmd(jedis, words[0], Arrays.copyOfRange(words, 1, words.length)));
            } catch (JedisDataException e) {
                actual = "ERR:" + e.getMessage();
            }
            assertEquals(c[1], actual, c[0]);
        }
    }

    private static void assertError(Jedis jedis, String expected, String name, String... args) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, name, args));
        assertEquals(expected, e.getMessage());
    }
}
