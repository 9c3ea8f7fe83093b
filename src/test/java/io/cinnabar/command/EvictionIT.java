package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * maxmemory over the running estimate of the data: used_memory follows writes, deletes, expiry
 * and flushes; the eight policies evict what Redis's would; OOM for deny-oom commands; MEMORY
 * STATS/DOCTOR/MALLOC-STATS/PURGE. Time (LRU idle time, LFU decay, TTLs) is moved by hand.
 */
@CinnabarTest(clock = ClockMode.MANUAL, options = {"enable-debug-command", "yes"})
class EvictionIT {
    private static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    private Jedis jedis;

    @org.junit.jupiter.api.BeforeEach
    void freshStats(Jedis jedis) {
        this.jedis = jedis;
        jedis.configResetStat();
        // Whole evictions in the command that needs them, however slow the machine (see the time-limit test).
        jedis.configSet("maxmemory-eviction-tenacity", "100");
    }

    /** The server is the class's: the next test starts from defaults and no data. */
    @AfterEach
    void reset() {
        jedis.configSet("maxmemory", "0");
        jedis.configSet("maxmemory-policy", "noeviction");
        jedis.configSet("maxmemory-samples", "5");
        jedis.configSet("maxmemory-eviction-tenacity", "10");
        jedis.configSet("notify-keyspace-events", "");
        jedis.flushAll();
    }

