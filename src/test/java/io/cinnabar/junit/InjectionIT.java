package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Every type the extension injects talks to the same server; the clock injected is the server's. */
@CinnabarTest(clock = ClockMode.MANUAL)
class InjectionIT {
    private static Jedis forTheClass;

    @BeforeAll
    static void classLevel(Jedis jedis) {
        // Injected into @BeforeAll: open for the whole class, closed after it.
        forTheClass = jedis;
    }

    @Test
    void everyClientReachesTheSameServer(CinnabarServer server, HostAndPort at, Jedis jedis, JedisPooled pooled,
                                         RedisClient lettuce, StatefulRedisConnection<String, String> strings,
                                         StatefulRedisConnection<byte[], byte[]> bytes) {
        assertEquals(server.port(), at.getPort());
        jedis.set("a", "1");
        pooled.set("b", "2");
        strings.sync().set("c", "3");
        bytes.sync().set("d".getBytes(StandardCharsets.UTF_8), "4".getBytes(StandardCharsets.UTF_8));
        try (StatefulRedisConnection<String, String> own = lettuce.connect()) {
            own.sync().set("e", "5");
        }
        assertEquals(java.util.List.of("1", "2", "3", "4", "5"), forTheClass.mget("a", "b", "c", "d", "e"));
        assertArrayEquals("1".getBytes(StandardCharsets.UTF_8), bytes.sync().get("a".getBytes(StandardCharsets.UTF_8)));
        assertEquals("cinnabar-junit", jedis.clientGetname());
    }

    @Test
    void theInjectedClockIsTheServers(CinnabarServer server, ManualClock clock, Jedis jedis) {
        assertSame(server.clock(), clock);
        jedis.psetex("k", 10_000, "v");
        clock.advance(Duration.ofSeconds(10).plusMillis(1));
        assertEquals(0, jedis.dbSize());
    }

}
