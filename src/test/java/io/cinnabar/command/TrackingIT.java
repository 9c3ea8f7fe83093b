package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.csc.DefaultCache;

import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class TrackingIT {
    private static RespSocket.Push invalidate(Object keys) {
        return new RespSocket.Push(Arrays.asList("invalidate", keys));
    }

    @Test
    void resp3ClientIsToldWhenAKeyItReadChanges(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            assertEquals("OK", c.call("CLIENT", "TRACKING", "ON"));
            jedis.set("k", "1");
            assertEquals("1", c.call("GET", "k"));
            jedis.set("k", "2");
            assertEquals(invalidate(List.of("k")), c.read());
            // Told once: the key is tracked again only when read again.
            jedis.set("k", "3");
            assertEquals("3", c.call("GET", "k"));
            jedis.del("k");
            assertEquals(invalidate(List.of("k")), c.read());
        }
    }

    @Test
    void ownWritesInvalidateAfterTheReplyUnlessNoloop(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON");
            c.call("GET", "mine");
            assertEquals("OK", c.call("SET", "mine", "x"));
            assertEquals(invalidate(List.of("mine")), c.read());
            c.call("CLIENT", "TRACKING", "ON", "NOLOOP");
            c.call("GET", "mine");
            assertEquals("OK", c.call("SET", "mine", "y"));
            assertEquals("PONG", c.call("PING"));
        }
    }

    @Test
    void scriptThatWritesThenReadsItsKeyLeavesItTrackedWithoutTellingItsCaller(Jedis jedis, CinnabarServer server) throws Exception {
        // rueidislock's acquire script: the SET ran before the GET tracked the key, and EVAL itself
        // invalidates nothing (it told the caller at once, and the lock looked lost).
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON", "OPTOUT");
            assertEquals("OK", c.call("EVAL", "local r = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 60000); "
                    + "redis.call('GET', KEYS[1]); return r", "1", "lock", "v"));
            assertEquals("PONG", c.call("PING"));
            jedis.set("lock", "other");
            assertEquals(invalidate(List.of("lock")), c.read());
            // A script's write of a key its caller tracks still tells it, after the reply.
            c.call("GET", "lock");
            assertEquals(1L, c.call("EVAL", "return redis.call('DEL', KEYS[1])", "1", "lock"));
            assertEquals(invalidate(List.of("lock")), c.read());
        }
    }

    @Test
    void resp2ClientsRedirectToASubscriberOfTheInvalidateChannel(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket sub = new RespSocket(server.port()); RespSocket c = new RespSocket(server.port())) {
            long subId = (Long) sub.call("CLIENT", "ID");
            sub.call("SUBSCRIBE", "__redis__:invalidate");
            assertEquals("OK", c.call("CLIENT", "TRACKING", "ON", "REDIRECT", String.valueOf(subId)));
            assertEquals(subId, c.call("CLIENT", "GETREDIR"));
            c.call("GET", "a");
            jedis.set("a", "1");
            assertEquals(Arrays.asList("message", "__redis__:invalidate", List.of("a")), sub.read());
            c.call("GET", "a");
            jedis.flushAll();
            assertEquals(Arrays.asList("message", "__redis__:invalidate", null), sub.read());
            assertTrue(((String) cmd(jedis, "CLIENT", "LIST")).contains("flags=t db=0"));
        }
    }

    @Test
    void broadcastModeSendsChangedKeysUnderItsPrefixesOncePerRound(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            assertEquals("OK", c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:", "PREFIX", "cart:"));
            jedis.mset("user:1", "a", "other", "b");
            assertEquals(invalidate(List.of("user:1")), c.read());
            jedis.set("cart:9", "c");
            assertEquals(invalidate(List.of("cart:9")), c.read());
            assertEquals(new RespSocket.Error("ERR Prefix 'user:x' overlaps with an existing prefix 'user:'. "
                            + "Prefixes for a single client must not overlap."),
                    c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "user:x"));
            // Redis keeps a client's prefixes in a radix tree: listed in byte order, not as given.
            List<?> info = (List<?>) c.call("CLIENT", "TRACKINGINFO");
            assertEquals(Arrays.asList("flags", List.of("on", "bcast"), "redirect", 0L, "prefixes", List.of("cart:", "user:")), info);
        }
    }

    @Test
    void broadcastSendsItsKeysInByteOrderAndIsFlaggedInClientList(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON", "BCAST");
            // One round changes v, then t:b: Redis's radix tree of changed keys sends them sorted.
            cmd(jedis, "EVAL", "redis.call('set', KEYS[1], 1); redis.call('set', KEYS[2], 2)", "2", "v", "t:b");
            assertEquals(invalidate(List.of("t:b", "v")), c.read());
            assertTrue(((String) c.call("CLIENT", "INFO")).contains(" flags=tB "));
        }
    }

    @Test
    void broadcastNoloopClientIsToldOfItsOwnScriptsWrites(Jedis jedis, CinnabarServer server) throws Exception {
        // Redis remembers who changed a key for BCAST by the client that ran the write: a
        // script's own client, not its caller. Its NOLOOP then spares the caller's direct writes only.
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP");
            assertEquals("OK", c.call("SET", "direct", "1"));
            assertEquals("OK", c.call("EVAL", "return redis.call('set', KEYS[1], 'lua')", "1", "scripted"));
            assertEquals(invalidate(List.of("scripted")), c.read());
            assertEquals("PONG", c.call("PING"));
        }
    }

    @Test
    void optinTracksOnlyAfterCachingYes(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON", "OPTIN");
            c.call("GET", "untracked");
            c.call("CLIENT", "CACHING", "YES");
            c.call("GET", "tracked");
            jedis.set("untracked", "1");
            jedis.set("tracked", "1");
            assertEquals(invalidate(List.of("tracked")), c.read());
            assertEquals(new RespSocket.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."),
                    c.call("CLIENT", "CACHING", "NO"));
            assertEquals(new RespSocket.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this "
                    + "client, and then re-enabling it with a different mode."), c.call("CLIENT", "TRACKING", "ON", "OPTOUT"));
        }
        assertEquals("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode "
                + "enabled", Raw.error(() -> cmd(jedis, "CLIENT", "CACHING", "YES")));
        assertEquals("ERR PREFIX option requires BCAST mode to be enabled",
                Raw.error(() -> cmd(jedis, "CLIENT", "TRACKING", "ON", "PREFIX", "a")));
    }

    @Test
    void trackingStatsAndBrokenRedirect(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            RespSocket target = new RespSocket(server.port());
            long targetId = (Long) target.call("CLIENT", "ID");
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON", "REDIRECT", String.valueOf(targetId));
            c.call("MGET", "x", "y");
            String info = jedis.info("all");
            assertTrue(info.contains("tracking_clients:1") && info.contains("tracking_total_keys:2"), info);
            target.call("QUIT");
            target.close();
            jedis.set("x", "1");
            assertEquals(new RespSocket.Push(Arrays.asList("tracking-redir-broken", targetId)), c.read());
        }
    }

    @Test
    void jedisClientSideCacheIsInvalidatedByAnotherClientsWrite(Jedis jedis, CinnabarServer server) {
        var config = DefaultJedisClientConfig.builder().resp3().build();
        try (JedisPooled cached = new JedisPooled(new HostAndPort("127.0.0.1", server.port()), config, new Redis70Cache())) {
            jedis.set("greeting", "hello");
            assertEquals("hello", cached.get("greeting"));
            assertEquals("hello", cached.get("greeting"));
            assertEquals(1, cached.getCache().getSize(), "the value is cached client-side");
            jedis.set("greeting", "bonjour");
            // The invalidation is read by the cached connection before its next command.
            assertEquals("bonjour", cached.get("greeting"));
        }
    }

    /** Jedis caches only for servers from 7.4 on, unless the cache runs in compatibility mode, as a Redis 7.0 user's must. */
    private static final class Redis70Cache extends DefaultCache {
        Redis70Cache() {
            super(100);
        }

        @Override
        public boolean compatibilityMode() {
            return true;
        }
    }

    /** PFCOUNT is a read, yet refreshing the cardinality cached in the HLL string changes it: readers are told. */
    @Test
    void pfcountRefreshingItsCacheInvalidates(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            c.call("CLIENT", "TRACKING", "ON");
            jedis.pfadd("hll", "a");
            c.call("GET", "hll");
            assertEquals(1L, jedis.pfcount("hll"));
            assertEquals(invalidate(List.of("hll")), c.read());
            c.call("GET", "hll");
            assertEquals(1L, jedis.pfcount("hll"), "answered from the cache: nothing changes");
            assertEquals("PONG", c.call("PING"));
            // Leaves nothing tracked for the tests after this one.
            jedis.del("hll");
            assertEquals(invalidate(List.of("hll")), c.read());
        }
    }
}
