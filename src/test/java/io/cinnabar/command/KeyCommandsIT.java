package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.SafeEncoder;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.raw;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest(clock = ClockMode.MANUAL, options = {"enable-debug-command", "yes"})
class KeyCommandsIT {
    @Test
    void scanTypeIsComparedUpToANulByte(Jedis jedis) {
        // Redis compares SCAN's TYPE with strcasecmp (found by hand against redis-server 7.0.15).
        jedis.set("s", "1");
        jedis.rpush("l", "1");
        assertEquals(List.of("0", List.of("s")), Raw.cmd(jedis, "SCAN", "0", "TYPE", "string\0x"));
        assertEquals(List.of("0", List.of("l")), Raw.cmd(jedis, "SCAN", "0", "TYPE", "LIST\0"));
    }

    @Test
    void delUnlinkExistsCountOnlyLiveKeys(Jedis jedis) {
        jedis.set("a", "1");
        jedis.set("b", "2");
        jedis.set("c", "3");
        assertEquals(3, jedis.exists("a", "b", "c", "nokey"));
        assertEquals(2, jedis.exists("a", "a"));
        assertEquals(2, jedis.del("a", "b", "nokey"));
        assertEquals(1, jedis.unlink("c", "c"));
        assertEquals(0, jedis.exists("a", "b", "c"));
        assertEquals(0, jedis.dbSize());
    }

    @Test
    void expiredKeysAreInvisibleEverywhere(Jedis jedis, ManualClock clock) {
        raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
        jedis.set("gone", "v");
        jedis.set("live", "v");
        jedis.pexpire("gone", 20);
        // Stale but still stored: every read below must find it gone by itself.
        clock.advanceMillis(21);
        raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
        assertFalse(jedis.exists("gone"));
        assertEquals("none", jedis.type("gone"));
        assertEquals(Set.of("live"), jedis.keys("*"));
        assertEquals(List.of("live"), jedis.scan("0").getResult());
        assertEquals("live", jedis.randomKey());
        assertEquals("ERR no such key", error(() -> jedis.rename("gone", "x")));
        assertEquals(0, jedis.del("gone"));
        assertEquals(0, jedis.touch("gone"));
        assertEquals(-2, jedis.ttl("gone"));
        assertFalse(jedis.copy("gone", "x", false));
        assertEquals(0, jedis.move("gone", 1));
    }

    @Test
    void typeNamesTheValueType(Jedis jedis) {
        jedis.set("s", "v");
        assertEquals("string", jedis.type("s"));
        assertEquals("none", jedis.type("nokey"));
    }

    @Test
    void keysMatchesGlobPatterns(Jedis jedis) {
        for (String k : new String[] {"key_x", "key_y", "key_z", "foo_a", "foo_b", "foo_c", "h*llo", "hallo"}) {
            jedis.set(k, "v");
        }
        assertEquals(Set.of("foo_a", "foo_b", "foo_c"), jedis.keys("foo*"));
        assertEquals(Set.of("key_x", "key_y"), jedis.keys("key_[xy]"));
        assertEquals(Set.of("key_z"), jedis.keys("key_[^xy]"));
        assertEquals(Set.of("h*llo"), jedis.keys("h\\*llo"));
        assertEquals(Set.of("h*llo", "hallo"), jedis.keys("h?llo"));
        assertEquals(8, jedis.keys("*").size());
        assertEquals(Set.of(), jedis.keys("KEY_*"));
        jedis.flushDB();
        jedis.set("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1");
        // exponential without Redis's skipLongerMatches; must answer at once
        assertEquals(Set.of(), jedis.keys("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"));
    }