    private static long used(Jedis jedis) {
        return Long.parseLong(field(jedis.info("memory"), "used_memory"));
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        }
        throw new AssertionError(name + " not in " + info);
    }

    private static String value(int n) {
        return "x".repeat(n);
    }

    @Test
    void usedMemoryFollowsTheDataNotTheHeap(Jedis jedis, ManualClock clock) {
        long empty = used(jedis);
        for (int i = 0; i < 1000; i++) jedis.set("k" + i, value(1000));
        long full = used(jedis);
        // A thousand values of 1000 bytes, plus keys, entries and the table: close to 1 MB.
        assertTrue(full - empty >= 1_000_000 && full - empty < 1_200_000, "grew by " + (full - empty));
        assertEquals(full, used(jedis), "the estimate does not move with garbage");
        long one = jedis.memoryUsage("k1");
        jedis.del("k1");
        assertEquals(full - one, used(jedis));
        // A hash grown in place by HSET is measured again after each write.
        long beforeHash = used(jedis);
        for (int i = 0; i < 500; i++) jedis.hset("h", "f" + i, "v");
        assertEquals(beforeHash + jedis.memoryUsage("h"), used(jedis));
        jedis.hdel("h", "f1");
        assertEquals(beforeHash + jedis.memoryUsage("h"), used(jedis));
        // APPEND grows a string in place; a list grows node by node.
        long beforeAppend = used(jedis);
        long k2 = jedis.memoryUsage("k2");
        jedis.append("k2", value(5000));
        assertEquals(beforeAppend - k2 + jedis.memoryUsage("k2"), used(jedis));
        for (int i = 0; i < 3000; i++) jedis.rpush("l", value(20));
        assertTrue(jedis.memoryUsage("l") > 3000 * 20, "list " + jedis.memoryUsage("l"));
        // Expiry gives the bytes back.
        long beforeTtl = used(jedis);
        long k3 = jedis.memoryUsage("k3");
        jedis.pexpire("k3", 1000);
        clock.advanceMillis(2000);
        assertNull(jedis.get("k3"));
        assertEquals(beforeTtl - k3, used(jedis));
        jedis.flushAll();
        assertTrue(used(jedis) - empty < 70_000, "after FLUSHALL " + (used(jedis) - empty));
    }

    /**
     * A hash, set or sorted set is measured by what it holds, not by its length alone: long
     * values weigh more than short ones, and a small hash is one compact array.
     */
    @Test
    void collectionsWeighWhatTheyHold(Jedis jedis) {
        Map<String, String> tenFields = new java.util.HashMap<>();
        for (int i = 0; i < 10; i++) tenFields.put("f" + i, "v" + i);
        jedis.hset("user:1", tenFields);
        // Redis 7.0 says 144 for this listpack; the estimate was 664 (56 bytes a field) before.
        assertTrue(jedis.memoryUsage("user:1") < 200, "small hash " + jedis.memoryUsage("user:1"));
        Map<String, Double> tenMembers = new java.util.HashMap<>();
        for (int i = 0; i < 10; i++) tenMembers.put("m" + i, (double) i);
        jedis.zadd("small-zset", tenMembers);
        // Redis 7.0 says 136 for this listpack; a flat 96 bytes a member made it 1064.
        assertTrue(jedis.memoryUsage("small-zset") < 600, "small zset " + jedis.memoryUsage("small-zset"));
        for (int i = 0; i < 1000; i++) {
            jedis.hset("hash", "f" + i, value(1000));
            jedis.sadd("set", i + value(1000));
            jedis.zadd("zset", i, i + value(1000));
        }
        Map<String, Long> usages = new java.util.HashMap<>();
        for (String key : List.of("user:1", "hash", "set", "zset")) usages.put(key, jedis.memoryUsage(key));
        for (String key : List.of("hash", "set", "zset")) {
            long usage = usages.get(key);
            assertTrue(usage > 1_000_000 && usage < 1_200_000, key + " " + usage);
        }
        // Loaded back from an RDB, each weighs what it did, and the total is their sum again.
        assertEquals("OK", Raw.cmd(jedis, "DEBUG", "RELOAD"));
        for (String key : usages.keySet()) assertEquals(usages.get(key), jedis.memoryUsage(key), key);
        assertEquals(keysEstimate(jedis), datasetEstimate(jedis));
        for (int i = 0; i < 1000; i++) {
            jedis.hset("hash", "f" + i, "v");
            jedis.srem("set", i + value(1000));
            jedis.zrem("zset", i + value(1000));
        }
        assertTrue(jedis.memoryUsage("hash") < 150_000, "hash " + jedis.memoryUsage("hash"));
        assertEquals(keysEstimate(jedis), datasetEstimate(jedis));
    }

    /**
     * The running total never drifts from the sum of the keys' own estimates, whatever writes
     * changed them (in place, by replacement, by moving them, through scripts and transactions).
     */
    @Test
    void theRunningTotalIsTheSumOfMemoryUsageAfterWritesOfEveryKind(Jedis jedis) {
        jedis.set("s", "abc");
        jedis.append("s", value(100));
        jedis.setrange("s", 300, "z");
        jedis.setbit("bits", 5000, true);
        jedis.incr("n");
        jedis.incrByFloat("f", 1.5);
        jedis.setex("ttl", 100, "v");
        jedis.persist("ttl");
        jedis.expire("s", 100);
        for (int i = 0; i < 300; i++) {
            jedis.hset("h", "f" + i, value(i % 50));
            jedis.rpush("l", value(i % 70));
            jedis.sadd("set", "m" + i);
            jedis.sadd("ints", Integer.toString(i));
            jedis.zadd("z", i, "m" + i);
            jedis.xadd("x", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("k", value(i % 30)));
            jedis.pfadd("hll", "e" + i);
        }
        jedis.hdel("h", "f1", "f2");
        jedis.lpop("l", 10);
        jedis.ltrim("l", 5, 200);
        jedis.lset("l", 3, value(500));
        jedis.linsert("l", redis.clients.jedis.args.ListPosition.BEFORE, value(1), "inserted");
        jedis.lmove("l", "l2", redis.clients.jedis.args.ListDirection.LEFT, redis.clients.jedis.args.ListDirection.RIGHT);
        jedis.srem("set", "m3");
        jedis.spop("set", 5);
        jedis.zincrby("z", 5, "m7");
        jedis.zrem("z", "m8");
        jedis.zremrangeByRank("z", 0, 10);
        jedis.xtrim("x", 100, false);
        jedis.sunionstore("u", "set", "ints");
        jedis.zunionstore("zu", "z", "z");
        jedis.rename("u", "u2");
        jedis.copy("h", "h2", false);
        jedis.move("h2", 1);
        jedis.getDel("n");
        jedis.bitop(redis.clients.jedis.args.BitOP.OR, "bo", "bits", "bits");
        jedis.geoadd("g", 13.36, 38.11, "palermo");
        jedis.sort("l", new redis.clients.jedis.params.SortingParams().alpha().limit(0, 10), "sorted");
        jedis.eval("redis.call('hset', KEYS[1], 'lua', ARGV[1]); redis.call('append', KEYS[2], ARGV[1])", 2, "h", "s", value(40));
        redis.clients.jedis.Transaction t = jedis.multi();
        t.hset("h", "tx", value(10));
        t.rpush("l", "tx");
        t.del("ints");
        t.exec();
        jedis.restore("restored", 0, jedis.dump("z"));
        jedis.set("s2", "x", redis.clients.jedis.params.SetParams.setParams().keepTtl());
        jedis.set("ttl", value(30), redis.clients.jedis.params.SetParams.setParams().ex(50));
        // Writes that change the size of what a hash, set or sorted set holds, in both encodings.
        jedis.hset("small", Map.of("a", "1", "b", "2"));
        jedis.hset("small", "a", value(40));
        jedis.hincrBy("small", "b", 1_000_000_000_000L);
        jedis.hincrByFloat("small", "c", 1.25);
        jedis.hsetnx("small", "d", "x");
        jedis.hset("converted", Map.of("a", "1", "b", value(100)));
        jedis.hset("converted", "a", value(300));
        jedis.hset("h", "f5", value(200));
        jedis.hset("h", "tx", "short");
        jedis.hdel("small", "a", "b", "c", "d");
        jedis.sadd("ints2", "1", "2", "3");
        jedis.sadd("ints2", value(20));
        jedis.smove("set", "ints2", "m10");
        jedis.sinterstore("inter", "set", "set");
        jedis.sdiffstore("diff", "set", "ints2");
        jedis.srem("ints2", "1", value(20));
        jedis.zadd("zs", Map.of("a", 1.0, "b", 2.0, "c", 3.0));
        jedis.zadd("zs", 5, "a");
        jedis.zadd("zs", 1, value(100));
        jedis.zadd("z", 1, value(100));
        jedis.zremrangeByScore("z", 20, 30);
        jedis.zremrangeByLex("zs", "[a", "[b");
        jedis.zpopmin("z", 3);
        jedis.zpopmax("zs");
        jedis.zrangestore("zr", "z", redis.clients.jedis.params.ZRangeParams.zrangeParams(0, 5));
        jedis.zdiffStore("zd", "z", "zr");
        jedis.sort("zd", new redis.clients.jedis.params.SortingParams().alpha());
        assertEquals(keysEstimate(jedis), datasetEstimate(jedis));
        jedis.flushDB();
        jedis.select(1);
        jedis.del("h2");
        jedis.select(0);
        assertEquals(0, keysEstimate(jedis));
        assertEquals(0, datasetEstimate(jedis));
    }

    /** The sum of MEMORY USAGE over every key of databases 0 and 1. */
    private static long keysEstimate(Jedis jedis) {
        long sum = 0;
        for (int db : new int[] {0, 1}) {
            jedis.select(db);
            for (String k : jedis.keys("*")) sum += jedis.memoryUsage(k);
        }
        jedis.select(0);
        return sum;
    }

    /** used_memory_dataset less what the tables of the empty databases hold (MEMORY STATS counts the others'). */
    private static long datasetEstimate(Jedis jedis) {
        String info = jedis.info("memory");
        long emptyDbs = 16 - jedis.info("keyspace").lines().filter(l -> l.startsWith("db")).count();
        return Long.parseLong(field(info, "used_memory_dataset")) - emptyDbs * 32;
    }

    @Test
    void noevictionRefusesDenyOomCommandsButReadsDeletesAndFlushGoOn(Jedis jedis) {
        for (int i = 0; i < 100; i++) jedis.set("k" + i, value(1000));
        jedis.configSet("maxmemory", Long.toString(used(jedis) - 10_000));
        assertEquals(OOM, error(() -> jedis.set("new", "v")));
        assertEquals(OOM, error(() -> jedis.lpush("list", "v")));
        assertEquals(value(1000), jedis.get("k5"));
        assertEquals("PONG", jedis.ping());
        assertEquals(1, jedis.del("k5"));
        assertEquals(99, jedis.dbSize());
        assertEquals("0", field(jedis.info("stats"), "evicted_keys"));
        assertEquals("OK", jedis.flushAll());
        assertEquals("OK", jedis.set("new", "v"));
    }

    @Test
    void allkeysLruEvictsTheIdlestKeys(Jedis jedis, ManualClock clock) {
        jedis.configSet("maxmemory-samples", "64");
        for (int i = 0; i < 200; i++) jedis.set("cold" + i, value(1000));
        clock.advanceMillis(1_000_000);
        for (int i = 0; i < 200; i++) jedis.set("hot" + i, value(1000));
        clock.advanceMillis(100_000);
        for (int i = 0; i < 200; i++) jedis.get("hot" + i);
        assertEquals(0, jedis.objectIdletime("hot7"));
        assertEquals(1100, jedis.objectIdletime("cold7"));
        jedis.configSet("maxmemory-policy", "allkeys-lru");
        jedis.configSet("maxmemory", Long.toString(used(jedis) - 100 * 1100));
        jedis.set("trigger", "v");
        long evicted = Long.parseLong(field(jedis.info("stats"), "evicted_keys"));
        assertTrue(evicted >= 90 && evicted <= 200, "evicted " + evicted);
        for (int i = 0; i < 200; i++) assertTrue(jedis.exists("hot" + i), "hot" + i + " was evicted");
        assertTrue(used(jedis) <= Long.parseLong(jedis.configGet("maxmemory").get("maxmemory")));
        assertEquals("0", field(jedis.info("stats"), "current_eviction_exceeded_time"), "back under the limit");
    }

    @Test
    void allkeysLfuCountsAccessesDecaysThemAndEvictsTheLeastFrequent(Jedis jedis, ManualClock clock) {
        jedis.configSet("maxmemory-policy", "allkeys-lfu");
        jedis.configSet("maxmemory-samples", "64");
        jedis.set("f", "v");
        assertEquals(5, jedis.objectFreq("f"));
        jedis.get("f");
        assertEquals(6, jedis.objectFreq("f"), "from LFU_INIT_VAL an access always counts");
        for (int i = 0; i < 1000; i++) jedis.get("f");
        long freq = jedis.objectFreq("f");
        // lfu-log-factor 10: a thousand hits take the counter to about 18, not to 255.
        assertTrue(freq > 10 && freq < 30, "freq " + freq);
        clock.advanceMillis(5 * 60_000);
        assertEquals(freq - 5, jedis.objectFreq("f"), "one point per lfu-decay-time minute");
        jedis.configSet("lfu-decay-time", "0");
        clock.advanceMillis(60 * 60_000);
        assertEquals(freq, jedis.objectFreq("f"), "lfu-decay-time 0: the stored counter, never decayed");
        // RESTORE FREQ sets the counter.
        byte[] dump = jedis.dump("f");
        jedis.restore("g", 0, dump, redis.clients.jedis.params.RestoreParams.restoreParams().frequency(100));
        assertEquals(100, jedis.objectFreq("g"));

        for (int i = 0; i < 100; i++) {
            jedis.set("often" + i, value(1000));
            for (int j = 0; j < 20; j++) jedis.get("often" + i);
        }
        for (int i = 0; i < 100; i++) jedis.set("rare" + i, value(1000));
        jedis.configSet("maxmemory", Long.toString(used(jedis) - 50 * 1100));
        jedis.set("trigger", "v");
        assertTrue(Long.parseLong(field(jedis.info("stats"), "evicted_keys")) >= 45);
        for (int i = 0; i < 100; i++) assertTrue(jedis.exists("often" + i), "often" + i + " was evicted");
    }

    @Test
    void volatilePoliciesOnlyEvictKeysWithATtl(Jedis jedis) throws InterruptedException {
        for (String policy : List.of("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl")) {
            jedis.flushAll();
            jedis.configSet("maxmemory", "0");
            for (int i = 0; i < 100; i++) jedis.set("keep" + i, value(1000));
            for (int i = 0; i < 100; i++) jedis.setex("ttl" + i, 1000 + i, value(1000));
            jedis.configSet("maxmemory-policy", policy);
            jedis.configSet("maxmemory", Long.toString(used(jedis) - 50 * 1100));
            jedis.set("trigger", "v");
            for (int i = 0; i < 100; i++) assertTrue(jedis.exists("keep" + i), policy + " evicted keep" + i);
            long ttlKeys = jedis.keys("ttl*").size();
            assertTrue(ttlKeys < 55 && ttlKeys > 0, policy + " left " + ttlKeys);
            if (policy.equals("volatile-ttl")) {
                // The soonest to expire go first, as far as sampling finds them: 5 samples per
                // eviction can miss a given key (ttl0 stayed once in CI; 1-6 of the sooner half
                // stayed in 40 runs by hand), so the sooner half must have lost more.
                long soonerLeft = 0, laterLeft = 0;
                for (int i = 0; i < 100; i++) {
                    if (jedis.exists("ttl" + i)) {
                        if (i < 50) soonerLeft++; else laterLeft++;
                    }
                }
                assertTrue(soonerLeft < laterLeft, "volatile-ttl left " + soonerLeft + " of the sooner half, " + laterLeft + " of the later");
                assertTrue(jedis.exists("ttl99"));
            }
            // With no volatile key left to evict, writes are refused. (A command that finds eviction
            // past its time limit still runs, as in Redis, while the rest goes on between commands.)
            jedis.configSet("maxmemory", Long.toString(used(jedis) - ttlKeys * 1100 - 10_000));
            for (int i = 0; i < 500 && !jedis.keys("ttl*").isEmpty(); i++) Thread.sleep(10);
            assertTrue(jedis.keys("ttl*").isEmpty());
            assertEquals(OOM, error(() -> jedis.set("more", value(10))), policy);
        }
    }

    @Test
    void allkeysRandomEvictsAndCountsAndNotifies(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "Ee");
        for (int i = 0; i < 100; i++) jedis.set("k" + i, value(1000));
        try (KeyspaceNotificationsIT.Subscriber sub = new KeyspaceNotificationsIT.Subscriber(at)) {
            jedis.configSet("maxmemory-policy", "allkeys-random");
            jedis.configSet("maxmemory", Long.toString(used(jedis) - 10 * 1100));
            jedis.set("trigger", "v");
            List<String[]> events = sub.untilMarker(jedis);
            long evicted = Long.parseLong(field(jedis.info("stats"), "evicted_keys"));
            assertTrue(evicted >= 10, "evicted " + evicted);
            assertEquals(evicted, events.size());
            for (String[] e : events) {
                assertEquals("__keyevent@0__:evicted", e[0]);
                assertFalse(jedis.exists(e[1]));
            }
        }
    }

    /** With tenacity 0 a command evicts at most 16 keys at a time; the rest goes on between commands. */
    @Test
    void evictionBeyondTheTimeLimitGoesOnBetweenCommands(Jedis jedis) throws InterruptedException {
        for (int i = 0; i < 2000; i++) jedis.set("k" + i, value(100));
        jedis.configSet("maxmemory-eviction-tenacity", "0");
        jedis.configSet("maxmemory-policy", "allkeys-random");
        long limit = used(jedis) - 1000 * 200;
        jedis.configSet("maxmemory", Long.toString(limit));
        for (int i = 0; i < 500 && used(jedis) > limit; i++) Thread.sleep(10);
        assertTrue(used(jedis) <= limit);
        long keys = jedis.dbSize();
        assertTrue(keys < 1100 && keys > 500, "keys " + keys);
    }

    @Test
    void memoryStatsDoctorMallocStatsAndPurge(Jedis jedis) {
        jedis.set("a", "1");
        @SuppressWarnings("unchecked")
        List<Object> stats = (List<Object>) raw(jedis, "MEMORY", "STATS");
        assertEquals("peak.allocated", str(stats.get(0)));
        assertEquals("total.allocated", str(stats.get(2)));
        assertEquals(used(jedis), stats.get(3));
        assertEquals("db.0", str(stats.get(20)));
        assertEquals("overhead.total", str(stats.get(22)));
        assertEquals("fragmentation.bytes", str(stats.get(stats.size() - 2)));
        assertEquals(2 * (27 + 1), stats.size());
        assertEquals("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used "
                + "in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam "
                + "and I will be back to our programming as soon as I finished rebooting.\n", str(raw(jedis, "MEMORY", "DOCTOR")));
        assertEquals("Stats not supported for the current allocator", str(raw(jedis, "MEMORY", "MALLOC-STATS")));
        assertEquals("OK", str(raw(jedis, "MEMORY", "PURGE")));
        Map<String, String> info = Map.of("maxmemory_policy", "noeviction", "maxmemory", "0", "maxmemory_human", "0B");
        String memory = jedis.info("memory");
        info.forEach((k, v) -> assertEquals(v, field(memory, k)));
    }

    private static String str(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    /** An eviction goes to the AOF as a DEL of the key, as Redis's propagateDeletion, and a restart keeps it evicted. */
    @Test
    void evictionsAreAppendedAsDel(@TempDir Path dir) throws Exception {
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("appendonly", "yes").option("appendfsync", "always").build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.set("asdf1", "1");
            j.set("asdf2", "2");
            j.configSet("maxmemory-policy", "allkeys-lru");
            j.configSet("maxmemory", "1");
            for (int i = 0; i < 200 && j.dbSize() > 0; i++) Thread.sleep(10);
            assertEquals(0, j.dbSize());
            j.configSet("maxmemory", "0");
            j.set("after", "3");
            String aof;
            try (Stream<Path> files = Files.list(dir.resolve("appendonlydir"))) {
                Path incr = files.filter(p -> p.toString().endsWith(".incr.aof")).findFirst().orElseThrow();
                aof = Files.readString(incr, StandardCharsets.ISO_8859_1);
            }
            assertTrue(aof.contains("$3\r\nDEL\r\n$5\r\nasdf1\r\n"), aof);
            assertTrue(aof.contains("$3\r\nDEL\r\n$5\r\nasdf2\r\n"), aof);
            assertTrue(aof.indexOf("asdf2\r\n") < aof.indexOf("after"), aof);
        }
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("appendonly", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            // Restarted from the AOF: the evicted keys stay gone.
            assertEquals(java.util.Set.of("after"), j.keys("*"));
        }
    }
}
