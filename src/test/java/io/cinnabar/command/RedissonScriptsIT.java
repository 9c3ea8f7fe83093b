package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redisson builds its buckets and locks on Lua scripts: two clients against one server. */
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

    /** Unlocking publishes to the lock's channel (PUBLISH): that half waits for pub/sub. */
    @Test
    void lockIsExclusiveAcrossClients() throws Exception {
        RLock mine = first.getLock("lock");
        mine.lock(30, TimeUnit.SECONDS);
        assertTrue(mine.isHeldByCurrentThread());
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
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
}
