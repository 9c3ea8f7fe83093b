package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class ZSetCommandsIT {
    private static String error(Jedis jedis, String name, String... args) {
        return assertThrows(JedisDataException.class, () -> cmd(jedis, name, args)).getMessage();
    }

    private static Jedis resp3(CinnabarServer server) {
        return new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build());
    }

    @Test
    void zaddOptions(Jedis jedis) {
        assertEquals(3L, cmd(jedis, "ZADD", "z", "1", "a", "2", "b", "3", "c"));
        assertEquals(0L, cmd(jedis, "ZADD", "z", "NX", "10", "a"));
        assertEquals("1", cmd(jedis, "ZSCORE", "z", "a"));
        assertEquals(0L, cmd(jedis, "ZADD", "z", "XX", "10", "new"));
        assertNull(cmd(jedis, "ZSCORE", "z", "new"));
        assertEquals(1L, cmd(jedis, "ZADD", "z", "XX", "CH", "10", "a"));
        assertEquals(0L, cmd(jedis, "ZADD", "z", "GT", "CH", "5", "a"));
        assertEquals(2L, cmd(jedis, "ZADD", "z", "LT", "CH", "5", "a", "6", "d"));
        assertEquals("5", cmd(jedis, "ZSCORE", "z", "a"));
        assertEquals("7.5", cmd(jedis, "ZADD", "z", "INCR", "2.5", "a"));
        assertNull(cmd(jedis, "ZADD", "z", "GT", "INCR", "-1", "a"));
        assertNull(cmd(jedis, "ZADD", "nokey", "XX", "INCR", "1", "a"));
        assertEquals(0L, cmd(jedis, "EXISTS", "nokey"));
        assertEquals("ERR XX and NX options at the same time are not compatible",
                error(jedis, "ZADD", "z", "NX", "XX", "1", "a"));
        assertEquals("ERR GT, LT, and/or NX options at the same time are not compatible",
                error(jedis, "ZADD", "z", "GT", "LT", "1", "a"));
        assertEquals("ERR GT, LT, and/or NX options at the same time are not compatible",
                error(jedis, "ZADD", "z", "NX", "GT", "1", "a"));
        assertEquals("ERR INCR option supports a single increment-element pair",
                error(jedis, "ZADD", "z", "INCR", "1", "a", "2", "b"));
        assertEquals("ERR syntax error", error(jedis, "ZADD", "z", "1", "a", "2"));
        assertEquals("ERR value is not a valid float", error(jedis, "ZADD", "z", "nan", "a"));
        assertEquals("ERR value is not a valid float", error(jedis, "ZADD", "z", "1", "a", "x", "b"));
        assertEquals(4L, cmd(jedis, "ZCARD", "z"), "a failed ZADD adds nothing");
        cmd(jedis, "SET", "s", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "ZADD", "s", "1", "a"));
    }

    /**
     * A skiplist-encoded set's random members come from its dict: every member about as often as
     * the others, each with its own score, and distinct ones when the count is positive.
     */
    @Test
    void zrandmemberPicksSkiplistMembersUniformlyWithTheirScores(Jedis jedis) {
        int members = 200;
        for (int i = 0; i < members; i++) jedis.zadd("z", i * 1.5, "member:" + i);
        assertEquals("skiplist", jedis.objectEncoding("z"));
        Map<String, Integer> seen = new HashMap<>();
        int draws = 40_000;
        List<Tuple> picks = jedis.zrandmemberWithScores("z", -draws);
        assertEquals(draws, picks.size());
        for (Tuple t : picks) {
            int i = Integer.parseInt(t.getElement().substring("member:".length()));
            assertEquals(i * 1.5, t.getScore(), t.getElement());
            seen.merge(t.getElement(), 1, Integer::sum);
        }
        assertEquals(members, seen.size());
        double expected = (double) draws / members, chiSquare = 0;
        for (int n : seen.values()) chiSquare += (n - expected) * (n - expected) / expected;
        // 199 degrees of freedom: mean 199, standard deviation 20.
        assertTrue(chiSquare < 320, "chi-square " + chiSquare);
        List<String> distinct = jedis.zrandmember("z", 50);
        assertEquals(50, new HashSet<>(distinct).size());
        for (String m : distinct) assertTrue(jedis.zscore("z", m) != null, m);
        assertTrue(jedis.zrandmember("z").startsWith("member:"));
    }

    @Test
    void zincrbyInfinitiesAndNaN(Jedis jedis) {
        assertEquals("inf", cmd(jedis, "ZINCRBY", "z", "+inf", "a"));
        assertEquals("ERR resulting score is not a number (NaN)", error(jedis, "ZINCRBY", "z", "-inf", "a"));
        assertEquals("inf", cmd(jedis, "ZSCORE", "z", "a"));
        assertEquals("0.10000000000000001", cmd(jedis, "ZINCRBY", "z2", "0.1", "x"));
        assertEquals("0.30000000000000004", cmd(jedis, "ZINCRBY", "z2", "0.2", "x"));
        assertEquals("ERR value is not a valid float", error(jedis, "ZINCRBY", "z", "1e400", "a"));
    }

    @Test
    void rangesByRankScoreAndLex(Jedis jedis) {
        cmd(jedis, "ZADD", "z", "1", "a", "2", "b", "2", "c", "3", "d", "4", "e");
        assertEquals(List.of("a", "b", "c", "d", "e"), cmd(jedis, "ZRANGE", "z", "0", "-1"));
        assertEquals(List.of("e", "d"), cmd(jedis, "ZREVRANGE", "z", "0", "1"));
        assertEquals(List.of("b", "2", "c", "2"), cmd(jedis, "ZRANGEBYSCORE", "z", "(1", "(3", "WITHSCORES"));
        assertEquals(List.of("d", "c"), cmd(jedis, "ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "2"));
        assertEquals(List.of("e", "d", "c", "b"), cmd(jedis, "ZREVRANGEBYSCORE", "z", "+inf", "2"));
        assertEquals(List.of(), cmd(jedis, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "2"));
        assertEquals(List.of("c", "d", "e"), cmd(jedis, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "2", "-1"));
        assertEquals(3L, cmd(jedis, "ZCOUNT", "z", "2", "(4"));
        assertEquals(1L, cmd(jedis, "ZRANK", "z", "b"));
        assertEquals(3L, cmd(jedis, "ZREVRANK", "z", "b"));
        assertNull(cmd(jedis, "ZRANK", "z", "zz"));
        assertEquals("ERR min or max is not a float", error(jedis, "ZRANGEBYSCORE", "z", "x", "1"));
        assertEquals("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
                error(jedis, "ZRANGE", "z", "0", "1", "LIMIT", "0", "1"));
        assertEquals("ERR syntax error, WITHSCORES not supported in combination with BYLEX",
                error(jedis, "ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"));

        cmd(jedis, "ZADD", "lex", "0", "alpha", "0", "bar", "0", "cool", "0", "down", "0", "\u00ff");
        assertEquals(List.of("bar", "cool"), cmd(jedis, "ZRANGEBYLEX", "lex", "[bar", "(down"));
        assertEquals(List.of("\u00ff", "down"), cmd(jedis, "ZREVRANGEBYLEX", "lex", "+", "(cool"));
        assertEquals(5L, cmd(jedis, "ZLEXCOUNT", "lex", "-", "+"));
        assertEquals("ERR min or max not valid string range item", error(jedis, "ZLEXCOUNT", "lex", "a", "+"));
        assertEquals(2L, cmd(jedis, "ZREMRANGEBYLEX", "lex", "[alpha", "[bar"));
        assertEquals(List.of("cool", "down", "\u00ff"), cmd(jedis, "ZRANGE", "lex", "0", "-1"));
    }

    @Test
    void removalsDeleteEmptiedKeys(Jedis jedis) {
        cmd(jedis, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d");
        assertEquals(1L, cmd(jedis, "ZREMRANGEBYRANK", "z", "0", "0"));
        assertEquals(2L, cmd(jedis, "ZREMRANGEBYSCORE", "z", "(2", "+inf"));
        assertEquals(1L, cmd(jedis, "ZREM", "z", "b", "zz"));
        assertEquals(0L, cmd(jedis, "EXISTS", "z"));
        assertEquals(0L, cmd(jedis, "ZREM", "z", "a"));
    }

    @Test
    void resp3Shapes(CinnabarServer server) {
        try (Jedis j = resp3(server)) {
            cmd(j, "ZADD", "z", "1", "a", "2.5", "b");
            assertEquals(2.5, cmd(j, "ZSCORE", "z", "b"));
            assertEquals(List.of(List.of("a", 1.0), List.of("b", 2.5)), cmd(j, "ZRANGE", "z", "0", "-1", "WITHSCORES"));
            assertEquals(List.of(List.of("a", 1.0), List.of("b", 2.5)), cmd(j, "ZUNION", "1", "z", "WITHSCORES"));
            assertEquals(List.of("a", 1.0), cmd(j, "ZPOPMIN", "z"));
            cmd(j, "ZADD", "z", "1", "a");
            assertEquals(List.of(List.of("a", 1.0)), cmd(j, "ZPOPMIN", "z", "1"));
            assertEquals(List.of("z", List.of(List.of("b", 2.5))), cmd(j, "ZMPOP", "1", "z", "MAX"));
            assertNull(cmd(j, "ZMPOP", "1", "z", "MAX"));
        }
    }

    @Test
    void resp2FlatWithScores(Jedis jedis) {
        cmd(jedis, "ZADD", "z", "1", "a", "0.1", "b");
        assertEquals(List.of("b", "0.10000000000000001", "a", "1"), cmd(jedis, "ZRANGE", "z", "0", "-1", "WITHSCORES"));
        assertEquals(List.of("b", "0.10000000000000001", "a", "1"), cmd(jedis, "ZPOPMIN", "z", "5"));
    }

    @Test
    void encodingConvertsOneWay(Jedis jedis) {
        for (int i = 0; i < 128; i++) cmd(jedis, "ZADD", "z", String.valueOf(i), "m" + i);
        assertEquals("listpack", cmd(jedis, "OBJECT", "ENCODING", "z"));
        cmd(jedis, "ZADD", "z", "200", "m200");
        assertEquals("skiplist", cmd(jedis, "OBJECT", "ENCODING", "z"));
        cmd(jedis, "ZREMRANGEBYRANK", "z", "0", "-3");
        assertEquals("skiplist", cmd(jedis, "OBJECT", "ENCODING", "z"));
        assertEquals(List.of("m127", "m200"), cmd(jedis, "ZRANGE", "z", "0", "-1"));

        cmd(jedis, "ZADD", "long", "1", "x".repeat(65));
        assertEquals("skiplist", cmd(jedis, "OBJECT", "ENCODING", "long"));
        // Stored results are re-encoded by size, as Redis does.
        assertEquals(2L, cmd(jedis, "ZRANGESTORE", "small", "z", "0", "-1"));
        assertEquals("listpack", cmd(jedis, "OBJECT", "ENCODING", "small"));
        assertEquals(2L, cmd(jedis, "ZUNIONSTORE", "u", "1", "z"));
        assertEquals("listpack", cmd(jedis, "OBJECT", "ENCODING", "u"));

        cmd(jedis, "CONFIG", "SET", "zset-max-listpack-entries", "0");
        try {
            cmd(jedis, "ZADD", "zero", "1", "a");
            assertEquals("skiplist", cmd(jedis, "OBJECT", "ENCODING", "zero"));
        } finally {
            cmd(jedis, "CONFIG", "SET", "zset-max-listpack-entries", "128");
        }
        assertEquals(1L, cmd(jedis, "COPY", "zero", "zero2"));
        assertEquals("skiplist", cmd(jedis, "OBJECT", "ENCODING", "zero2"));
        cmd(jedis, "ZADD", "zero", "2", "b");
        assertEquals(1L, cmd(jedis, "ZCARD", "zero2"), "COPY is deep");
    }

    @Test
    void zscanReturnsEveryMember(Jedis jedis) {
        cmd(jedis, "ZADD", "small", "1", "a", "2", "b");
        ScanResult<Tuple> whole = jedis.zscan("small", "0", new ScanParams().count(1));
        assertEquals("0", whole.getCursor());
        assertEquals(2, whole.getResult().size());

        for (int i = 0; i < 1000; i++) cmd(jedis, "ZADD", "big", String.valueOf(i), "m" + i);
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            ScanResult<Tuple> r = jedis.zscan("big", cursor, new ScanParams().count(5));
            for (Tuple t : r.getResult()) {
                seen.add(t.getElement());
                assertEquals(Double.parseDouble(t.getElement().substring(1)), t.getScore());
            }
            cursor = r.getCursor();
            calls++;
        } while (!cursor.equals("0"));
        assertEquals(1000, seen.size());
        assertTrue(calls > 10, "skiplist scans are incremental");
        assertEquals(List.of("0", List.of()), cmd(jedis, "ZSCAN", "missing", "0"));
        List<?> matched = (List<?>) ((List<?>) cmd(jedis, "ZSCAN", "small", "0", "MATCH", "a")).get(1);
        assertEquals(List.of("a", "1"), matched);
    }

    @Test
    void rangeBoundsAreReadAsCStrings(Jedis jedis) {
        // zslParseRange's strtod and zslParseLexRangeItem's c[1] check stop at a NUL byte; "[a\0" keeps
        // its whole length (found by hand against redis-server 7.0.15).
        cmd(jedis, "ZADD", "z", "1", "a", "2", "b", "3", "c");
        assertEquals(List.of("b", "c"), cmd(jedis, "ZRANGEBYSCORE", "z", "(1\0x", "+inf\0"));
        assertEquals(2L, cmd(jedis, "ZCOUNT", "z", "-inf\0", "2"));
        cmd(jedis, "ZADD", "zl", "0", "a", "0", "b", "0", "c");
        assertEquals(List.of("a", "b", "c"), cmd(jedis, "ZRANGEBYLEX", "zl", "-\0", "+\0x"));
        assertEquals(List.of("b", "c"), cmd(jedis, "ZRANGEBYLEX", "zl", "[a\0", "+"));
    }

    @Test
    void zunionRepliesWithNegativeZeroAsComputed(Jedis jedis) {
        // Redis replies from the skiplist it built (0 * -1 is -0); stored, the listpack reads it back
        // as 0 (diff-fuzz --families spec,spec-multi,spec-script -n 40000 --resp3, seed 238).
        cmd(jedis, "ZADD", "za", "0", "m", "5", "n", "0", "l");
        assertEquals(List.of("n", "-5", "l", "-0", "m", "-0"), cmd(jedis, "ZUNION", "1", "za", "WEIGHTS", "-1", "WITHSCORES"));
        assertEquals(List.of("n", "-5", "l", "-0", "m", "-0"), cmd(jedis, "ZINTER", "1", "za", "WEIGHTS", "-1", "WITHSCORES"));
        assertEquals(3L, cmd(jedis, "ZUNIONSTORE", "zd", "1", "za", "WEIGHTS", "-1"));
        assertEquals(List.of("n", "-5", "l", "0", "m", "0"), cmd(jedis, "ZRANGE", "zd", "0", "-1", "WITHSCORES"));
    }

    @Test
    void zscanRepliesWithTheScoreTextAListpackKeeps(Jedis jedis) {
        // A listpack stores d2string's text (whole numbers up to 2^62 as integers) and ZSCAN replies
        // with it; a skiplist's scores are printed with "%.17Lg" (diff-fuzz --families
        // string2,coll2,keys2,scan -n 30000 --resp3, seed 214).
        cmd(jedis, "ZADD", "small", "1e17", "a", "-3e17", "b", "4611686018427387904", "c", "5e18", "d", "1.5", "e");
        List<?> small = (List<?>) ((List<?>) cmd(jedis, "ZSCAN", "small", "0")).get(1);
        assertEquals(List.of("b", "-300000000000000000", "e", "1.5", "a", "100000000000000000",
                "c", "4611686018427387904", "d", "5e+18"), small);
        cmd(jedis, "CONFIG", "SET", "zset-max-listpack-entries", "0");
        try {
            cmd(jedis, "ZADD", "big", "1e17", "a");
        } finally {
            cmd(jedis, "CONFIG", "SET", "zset-max-listpack-entries", "128");
        }
        assertEquals(List.of("0", List.of("a", "1e+17")), cmd(jedis, "ZSCAN", "big", "0"));
    }

    @Test
    void zscanChecksTheKeyBeforeItsOptions(Jedis jedis) {
        // As Redis: cursor, then key, then options (found by diff-fuzz --families scan, seed 1).
        cmd(jedis, "SET", "str", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "ZSCAN", "str", "0", "NOPE"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "ZSCAN", "str", "0", "COUNT", "0"));
        assertEquals(List.of("0", List.of()), cmd(jedis, "ZSCAN", "missing", "0", "NOVALUES"));
        assertEquals(List.of("0", List.of()), cmd(jedis, "ZSCAN", "missing", "18446744073709551615", "COUNT", "-1"));
        assertEquals("ERR invalid cursor", error(jedis, "ZSCAN", "str", "abc", "NOPE"));
        cmd(jedis, "ZADD", "z", "1", "a");
        assertEquals("ERR syntax error", error(jedis, "ZSCAN", "z", "0", "NOVALUES"));
    }

    @Test
    void algebraWithWeightsAndAggregates(Jedis jedis) {
        cmd(jedis, "ZADD", "z1", "1", "a", "2", "b", "3", "c");
        cmd(jedis, "ZADD", "z2", "1", "b", "2", "c", "3", "d");
        assertEquals(4L, cmd(jedis, "ZUNIONSTORE", "out", "2", "z1", "z2", "WEIGHTS", "2", "3"));
        assertEquals(List.of("a", "2", "b", "7", "d", "9", "c", "12"), cmd(jedis, "ZRANGE", "out", "0", "-1", "WITHSCORES"));
        assertEquals(List.of("b", "1", "c", "2"), cmd(jedis, "ZINTER", "2", "z1", "z2", "AGGREGATE", "MIN", "WITHSCORES"));
        assertEquals(List.of("a"), cmd(jedis, "ZDIFF", "2", "z1", "z2"));
        assertEquals(2L, cmd(jedis, "ZINTERCARD", "2", "z1", "z2"));
        assertEquals(1L, cmd(jedis, "ZINTERCARD", "2", "z1", "z2", "LIMIT", "1"));
        assertEquals(0L, cmd(jedis, "ZINTERSTORE", "out", "2", "z1", "missing"));
        assertEquals(0L, cmd(jedis, "EXISTS", "out"));
        assertEquals("ERR at least 1 input key is needed for 'zunionstore' command",
                error(jedis, "ZUNIONSTORE", "out", "0", "z1"));
        assertEquals("ERR syntax error", error(jedis, "ZUNION", "3", "z1", "z2"));
        assertEquals("ERR weight value is not a float", error(jedis, "ZUNION", "2", "z1", "z2", "WEIGHTS", "1", "x"));
        assertEquals("ERR LIMIT can't be negative", error(jedis, "ZINTERCARD", "1", "z1", "LIMIT", "-1"));
        cmd(jedis, "ZADD", "inf", "inf", "a");
        assertEquals(List.of("a", "0"), cmd(jedis, "ZUNION", "1", "inf", "WEIGHTS", "0", "WITHSCORES"));
    }

    @Test
    void popsAndRandomMembers(Jedis jedis) {
        cmd(jedis, "ZADD", "z", "1", "a", "2", "b", "3", "c");
        assertEquals(List.of("c", "3"), cmd(jedis, "ZPOPMAX", "z"));
        assertEquals(List.of(), cmd(jedis, "ZPOPMIN", "z", "0"));
        assertEquals("ERR value is out of range, must be positive", error(jedis, "ZPOPMIN", "z", "-1"));
        assertEquals(List.of("z", List.of(List.of("a", "1"), List.of("b", "2"))), cmd(jedis, "ZMPOP", "1", "z", "MIN", "COUNT", "10"));
        assertEquals(0L, cmd(jedis, "EXISTS", "z"));
        assertEquals("ERR numkeys should be greater than 0", error(jedis, "ZMPOP", "0", "z", "MIN"));
        assertEquals("ERR count should be greater than 0", error(jedis, "ZMPOP", "1", "z", "MIN", "COUNT", "0"));

        cmd(jedis, "ZADD", "r", "1", "a", "2", "b", "3", "c");
        assertEquals(3, ((List<?>) cmd(jedis, "ZRANDMEMBER", "r", "10")).size());
        assertEquals(20, ((List<?>) cmd(jedis, "ZRANDMEMBER", "r", "-10", "WITHSCORES")).size());
        assertEquals(2, new HashSet<>((List<?>) cmd(jedis, "ZRANDMEMBER", "r", "2")).size());
        assertEquals("ERR value is out of range", error(jedis, "ZRANDMEMBER", "r", "-9223372036854775807", "WITHSCORES"));
    }

    @Test
    void bzpopminIsServedByAnotherClient(CinnabarServer server, Jedis jedis) throws Exception {
        try (Jedis waiter = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<Object> popped = OwnThread.supply(() -> cmd(waiter, "BZPOPMIN", "k1", "k2", "0"));
            long deadline = System.currentTimeMillis() + 5000;
            while (!String.valueOf(cmd(jedis, "INFO", "clients")).contains("blocked_clients:1")) {
                assertTrue(System.currentTimeMillis() < deadline, "client never blocked");
                Thread.sleep(10);
            }
            cmd(jedis, "ZADD", "k2", "5", "x", "1", "y");
            assertEquals(List.of("k2", "y", "1"), popped.get(5, TimeUnit.SECONDS));
            assertEquals(List.of("x"), cmd(jedis, "ZRANGE", "k2", "0", "-1"));
        }
    }

    @Test
    void bzpopTimesOutAndDoesNotBlockInMulti(Jedis jedis) {
        long start = System.nanoTime();
        assertNull(cmd(jedis, "BZPOPMAX", "none", "0.1"));
        assertTrue(System.nanoTime() - start >= 90_000_000L);
        assertNull(cmd(jedis, "BZMPOP", "0.05", "1", "none", "MIN"));
        assertEquals("ERR timeout is negative", error(jedis, "BZPOPMIN", "none", "-1"));
        assertEquals("ERR timeout is not a float or out of range", error(jedis, "BZPOPMIN", "none", "abc"));

        cmd(jedis, "MULTI");
        cmd(jedis, "BZPOPMIN", "none", "0");
        cmd(jedis, "ZADD", "now", "1", "a");
        cmd(jedis, "BZPOPMIN", "now", "0");
        List<?> replies = (List<?>) cmd(jedis, "EXEC");
        assertNull(replies.get(0));
        assertEquals(List.of("now", "a", "1"), replies.get(2));

        cmd(jedis, "SET", "str", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "BZPOPMIN", "str", "0"));
        assertFalse(cmd(jedis, "EXISTS", "now").equals(1L));
    }

    /**
     * Lex ranges on a set whose scores differ (listpack): Redis's walk, not a lexical filter. From
     * its first (last) member in range it takes members until one is past the other end; replies
     * read from a real Redis 7.0.15.
     */
    @Test
    void lexRangesOverMixedScoresFollowRedisWalk(Jedis jedis) {
        jedis.del("z");
        jedis.zadd("z", java.util.Map.of("-a", 0.0, "xzb", 1.0, "-0", 2.0, "-03x", 3.0, "b", 4.0));
        assertEquals(List.of("-a"), jedis.zrangeByLex("z", "-", "(ac"));
        assertEquals(List.of(), jedis.zrangeByLex("z", "-", "(ac", 1, 2));
        assertEquals(List.of("-03x", "-0", "xzb", "-a"), jedis.zrevrangeByLex("z", "(ac", "-"));
        assertEquals(List.of("-0", "xzb"), jedis.zrevrangeByLex("z", "(ac", "-", 1, 2));
        assertEquals(List.of("xzb", "-0", "-03x", "b"), jedis.zrangeByLex("z", "[b", "+"));
        assertEquals(1L, jedis.zlexcount("z", "-", "(ac"));
        assertEquals(List.of("-a"), Raw.cmd(jedis, "ZRANGE", "z", "[-", "[b", "BYLEX"));
        assertEquals(5L, jedis.zremrangeByLex("z", "-", "(y"));
        assertFalse(jedis.exists("z"));
        // Members "bxzycb" (3), "-30" (1), "-70" (2): in score order "-30", "-70", "bxzycb".
        jedis.zadd("z", java.util.Map.of("bxzycb", 3.0, "-30", 1.0, "-70", 2.0));
        assertEquals(List.of("bxzycb"), jedis.zrangeByLex("z", "[a", "[x"));
        assertEquals(List.of("-30", "-70", "bxzycb"), jedis.zrangeByLex("z", "-", "[c"));
        assertEquals(List.of("bxzycb", "-70", "-30"), jedis.zrevrangeByLex("z", "[c", "-"));
        assertEquals(3L, jedis.zlexcount("z", "-", "[c"));
    }
}
