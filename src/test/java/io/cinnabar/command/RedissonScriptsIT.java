package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RMapCache;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redisson builds its buckets, locks, rate limiters and map caches on Lua scripts and pub/sub: two clients against one server. */
@CinnabarTest
class RedissonScriptsIT {
    private RedissonClient first, second;

    @BeforeEach
    void connect(CinnabarServer server) {
        first = client(server);
        second = client(server);
    }

    @AfterEach
    void close() {
        first.shutdown();
        second.shutdown();
    }

    private static RedissonClient client(CinnabarServer server) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.port())
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0).setSubscriptionConnectionPoolSize(1);
        config.setCodec(StringCodec.INSTANCE);
        return Redisson.create(config);
    }

    @Test
    void bucketCompareAndSet() {
        RBucket<String> bucket = first.getBucket("bucket");
        bucket.set("a");
        assertTrue(second.<String>getBucket("bucket").compareAndSet("a", "b"));
        assertFalse(bucket.compareAndSet("a", "c"));
        assertEquals("b", bucket.get());
    }

    @Test
    void lockIsExclusiveAcrossClients() throws Exception {
        RLock mine = first.getLock("lock");
        mine.lock(30, TimeUnit.SECONDS);
        assertTrue(mine.isHeldByCurrentThread());
        CompletableFuture<Boolean> other = OwnThread.supply(() -> {
            try {
                return second.getLock("lock").tryLock(0, 30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(other.get(10, TimeUnit.SECONDS), "a lock held by one client is not granted to another");
        RLock seen = second.getLock("lock");
        assertTrue(seen.isLocked());
        assertFalse(seen.isHeldByCurrentThread());
        assertTrue(seen.remainTimeToLive() > 0);
        mine.lock(30, TimeUnit.SECONDS);
        assertEquals(2, mine.getHoldCount(), "re-entrant for its holder");
    }

    /**
     * A client waiting in lock() subscribes to the lock's channel and is woken by the PUBLISH of
     * the holder's unlock: without pub/sub it would wait out the 30 s lease instead.
     */
    @Test
    void unlockHandsTheLockToAWaitingClient(CinnabarServer server) throws Exception {
        RLock mine = first.getLock("handover");
        mine.lock();
        CompletableFuture<Boolean> waiter = OwnThread.supply(() -> {
            RLock theirs = second.getLock("handover");
            theirs.lock();
            boolean held = theirs.isHeldByCurrentThread();
            theirs.unlock();
            return held;
        });
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", server.port())) {
            for (int i = 0; i < 500 && jedis.pubsubNumSub("redisson_lock__channel:{handover}")
                    .getOrDefault("redisson_lock__channel:{handover}", 0L) == 0; i++) {
                Thread.sleep(10);
            }
        }
        mine.unlock();
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "the waiting client got the lock once it was released");
    }

    @Test
    void rateLimiterIsSharedByClients() {
        RRateLimiter limiter = first.getRateLimiter("limiter");
        assertTrue(limiter.trySetRate(RateType.OVERALL, 2, Duration.ofMinutes(1)));
        assertTrue(limiter.tryAcquire());
        assertTrue(second.getRateLimiter("limiter").tryAcquire());
        assertFalse(second.getRateLimiter("limiter").tryAcquire(), "the third permit within the interval is refused");
    }

    @Test
    void mapCacheEntriesExpire() throws Exception {
        RMapCache<String, String> cache = first.getMapCache("sessions");
        cache.put("short", "v", 1, TimeUnit.MILLISECONDS);
        cache.put("long", "w", 1, TimeUnit.HOURS);
        assertEquals("w", second.<String, String>getMapCache("sessions").get("long"));
        // Redisson's scripts compare entry deadlines with the time the client passes, not the
        // server's clock: the only wait on the wall clock left in the tests, 1 ms long.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (cache.get("short") != null && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(null, cache.get("short"));
        assertEquals("w", cache.get("long"));
    }
}