    @Test
    void scanVisitsEveryKeyAcrossResizes(Jedis jedis) {
        for (int i = 0; i < 1000; i++) jedis.set("k" + i, "v");
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            ScanResult<String> r = jedis.scan(cursor, new ScanParams().count(7));
            seen.addAll(r.getResult());
            cursor = r.getCursor();
            // grow the table mid-iteration: keys present throughout must still all be returned
            if (calls++ == 20) for (int i = 0; i < 2000; i++) jedis.set("extra" + i, "v");
        } while (!cursor.equals("0"));
        for (int i = 0; i < 1000; i++) assertTrue(seen.contains("k" + i), "missing k" + i);
    }

    @Test
    void scanMatchCountAndType(Jedis jedis) {
        for (int i = 0; i < 50; i++) jedis.set("user:" + i, "v");
        for (int i = 0; i < 50; i++) jedis.set("item:" + i, "v");
        Set<String> users = new TreeSet<>();
        String cursor = "0";
        do {
            ScanResult<String> r = jedis.scan(cursor, new ScanParams().match("user:*").count(1000));
            users.addAll(r.getResult());
            cursor = r.getCursor();
        } while (!cursor.equals("0"));
        assertEquals(50, users.size());
        ScanResult<String> strings = jedis.scan("0", new ScanParams().count(1000), "STRING");
        assertEquals(100, strings.getResult().size());
        assertEquals(0, jedis.scan("0", new ScanParams().count(1000), "list").getResult().size());
    }

    @Test
    void scanErrors(Jedis jedis) {
        assertEquals("ERR invalid cursor", error(() -> jedis.scan("abc")));
        assertEquals("ERR invalid cursor", error(() -> jedis.scan(" 0")));
        assertEquals("ERR invalid cursor", error(() -> jedis.scan("18446744073709551616")));
        assertEquals("ERR syntax error", error(() -> jedis.scan("0", new ScanParams().count(0))));
        assertEquals("ERR syntax error", error(() -> raw(jedis, "SCAN", "0", "MATCH")));
        assertEquals("ERR syntax error", error(() -> raw(jedis, "SCAN", "0", "FOO", "bar")));
        assertEquals("ERR value is not an integer or out of range", error(() -> raw(jedis, "SCAN", "0", "COUNT", "x")));
        // strtoul semantics: a sign is allowed and the full unsigned range is a valid cursor
        jedis.set("k", "v");
        assertEquals("0", jedis.scan("+0").getCursor());
        assertEquals("0", jedis.scan("18446744073709551615").getCursor());
    }

    @Test
    void randomKey(Jedis jedis) {
        assertNull(jedis.randomKey());
        jedis.set("foo", "x");
        jedis.set("bar", "y");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200 && seen.size() < 2; i++) seen.add(jedis.randomKey());
        assertEquals(Set.of("foo", "bar"), seen);
    }

    @Test
    void memoryUsageMeasuresAKeyPastItsTtlUntilItIsReclaimed(Jedis jedis, ManualClock clock) {
        // MEMORY USAGE finds the key with dictFind, no expiry check: redis-server 7.0.15 answers 48
        // for SET k 10 PXAT 1 until something reclaims k (found by diff-fuzz seed 548, default families).
        raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
        try {
            raw(jedis, "SET", "k", "10", "PXAT", "1");
            assertTrue(jedis.memoryUsage("k") > 0);
            assertFalse(jedis.exists("k"));
            assertNull(jedis.memoryUsage("k"));
        } finally {
            raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
        }
    }

    @Test
    void randomKeyReclaimsExpiredKeysAndNeverReturnsThem(Jedis jedis, ManualClock clock) {
        jedis.configSet("hz", "1");
        raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
        try {
            for (int i = 0; i < 300; i++) {
                jedis.set("old" + i, "v");
                jedis.pexpire("old" + i, 1);
            }
            jedis.set("live", "v");
            clock.advanceMillis(2);
            assertEquals(301, jedis.dbSize());
            assertEquals("live", jedis.randomKey());
        } finally {
            raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
            jedis.configSet("hz", "10");
        }
    }

    @Test
    void renameMovesValueAndTtl(Jedis jedis) {
        jedis.set("a", "hello");
        jedis.expire("a", 100);
        assertEquals("OK", jedis.rename("a", "b"));
        assertFalse(jedis.exists("a"));
        assertEquals("hello", jedis.get("b"));
        long ttl = jedis.ttl("b");
        assertTrue(ttl > 95 && ttl <= 100, "ttl " + ttl);

        jedis.set("c", "x");
        jedis.set("d", "y");
        jedis.expire("d", 100);
        jedis.rename("c", "d");
        assertEquals(-1, jedis.ttl("d"), "target's TTL is not inherited");
        assertEquals("x", jedis.get("d"));

        assertEquals("ERR no such key", error(() -> jedis.rename("nokey", "x")));
        assertEquals("ERR no such key", error(() -> jedis.rename("nokey", "nokey")));
        assertEquals("OK", jedis.rename("d", "d"));
    }

    @Test
    void renamenx(Jedis jedis) {
        jedis.set("a", "1");
        jedis.set("b", "2");
        assertEquals(0, jedis.renamenx("a", "b"));
        assertEquals(0, jedis.renamenx("a", "a"));
        assertEquals(1, jedis.renamenx("a", "c"));
        assertEquals("1", jedis.get("c"));
        assertEquals("ERR no such key", error(() -> jedis.renamenx("nokey", "x")));
    }

    @Test
    void moveKeepsTtlAndRefusesToOverwrite(Jedis jedis) {
        jedis.set("k", "v");
        jedis.expire("k", 100);
        assertEquals(1, jedis.move("k", 1));
        assertEquals(-2, jedis.ttl("k"));
        jedis.select(1);
        assertEquals("v", jedis.get("k"));
        assertTrue(jedis.ttl("k") > 90);
        jedis.select(0);
        jedis.set("k", "other");
        assertEquals(0, jedis.move("k", 1));
        assertEquals(0, jedis.move("nokey", 1));
        assertEquals("ERR source and destination objects are the same", error(() -> jedis.move("k", 0)));
        assertEquals("ERR DB index is out of range", error(() -> jedis.move("k", 16)));
        assertEquals("ERR DB index is out of range", error(() -> jedis.move("k", -1)));
        assertEquals("ERR value is not an integer or out of range", error(() -> raw(jedis, "MOVE", "k", "x")));
        assertEquals("ERR value is out of range, value must between -2147483648 and 2147483647",
                error(() -> raw(jedis, "MOVE", "k", "99999999999")));
    }

    /** COPY duplicates a shared small integer into a private object (dupStringObject): refcount 1 until overwritten. */
    @Test
    void copyOfASharedIntegerIsPrivate(Jedis jedis) {
        jedis.set("n", "7");
        assertTrue(jedis.copy("n", "c", false));
        assertEquals(Integer.MAX_VALUE, jedis.objectRefcount("n"));
        assertEquals(1, jedis.objectRefcount("c"));
        assertEquals("int", jedis.objectEncoding("c"));
        jedis.rename("c", "r");
        assertEquals(1, jedis.objectRefcount("r"), "RENAME moves the same object");
        jedis.incr("r");
        assertEquals(Integer.MAX_VALUE, jedis.objectRefcount("r"), "INCR stores a shared integer again");
    }

    /** A skiplist sorted set's copy holds the same members, scores and ranks, and changes apart from it. */
    @Test
    void copyOfASkiplistSortedSet(Jedis jedis) {
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 500; i++) jedis.zadd("zsrc", random.nextInt(100), "m" + i); // equal scores order by member
        assertEquals("skiplist", jedis.objectEncoding("zsrc"));
        assertTrue(jedis.copy("zsrc", "zdst", false));
        assertEquals(jedis.zrangeWithScores("zsrc", 0, -1), jedis.zrangeWithScores("zdst", 0, -1));
        for (int i = 0; i < 500; i += 37) {
            assertEquals(jedis.zrank("zsrc", "m" + i), jedis.zrank("zdst", "m" + i));
            assertEquals(jedis.zrange("zsrc", i, i + 3), jedis.zrange("zdst", i, i + 3));
            assertEquals(jedis.zrevrank("zsrc", "m" + i), jedis.zrevrank("zdst", "m" + i));
        }
        jedis.zadd("zdst", -1, "m499");
        assertEquals(0, jedis.zrank("zdst", "m499"));
        assertEquals(List.of("m499"), jedis.zrange("zdst", 0, 0));
        assertEquals(500, jedis.zcard("zdst"));
        assertTrue(jedis.zscore("zsrc", "m499") >= 0);
        jedis.del("zsrc", "zdst");
    }

    @Test
    void copyOptionsAndErrors(Jedis jedis) {
        jedis.set("src", "foobar");
        assertTrue(jedis.copy("src", "dst", false));
        assertEquals("foobar", jedis.get("dst"));
        assertEquals(-1, jedis.ttl("dst"));
        jedis.set("other", "x");
        assertFalse(jedis.copy("other", "dst", false));
        assertTrue(jedis.copy("other", "dst", true));
        assertEquals("x", jedis.get("dst"));
        assertTrue(jedis.copy("src", "dst", 1, false));
        assertFalse(jedis.copy("src", "dst", 1, false));
        jedis.expire("src", 100);
        assertTrue(jedis.copy("src", "withttl", false));
        assertTrue(jedis.ttl("withttl") > 90);
        assertFalse(jedis.copy("nokey", "x", false));
        jedis.set("dst", "changed");
        assertEquals("foobar", jedis.get("src"));

        assertEquals("ERR source and destination objects are the same", error(() -> jedis.copy("src", "src", false)));
        assertEquals("ERR source and destination objects are the same", error(() -> jedis.copy("src", "src", 0, false)));
        assertEquals("ERR DB index is out of range", error(() -> jedis.copy("src", "x", 16, false)));
        assertEquals("ERR value is not an integer or out of range", error(() -> raw(jedis, "COPY", "src", "x", "DB", "nan")));
        assertEquals("ERR syntax error", error(() -> raw(jedis, "COPY", "src", "x", "DB")));
        assertEquals("ERR syntax error", error(() -> raw(jedis, "COPY", "src", "x", "FOO")));
        jedis.select(1);
        assertEquals("foobar", jedis.get("dst"));
    }

    @Test
    void touchCountsExistingKeys(Jedis jedis) {
        jedis.set("a", "1");
        jedis.set("b", "2");
        assertEquals(2, jedis.touch("x", "a", "b", "y"));
    }

    @Test
    void objectEncodingFollowsRedisStringRules(Jedis jedis) {
        jedis.set("int", "12345");
        jedis.set("neg", "-9223372036854775808");
        jedis.set("notint", "012");
        jedis.set("emb", "x".repeat(44));
        jedis.set("raw", "x".repeat(45));
        assertEquals("int", SafeEncoder.encode(jedis.objectEncoding("int".getBytes())));
        assertEquals("int", SafeEncoder.encode(jedis.objectEncoding("neg".getBytes())));
        assertEquals("embstr", SafeEncoder.encode(jedis.objectEncoding("notint".getBytes())));
        assertEquals("embstr", SafeEncoder.encode(jedis.objectEncoding("emb".getBytes())));
        assertEquals("raw", SafeEncoder.encode(jedis.objectEncoding("raw".getBytes())));
        assertNull(jedis.objectEncoding("nokey"));
    }

    @Test
    void objectRefcountIdletimeFreqAndHelp(Jedis jedis) throws InterruptedException {
        jedis.set("small", "1");
        jedis.set("big", "10000");
        jedis.set("s", "abc");
        assertEquals(Integer.MAX_VALUE, jedis.objectRefcount("small"));
        assertEquals(1, jedis.objectRefcount("big"));
        assertEquals(1, jedis.objectRefcount("s"));
        assertNull(jedis.objectRefcount("nokey"));

        assertTrue(jedis.objectIdletime("s") <= 1);
        assertEquals("An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
                + "switching between policies at runtime LRU and LFU data will take some time to adjust.",
                error(() -> jedis.objectFreq("s")).substring(4));
        jedis.configSet("maxmemory-policy", "allkeys-lfu");
        try {
            assertTrue(jedis.objectFreq("s") >= 0);
            assertEquals("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
                    + "switching between policies at runtime LRU and LFU data will take some time to adjust.",
                    error(() -> jedis.objectIdletime("s")));
        } finally {
            jedis.configSet("maxmemory-policy", "noeviction");
        }
        List<String> help = jedis.objectHelp();
        assertEquals("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", help.get(0));
        assertEquals("    Prints this help.", help.get(help.size() - 1));
        assertEquals("ERR unknown subcommand 'FOO'. Try OBJECT HELP.", error(() -> raw(jedis, "OBJECT", "FOO", "k")));
        assertEquals("ERR wrong number of arguments for 'object|encoding' command", error(() -> raw(jedis, "OBJECT", "ENCODING")));
    }

    @Test
    void idletimeGrowsAndOnlyRealAccessesResetIt(Jedis jedis, ManualClock clock) {
        jedis.set("k", "v");
        clock.advanceMillis(2000); // whole seconds: the LRU clock counts seconds, wherever in one the clock started
        jedis.ttl("k");
        jedis.type("k");
        jedis.exists("k");
        jedis.objectEncoding("k");
        assertEquals(2, jedis.objectIdletime("k"), "TTL/TYPE/EXISTS/OBJECT must not touch the key");
        jedis.touch("k");
        assertEquals(0, jedis.objectIdletime("k"));
    }

    @Test
    void resp3Replies(CinnabarServer server) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            assertNull(jedis.randomKey());
            assertNull(jedis.objectEncoding("nokey"));
            jedis.set("k", "v");
            assertEquals("string", jedis.type("k"));
            assertEquals(List.of("k"), jedis.scan("0").getResult());
            assertEquals(Set.of("k"), jedis.keys("*"));
            assertArrayEquals("embstr".getBytes(), jedis.objectEncoding("k".getBytes()));
        }
    }

    @Test
    void lettuceScanAndCopy(CinnabarServer server) {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + server.port());
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> cmd = conn.sync();
            for (int i = 0; i < 30; i++) cmd.set("lk" + i, "v");
            Set<String> seen = new HashSet<>();
            KeyScanCursor<String> cur = cmd.scan(ScanArgs.Builder.limit(5).match("lk1*"));
            seen.addAll(cur.getKeys());
            while (!cur.isFinished()) {
                cur = cmd.scan(cur, ScanArgs.Builder.limit(5).match("lk1*"));
                seen.addAll(cur.getKeys());
            }
            assertEquals(11, seen.size());
            assertTrue(cmd.copy("lk1", "copy"));
            assertEquals("v", cmd.get("copy"));
            assertEquals("string", cmd.type("copy"));
            assertEquals("embstr", cmd.objectEncoding("copy"));
        } finally {
            client.shutdown();
        }
    }
}
