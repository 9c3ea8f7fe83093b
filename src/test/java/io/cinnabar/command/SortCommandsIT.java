package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SortingParams;

import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

@CinnabarTest
class SortCommandsIT {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final String NOT_DOUBLE = "ERR One or more scores can't be converted into double";

    private static SortingParams p() {
        return new SortingParams();
    }

    // ---- ordering ----

    /**
     * A LIMIT without BY takes its range from the full order, which is total (equal scores fall
     * back to the bytes: "1", "1.0" and "01"), however the range is found: every LIMIT of random
     * lists with repeats, numeric and ALPHA, ascending and descending, is the full sort's slice.
     */
    @Test
    void limitWithoutByIsTheFullSortsSlice(Jedis jedis) {
        java.util.Random random = new java.util.Random(5);
        String[] values = {"1", "1.0", "01", "2", "-3", "1e1", "10", "2.5", "0", "-0", "7", "3"};
        for (int round = 0; round < 40; round++) {
            jedis.del("nums");
            int n = 1 + random.nextInt(round < 20 ? 12 : 400);
            for (int i = 0; i < n; i++) jedis.rpush("nums", values[random.nextInt(values.length)] + (round % 2 == 0 ? "" : "0".repeat(random.nextInt(2))));
            for (String[] options : new String[][] {{}, {"DESC"}, {"ALPHA"}, {"ALPHA", "DESC"}}) {
                List<String> full = list(cmd(jedis, "SORT", concat(new String[] {"nums"}, options)));
                for (int t = 0; t < 10; t++) {
                    int offset = random.nextInt(n + 2) - 1, count = random.nextInt(n + 2) - 1;
                    List<String> limited = list(cmd(jedis, "SORT", concat(concat(new String[] {"nums"}, options),
                            new String[] {"LIMIT", Integer.toString(offset), Integer.toString(count)})));
                    int from = Math.max(0, offset), to = count < 0 ? n : (int) Math.min(n, (long) from + count);
                    assertEquals(from >= n ? List.of() : full.subList(from, Math.max(from, to)), limited,
                            Arrays.toString(options) + " LIMIT " + offset + " " + count);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Object reply) {
        return (List<String>) reply;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void getHashPatternEndsAtANulByte(Jedis jedis) {
        // lookupKeyByPattern tests spat[0] == '#' && spat[1] == '\0' (found by hand against redis-server 7.0.15).
        jedis.rpush("l", "b", "a");
        assertEquals(List.of("a", "b"), cmd(jedis, "SORT", "l", "ALPHA", "GET", "#\0x"));
    }

    @Test
    void patternsAreSearchedUpToANulByte(Jedis jedis) {
        // strchr finds the '*' and strstr the "->": neither looks past a NUL (checked against redis-server 7.0.15).
        jedis.rpush("l", "3", "1", "2");
        for (String e : new String[] {"1", "2", "3"}) {
            jedis.set("w_" + e, String.valueOf(40 - 10 * Integer.parseInt(e)));
            jedis.hset("h_" + e, "f", String.valueOf(40 - 10 * Integer.parseInt(e)));
        }
        // No '*' before the NUL: a constant pattern, so nothing is sorted.
        assertEquals(List.of("3", "1", "2"), cmd(jedis, "SORT", "l", "BY", "w_\0*"));
        // A constant BY is for good: a real pattern after it does not sort (Redis never clears dontsort).
        assertEquals(List.of("3", "1", "2"), cmd(jedis, "SORT", "l", "BY", "nosort", "BY", "w_*"));
        assertEquals(List.of("3", "1", "2"), cmd(jedis, "SORT", "l", "BY", "w_*", "BY", "nosort"));
        assertEquals(Arrays.asList(null, null, null), cmd(jedis, "SORT", "l", "BY", "nosort", "GET", "w_\0*"));
        assertEquals(List.of("3", "2", "1"), cmd(jedis, "SORT", "l", "BY", "h_*->f"));
        // "->" after the NUL is part of the key name; a field starting with NUL is none.
        assertEquals(Arrays.asList(null, null, null), cmd(jedis, "SORT", "l", "BY", "nosort", "GET", "h_*\0->f"));
        assertEquals(Arrays.asList(null, null, null), cmd(jedis, "SORT", "l", "BY", "nosort", "GET", "h_*->\0f"));
    }

    @Test
    void numericSortWithTiesBrokenByBytes(Jedis jedis) {
        jedis.rpush("l", "3", "1", "10", "-5", "1.5", " 7", "", "0", "-0");
        // "" counts as 0 and a leading blank is fine for strtod; equal scores order by bytes.
        assertEquals(List.of("-5", "", "-0", "0", "1", "1.5", "3", " 7", "10"), jedis.sort("l"));
        assertEquals(List.of("10", " 7", "3", "1.5", "1", "0", "-0", "", "-5"), jedis.sort("l", p().desc()));
    }

    @Test
    void alphaSortIsByteWise(Jedis jedis) {
        jedis.sadd("s", "b", "a", "B", "10", "9", "\u00e9");
        assertEquals(List.of("10", "9", "B", "a", "b", "\u00e9"), jedis.sort("s", p().alpha()));
        assertEquals(List.of("\u00e9", "b", "a", "B", "9", "10"), jedis.sort("s", p().alpha().desc()));
    }

    @Test
    void sortsIntsetSetsAndMissingKeys(Jedis jedis) {
        jedis.sadd("s", "5", "-3", "100", "7");
        assertEquals(List.of("-3", "5", "7", "100"), jedis.sort("s"));
        assertEquals(List.of(), jedis.sort("missing"));
        assertEquals(List.of(), jedis.sortReadonly("missing", p().desc()));
    }

    @Test
    void limitClampsLikeRedis(Jedis jedis) {
        jedis.rpush("l", "5", "4", "3", "2", "1");
        assertEquals(List.of("2", "3"), jedis.sort("l", p().limit(1, 2)));
        assertEquals(List.of("1", "2"), jedis.sort("l", p().limit(-10, 2)));
        assertEquals(List.of("3", "4", "5"), jedis.sort("l", p().limit(2, -1)));
        assertEquals(List.of(), jedis.sort("l", p().limit(5, 2)));
        assertEquals(List.of(), jedis.sort("l", p().limit(0, 0)));
        assertEquals(List.of("4", "3"), jedis.sort("l", p().desc().limit(1, 2)));
    }

    @Test
    void notANumberIsAnError(Jedis jedis) {
        jedis.rpush("l", "1", "x", "2");
        assertEquals(NOT_DOUBLE, error(() -> jedis.sort("l")));
        assertEquals(List.of("1", "2", "x"), jedis.sort("l", p().alpha()));
        jedis.rpush("n", "1", "nan");
        assertEquals(NOT_DOUBLE, error(() -> jedis.sort("n")));
        jedis.rpush("t", "1 ");
        assertEquals(NOT_DOUBLE, error(() -> jedis.sort("t")));
        jedis.rpush("big", "1e400");
        assertEquals(NOT_DOUBLE, error(() -> jedis.sort("big")));
        jedis.rpush("inf", "inf", "-inf", "0x10", "3");
        assertEquals(List.of("-inf", "3", "0x10", "inf"), jedis.sort("inf"));
    }

    // ---- BY ----

    @Test
    void byStringKeysAndHashFields(Jedis jedis) {
        jedis.rpush("l", "a", "b", "c", "d");
        jedis.set("w_a", "30");
        jedis.set("w_b", "10");
        jedis.set("w_c", "20");
        // d has no weight: 0, first.
        assertEquals(List.of("d", "b", "c", "a"), jedis.sort("l", p().by("w_*")));
        jedis.hset("h_a", "f", "1");
        jedis.hset("h_b", "f", "3");
        jedis.hset("h_c", "f", "2");
        jedis.hset("h_d", "other", "9");
        assertEquals(List.of("d", "a", "c", "b"), jedis.sort("l", p().by("h_*->f")));
        assertEquals(List.of("b", "c", "a", "d"), jedis.sort("l", p().by("h_*->f").desc()));
        // ALPHA by pattern: elements whose key is missing come first.
        jedis.set("z_b", "x");
        jedis.set("z_c", "y");
        assertEquals(List.of("a", "d", "b", "c"), jedis.sort("l", p().by("z_*").alpha()));
    }

    @Test
    void byKeyOfWrongTypeWeighsNothing(Jedis jedis) {
        jedis.rpush("l", "1", "2");
        jedis.set("w_1", "5");
        jedis.rpush("w_2", "x");
        assertEquals(List.of("2", "1"), jedis.sort("l", p().by("w_*")));
    }

    @Test
    void nosortKeepsListOrderAndReversesOnDesc(Jedis jedis) {
        jedis.rpush("l", "c", "a", "b", "d");
        assertEquals(List.of("c", "a", "b", "d"), jedis.sort("l", p().nosort()));
        assertEquals(List.of("d", "b", "a", "c"), jedis.sort("l", p().nosort().desc()));
        assertEquals(List.of("a", "b"), jedis.sort("l", p().nosort().limit(1, 2)));
        assertEquals(List.of("b", "a"), jedis.sort("l", p().nosort().desc().limit(1, 2)));
        // Any constant pattern (no '*') means no sorting, even with bad numbers.
        jedis.rpush("bad", "x", "1");
        assertEquals(List.of("x", "1"), jedis.sort("bad", p().by("constant")));
    }

    @Test
    void nosortOnSetStoreSortsAlpha(Jedis jedis) {
        jedis.sadd("s", "b", "10", "a", "9");
        assertEquals(4, jedis.sort("s", p().nosort(), "dst"));
        assertEquals(List.of("10", "9", "a", "b"), jedis.lrange("dst", 0, -1));
    }

    /** sortCommandGeneric converts any sorted set it reads to skiplist, for good, SORT_RO included. */
    @Test
    void sortLeavesASortedSetAsSkiplist(Jedis jedis) {
        jedis.zadd("z", 2, "b");
        jedis.zadd("z", 1, "a");
        assertEquals("listpack", jedis.objectEncoding("z"));
        assertEquals(List.of("a", "b"), jedis.sortReadonly("z", p().alpha()));
        assertEquals("skiplist", jedis.objectEncoding("z"));
        assertEquals(List.of("a", "b"), jedis.zrange("z", 0, -1));
        jedis.zadd("y", 1, "x");
        assertEquals(List.of("x"), jedis.sort("y", p().nosort()));
        assertEquals("skiplist", jedis.objectEncoding("y"));
    }

    /** BY with LIMIT runs Redis's partial quicksort, which leaves equal ALPHA weights in its own (unstable) order. */
    @Test
    void byWithLimitKeepsPqsortsOrderOfTies(Jedis jedis) {
        for (int i = 0; i < 12; i++) jedis.rpush("l", "e" + i);
        for (int i : new int[] {0, 2, 3, 5, 8, 9, 11}) jedis.set("w_e" + i, "b");
        for (int i : new int[] {1, 4}) jedis.set("w_e" + i, "a");
        // Expected lists read from Redis 7.0.15 given the same data.
        assertEquals(List.of("e7", "e10", "e6", "e4", "e1"), jedis.sort("l", p().by("w_*").alpha().limit(0, 5)));
        assertEquals(List.of("e5", "e8", "e9", "e11", "e2", "e1"), jedis.sort("l", p().by("w_*").alpha().desc().limit(2, 6)));
        assertEquals(List.of("e6", "e7", "e10", "e1", "e4", "e0", "e2", "e3", "e5", "e8", "e9", "e11"),
                jedis.sort("l", p().by("w_*").alpha()), "without LIMIT the sort is stable (glibc's qsort merges)");
        for (int i = 0; i < 50; i++) {
            jedis.rpush("big", String.valueOf(i));
            jedis.set("w_" + i, String.valueOf(i * 7 % 3));
        }
        assertEquals(List.of("0", "42", "12", "48", "39", "15", "36", "49"), jedis.sort("big", p().by("w_*").alpha().limit(10, 8)));
    }

    // ---- GET ----

    @Test
    void getPatternsAndHash(Jedis jedis) {
        jedis.rpush("l", "2", "1", "3");
        jedis.set("name_1", "one");
        jedis.set("name_2", "two");
        jedis.hset("obj_1", "f", "F1");
        jedis.hset("obj_3", "f", "F3");
        assertEquals(Arrays.asList("1", "one", "F1", "2", "two", null, "3", null, "F3"),
                jedis.sort("l", p().get("#", "name_*", "obj_*->f")));
        // No '*': nothing to look up; "->" with no field name is part of the key.
        jedis.set("k_1->", "arrow");
        assertEquals(Arrays.asList(null, "arrow"), jedis.sort("l", p().limit(0, 1).get("fixed", "k_*->")));
    }

    @Test
    void sortReadonlyAcceptsEverythingButStore(Jedis jedis) {
        jedis.rpush("l", "b", "a");
        assertEquals(List.of("b", "a"), jedis.sortReadonly("l", p().alpha().desc()));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "SORT_RO", "l", "STORE", "d")));
    }

    // ---- STORE ----

    @Test
    void storeWritesAListAndDeletesOnEmpty(Jedis jedis) {
        jedis.rpush("l", "3", "1", "2");
        jedis.set("dst", "old");
        jedis.expire("dst", 100);
        assertEquals(3, jedis.sort("l", p(), "dst"));
        assertEquals("list", jedis.type("dst"));
        assertEquals(-1, jedis.ttl("dst"));
        assertEquals(List.of("1", "2", "3"), jedis.lrange("dst", 0, -1));
        // With GET, missing values are stored as empty strings.
        jedis.set("v_2", "two");
        assertEquals(6, jedis.sort("l", p().get("#", "v_*"), "dst"));
        assertEquals(List.of("1", "", "2", "two", "3", ""), jedis.lrange("dst", 0, -1));
        assertEquals(0, jedis.sort("missing", p(), "dst"));
        assertFalse(jedis.exists("dst"));
        // The last STORE wins.
        assertEquals(3L, cmd(jedis, "SORT", "l", "STORE", "a", "STORE", "b"));
        assertFalse(jedis.exists("a"));
        assertEquals(List.of("1", "2", "3"), jedis.lrange("b", 0, -1));
    }

    @Test
    void storedListKeepsQuicklistCreateFillWhateverTheConfig(Jedis jedis) {
        // sort.c stores into createQuicklistObject() without quicklistSetOptions: fill -2 for good,
        // where a pushed list takes list-max-listpack-size. Found by diff-fuzz seed 512 (DUMP of a
        // SORT ... STORE list under list-max-listpack-size 0); payloads are redis-server 7.0.15's.
        jedis.configSet("list-max-listpack-size", "1");
        try {
            jedis.rpush("l", "3", "1", "2");
            assertEquals(3, jedis.sort("l", p(), "s"));
            jedis.rpush("s", "4");
            assertEquals("\u0012\u0001\u0002\u000f\u000f\u0000\u0000\u0000\u0004\u0000\u0001\u0001\u0002\u0001\u0003\u0001\u0004\u0001\u00ff\n\u0000"
                    + "\u00a0\u00cd\u0087\u00bc\u0080C\u008au", latin1(jedis.dump("s")));
            // The pushed list: one element a node.
            assertEquals(3, jedis.dump("l")[1]);
        } finally {
            jedis.configSet("list-max-listpack-size", "-2");
        }
    }

    private static String latin1(byte[] b) {
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Test
    void storeWakesBlockedClient(CinnabarServer server, Jedis jedis) throws Exception {
        jedis.rpush("src", "2", "1");
        try (ListCommandsIT.Conn b = new ListCommandsIT.Conn(server.port())) {
            b.send("BLPOP", "dst", "0");
            for (int i = 0; i < 500 && !jedis.info("clients").contains("blocked_clients:1\r"); i++) Thread.sleep(5);
            assertEquals("", b.read(100, 0), "still blocked");
            assertEquals(2, jedis.sort("src", p(), "dst"));
            String reply = "*2\r\n$3\r\ndst\r\n$1\r\n1\r\n";
            assertEquals(reply, b.expect(reply, 2000));
            assertEquals(List.of("2"), jedis.lrange("dst", 0, -1));
        }
    }

    // ---- errors and introspection ----

    @Test
    void errors(Jedis jedis) {
        jedis.set("str", "x");
        assertEquals(WRONGTYPE, error(() -> jedis.sort("str")));
        jedis.hset("h", "f", "v");
        assertEquals(WRONGTYPE, error(() -> jedis.sort("h")));
        jedis.rpush("l", "1");
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "SORT", "l", "FOO")));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "SORT", "l", "LIMIT", "1")));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "SORT", "l", "BY")));
        assertEquals("ERR value is not an integer or out of range",
                error(() -> cmd(jedis, "SORT", "l", "LIMIT", "a", "1")));
        // Options are parsed before the key is looked at.
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "SORT", "str", "FOO")));
        assertEquals("ERR wrong number of arguments for 'sort' command", error(() -> cmd(jedis, "SORT")));
    }

    @Test
    void getKeysFindsTheLastStore(Jedis jedis) {
        assertEquals(List.of("abc", "def"), cmd(jedis, "COMMAND", "GETKEYS", "SORT", "abc", "STORE", "x", "STORE", "def"));
        assertEquals(List.of("abc", "y"), cmd(jedis, "COMMAND", "GETKEYS", "SORT", "abc", "LIMIT", "STORE", "x", "STORE", "y"));
        assertEquals(List.of("abc"), cmd(jedis, "COMMAND", "GETKEYS", "SORT_RO", "abc", "STORE", "x"));
        assertEquals(List.of(List.of("k1", List.of("RO", "access")), List.of("k2", List.of("OW", "update"))),
                cmd(jedis, "COMMAND", "GETKEYSANDFLAGS", "SORT", "k1", "STORE", "k2"));
    }
}
