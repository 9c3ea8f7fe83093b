package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import java.time.Duration;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.ExpireArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.ExpiryOption;

import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** On a clock the tests move: TTLs pass without sleeping, and times are exact. */
@CinnabarTest(clock = ClockMode.MANUAL, options = {"enable-debug-command", "yes"})
class ExpireCommandsIT {
    private static void assertBetween(long lo, long hi, long v) {
        assertTrue(v >= lo && v <= hi, v + " not in [" + lo + ", " + hi + "]");
    }

    @Test
    void expireSetsAndResetsTheTtl(Jedis jedis) {
        jedis.set("x", "foobar");
        assertEquals(1, jedis.expire("x", 5));
        assertBetween(4, 5, jedis.ttl("x"));
        assertEquals(1, jedis.expire("x", 10));
        assertEquals(10, jedis.ttl("x"));
        assertEquals(0, jedis.expire("nokey", 10));
        assertEquals("foobar", jedis.get("x"));
    }

    @Test
    void relativeAndAbsoluteFormsAgree(Jedis jedis, ManualClock clock) {
        long nowMs = clock.millis();
        jedis.set("a", "v");
        jedis.set("b", "v");
        jedis.set("c", "v");
        jedis.set("d", "v");
        assertEquals(1, jedis.pexpire("a", 100_000));
        assertEquals(1, jedis.expireAt("b", nowMs / 1000 + 100));
        assertEquals(1, jedis.pexpireAt("c", nowMs + 100_000));
        assertBetween(99_000, 100_000, jedis.pttl("a"));
        assertBetween(98, 100, jedis.ttl("b"));
        assertEquals(nowMs + 100_000, jedis.pexpireTime("c"));
        assertEquals((nowMs + 100_000 + 500) / 1000, jedis.expireTime("c"));
        assertEquals(-1, jedis.ttl("d"));
        assertEquals(-1, jedis.pttl("d"));
        assertEquals(-1, jedis.expireTime("d"));
        assertEquals(-1, jedis.pexpireTime("d"));
        assertEquals(-2, jedis.ttl("nokey"));
        assertEquals(-2, jedis.pttl("nokey"));
        assertEquals(-2, jedis.expireTime("nokey"));
        assertEquals(-2, jedis.pexpireTime("nokey"));
    }

    @Test
    void subSecondExpiry(Jedis jedis, ManualClock clock) {
        jedis.set("x", "v");
        jedis.pexpire("x", 100);
        clock.advance(Duration.ofMillis(99));
        assertEquals("v", jedis.get("x"));
        // As Redis's keyIsExpired (now > when): the key lives through its expiry's own millisecond.
        clock.advance(Duration.ofMillis(1));
        assertEquals("v", jedis.get("x"));
        assertEquals(0, jedis.pttl("x"));
        clock.advance(Duration.ofMillis(1));
        assertNull(jedis.get("x"));
        assertFalse(jedis.exists("x"));
    }

    @Test
    void pastTimeDeletesTheKey(Jedis jedis) {
        jedis.set("a", "v");
        assertEquals(1, jedis.expire("a", -10));
        assertFalse(jedis.exists("a"));
        jedis.set("b", "v");
        assertEquals(1, jedis.expireAt("b", System.currentTimeMillis() / 1000 - 100));
        assertEquals(-2, jedis.ttl("b"));
        jedis.set("c", "v");
        assertEquals(1, jedis.pexpireAt("c", -9223372036854770000L));
        assertEquals(-2, jedis.ttl("c"));
        assertEquals(0, jedis.dbSize());
    }

