package io.cinnabar.spring.app;

import io.cinnabar.CinnabarServer;
import io.cinnabar.spring.AutoConfigureCinnabar;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.Jedis;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole application over Lettuce, Boot's default client, against an embedded Cinnabar. */
@SpringBootTest
@AutoConfigureCinnabar
class LettuceTemplatesIT {
    @Autowired
    StringRedisTemplate redis;
    @Autowired
    RedisTemplate<Object, Object> objects;
    @Autowired
    RedisConnectionFactory connections;
    @Autowired
    CinnabarServer server;

    @Test
    void templatesTalkToTheEmbeddedServer() {
        assertInstanceOf(LettuceConnectionFactory.class, connections);
        redis.opsForValue().set("greeting", "hello", Duration.ofMinutes(5));
        redis.opsForList().rightPushAll("queue", "a", "b");
        objects.opsForValue().set("answer", 42);

        try (Jedis jedis = new Jedis(server.host(), server.port())) {
            assertEquals("hello", jedis.get("greeting"));
            assertTrue(jedis.ttl("greeting") > 0);
            assertEquals(2, jedis.llen("queue"));
        }
        assertEquals(42, objects.opsForValue().get("answer"));
        assertEquals("a", redis.opsForList().leftPop("queue"));
    }
}
