package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.FlushMode;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.StreamEntryID;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * UNLINK, FLUSHALL/FLUSHDB ASYNC and the lazyfree-lazy-* options count in INFO the values Redis
 * 7.0 would free in its background thread: those past 64 allocations (LAZYFREE_THRESHOLD), and
 * every key of a database flushed asynchronously. Nothing is ever pending (see LazyFree).
 */
@CinnabarTest
class LazyFreeIT {
    @BeforeEach
    void reset(Jedis jedis) {
        jedis.flushAll();
        jedis.configSet("lazyfree-lazy-user-del", "no", "lazyfree-lazy-user-flush", "no",
                "lazyfree-lazy-expire", "no", "lazyfree-lazy-server-del", "no");
        jedis.configResetStat();
    }

    private static long freed(Jedis jedis) {
        String info = jedis.info("memory");
        assertEquals("0", field(info, "lazyfree_pending_objects"));
        return Long.parseLong(field(info, "lazyfreed_objects"));
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        throw new AssertionError(name + " missing in " + info);
    }

    /** A set in the hashtable encoding with members members. */
    private static void bigSet(Jedis jedis, String key, int members) {
        String[] m = new String[members];
        for (int i = 0; i < members; i++) m[i] = "m" + i;
        jedis.sadd(key, m);
    }

    @Test
    void unlinkCountsValuesPastTheThresholdOnly(Jedis jedis) {
        bigSet(jedis, "big", 65);
        bigSet(jedis, "small", 64);
        jedis.rpush("list", "a", "b");
        assertEquals(3, jedis.unlink("big", "small", "list", "missing"));
        assertEquals(1, freed(jedis));
        jedis.configResetStat();
        assertEquals(0, freed(jedis));
    }

    @Test
    void delIsLazyOnlyWithLazyfreeLazyUserDel(Jedis jedis) {
        bigSet(jedis, "a", 100);
        jedis.del("a");
        assertEquals(0, freed(jedis));
        jedis.configSet("lazyfree-lazy-user-del", "yes");
        bigSet(jedis, "a", 100);
        jedis.del("a");
        assertEquals(1, freed(jedis));
    }

    @Test
    void asyncFlushesCountTheirKeys(Jedis jedis) {
        for (int i = 0; i < 10; i++) jedis.set("k" + i, "v");
        jedis.flushDB(FlushMode.ASYNC);
        assertEquals(10, freed(jedis));
        jedis.mset("a", "1", "b", "2");
        jedis.flushAll(FlushMode.SYNC);
        assertEquals(10, freed(jedis));
        jedis.configSet("lazyfree-lazy-user-flush", "yes");
        jedis.mset("a", "1", "b", "2");
        jedis.flushAll();
        assertEquals(12, freed(jedis));
        jedis.set("a", "1");
        jedis.flushAll(FlushMode.SYNC);
        assertEquals(12, freed(jedis), "SYNC overrides lazyfree-lazy-user-flush");
    }

    @Test
    void expiryAndOverwritesFollowTheirOptions(CinnabarServer server, Jedis jedis) {
        AtomicLong ms = new AtomicLong(System.currentTimeMillis());
        server.clock(ms::get);
        try {
            bigSet(jedis, "e", 100);
            jedis.pexpire("e", 10);
            ms.addAndGet(20);
            assertEquals(0, jedis.exists("e") ? 1 : 0);
            assertEquals(0, freed(jedis));
            jedis.configSet("lazyfree-lazy-expire", "yes");
            bigSet(jedis, "e", 100);
            jedis.pexpire("e", 10);
            ms.addAndGet(20);
            assertEquals(0, jedis.exists("e") ? 1 : 0);
            assertEquals(1, freed(jedis));

            bigSet(jedis, "o", 100);
            jedis.set("o", "string");
            assertEquals(1, freed(jedis));
            jedis.configSet("lazyfree-lazy-server-del", "yes");
            bigSet(jedis, "o2", 100);
            jedis.set("o2", "string");
            bigSet(jedis, "src", 100);
            bigSet(jedis, "dst", 100);
            jedis.rename("src", "dst");
            assertEquals(3, freed(jedis));
        } finally {
            server.clock(System::currentTimeMillis);
        }
    }

    @Test
    void streamEffortCountsNodesAndGroups(Jedis jedis) {
        jedis.configSet("stream-node-max-entries", "5");
        try {
            for (int i = 0; i < 400; i++) jedis.xadd("s", XAddParams.xAddParams(), Map.of("f", "v" + i));
            jedis.unlink("s");
            assertEquals(1, freed(jedis), "80 nodes");
            jedis.xadd("t", StreamEntryID.NEW_ENTRY, Map.of("a", "b"));
            jedis.xgroupCreate("t", "g", StreamEntryID.LAST_ENTRY, false);
            jedis.unlink("t");
            assertEquals(1, freed(jedis), "one node and one group");
        } finally {
            jedis.configSet("stream-node-max-entries", "100");
        }
    }
}