    @Test
    void nxXxGtLtOptions(Jedis jedis) {
        jedis.set("ttl", "v");
        jedis.expire("ttl", 100);
        jedis.set("plain", "v");

        assertEquals(0, jedis.expire("ttl", 200, ExpiryOption.NX));
        assertEquals(1, jedis.expire("plain", 200, ExpiryOption.NX));
        jedis.persist("plain");

        assertEquals(0, jedis.expire("plain", 200, ExpiryOption.XX));
        assertEquals(-1, jedis.ttl("plain"));
        assertEquals(1, jedis.expire("ttl", 200, ExpiryOption.XX));
        assertBetween(199, 200, jedis.ttl("ttl"));

        assertEquals(0, jedis.expire("ttl", 100, ExpiryOption.GT));
        assertEquals(1, jedis.expire("ttl", 300, ExpiryOption.GT));
        assertEquals(0, jedis.expire("plain", 300, ExpiryOption.GT), "no TTL counts as infinite for GT");

        assertEquals(0, jedis.expire("ttl", 400, ExpiryOption.LT));
        assertEquals(1, jedis.expire("ttl", 50, ExpiryOption.LT));
        assertBetween(49, 50, jedis.ttl("ttl"));
        assertEquals(1, jedis.expire("plain", 100, ExpiryOption.LT), "no TTL counts as infinite for LT");
        assertBetween(99, 100, jedis.ttl("plain"));

        jedis.persist("plain");
        assertEquals(0, (Long) raw(jedis, "EXPIRE", "plain", "100", "LT", "XX"));
        assertEquals(1, (Long) raw(jedis, "EXPIRE", "ttl", "10", "lt", "xx"));

        for (ExpiryOption o : ExpiryOption.values()) assertEquals(0, jedis.expire("nokey", 100, o));
        assertEquals(1, jedis.expire("plain", -10, ExpiryOption.LT));
        assertFalse(jedis.exists("plain"));
    }

    @Test
    void optionErrors(Jedis jedis) {
        jedis.set("foo", "bar");
        assertEquals("ERR GT and LT options at the same time are not compatible",
                error(() -> raw(jedis, "EXPIRE", "foo", "200", "LT", "GT")));
        for (String o : new String[] {"GT", "LT", "XX"}) {
            assertEquals("ERR NX and XX, GT or LT options at the same time are not compatible",
                    error(() -> raw(jedis, "EXPIRE", "foo", "200", "NX", o)));
        }
        assertEquals("ERR Unsupported option AB", error(() -> raw(jedis, "EXPIRE", "foo", "200", "AB")));
        assertEquals("ERR Unsupported option ab", error(() -> raw(jedis, "PEXPIRE", "foo", "200", "XX", "ab")));
        // options are checked before the time argument, as in Redis
        assertEquals("ERR Unsupported option AB", error(() -> raw(jedis, "EXPIRE", "foo", "x", "AB")));
        assertEquals("ERR value is not an integer or out of range", error(() -> raw(jedis, "EXPIRE", "foo", "")));
        assertEquals("ERR wrong number of arguments for 'expire' command", error(() -> raw(jedis, "EXPIRE", "foo")));
    }

    @Test
    void overflowIsAnInvalidExpireTime(Jedis jedis) {
        jedis.set("foo", "bar");
        for (String t : new String[] {"9223370399119966", "9223372036854776", "10000000000000000",
                "18446744073709561", "-9223372036854776", "-9999999999999999"}) {
            assertEquals("ERR invalid expire time in 'expire' command", error(() -> raw(jedis, "EXPIRE", "foo", t)));
        }
        assertEquals("ERR invalid expire time in 'pexpire' command",
                error(() -> raw(jedis, "PEXPIRE", "foo", "9223372036854770000")));
        assertEquals("ERR invalid expire time in 'expireat' command",
                error(() -> raw(jedis, "EXPIREAT", "foo", "9223372036854776")));
        assertEquals(-1, jedis.ttl("foo"));
        assertEquals(1, jedis.pexpireAt("foo", 9223372036854770000L));
        assertEquals(9223372036854770000L, jedis.pexpireTime("foo"));
    }

    @Test
    void persistRemovesTheTtl(Jedis jedis) {
        jedis.set("x", "foo");
        jedis.expire("x", 50);
        assertEquals(50, jedis.ttl("x"));
        assertEquals(1, jedis.persist("x"));
        assertEquals(-1, jedis.ttl("x"));
        assertEquals(0, jedis.persist("x"));
        assertEquals(0, jedis.persist("nokey"));
        assertEquals("foo", jedis.get("x"));
    }

    @Test
    void setDropsTheTtl(Jedis jedis) {
        jedis.set("x", "v");
        jedis.expire("x", 100);
        jedis.set("x", "w");
        assertEquals(-1, jedis.ttl("x"));
    }

    @Test
    void activeExpiryReclaimsKeysNobodyTouches(Jedis jedis, ManualClock clock) {
        for (int i = 0; i < 50; i++) jedis.set("k" + i, "v");
        jedis.set("keep", "v");
        assertEquals(51, jedis.dbSize());
        for (int i = 0; i < 50; i++) jedis.pexpire("k" + i, 100);
        clock.advance(Duration.ofMillis(99));
        assertEquals(51, jedis.dbSize());
        clock.advance(Duration.ofMillis(1));
        assertEquals(51, jedis.dbSize());
        // DBSIZE counts stored keys: only the active cycle can have removed them.
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, jedis.dbSize());
    }

    @Test
    void lazyExpiryOnlyWhenActiveExpiryIsOff(Jedis jedis, ManualClock clock) {
        raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
        try {
            for (int i = 1; i <= 3; i++) {
                jedis.set("key" + i, "a");
                jedis.pexpire("key" + i, 100);
            }
            clock.advance(Duration.ofMillis(400));
            assertEquals(3, jedis.dbSize());
            assertEquals(0, jedis.exists("key1", "key2", "key3"));
            assertEquals(0, jedis.dbSize());
            // EXPIRE must not resurrect a logically expired key
            jedis.set("foo", "bar");
            jedis.pexpire("foo", 50);
            clock.advance(Duration.ofMillis(100));
            assertEquals(0, jedis.expire("foo", 10));
            assertFalse(jedis.exists("foo"));
        } finally {
            raw(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
        }
    }

    @Test
    void resp3AndLettuce(CinnabarServer server) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            jedis.set("k", "v");
            assertEquals(1, jedis.expire("k", 100, ExpiryOption.NX));
            assertEquals(100, jedis.ttl("k"));
            assertEquals("ERR GT and LT options at the same time are not compatible",
                    error(() -> raw(jedis, "EXPIRE", "k", "1", "GT", "LT")));
        }
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + server.port());
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> cmd = conn.sync();
            cmd.set("l", "v");
            assertTrue(cmd.pexpire("l", 100_000, ExpireArgs.Builder.nx()));
            assertFalse(cmd.pexpire("l", 200_000, ExpireArgs.Builder.lt()));
            assertTrue(cmd.pttl("l") > 99_000);
            assertTrue(cmd.persist("l"));
            assertEquals(-1L, cmd.expiretime("l"));
        } finally {
            client.shutdown();
        }
    }

    /**
     * Relative times add the clock as read by each call (Redis 7.0's mstime()), not the time the
     * outermost command started: inside one EXEC, EXPIRE key 100 GT right after EXPIRE key 100
     * sets a later time. The server's clock is driven: every read is one millisecond later.
     */
    @Test
    void relativeTimesReadTheClockPerCall(CinnabarServer server, Jedis jedis, ManualClock clock) {
        java.util.concurrent.atomic.AtomicLong ms = new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());
        server.clock(ms::incrementAndGet);
        try {
            jedis.set("k", "v");
            redis.clients.jedis.Transaction t = jedis.multi();
            t.expire("k", 100);
            t.expire("k", 100, ExpiryOption.GT);
            t.pexpire("k", 100_000, ExpiryOption.GT);
            assertEquals(java.util.List.of(1L, 1L, 1L), t.exec());
            assertTrue(jedis.pexpireTime("k") > ms.get() + 99_000);
        } finally {
            server.clock(clock);
        }
    }
}
