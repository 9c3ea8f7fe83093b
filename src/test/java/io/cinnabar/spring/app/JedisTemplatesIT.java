package io.cinnabar.spring.app;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The application over Jedis, with the server switched on by property instead of
 * {@code @AutoConfigureCinnabar} and given a password: the connection details carry it.
 */
@SpringBootTest(properties = {
        "spring.data.redis.client-type=jedis",
        "cinnabar.embedded.enabled=true",
        "cinnabar.embedded.options.requirepass=s3cret"})
class JedisTemplatesIT {
    @Autowired
    StringRedisTemplate redis;
    @Autowired
    RedisConnectionFactory connections;
    @Autowired
    CinnabarServer server;

    @Test
    void templatesTalkToThePasswordProtectedServer() {
        assertInstanceOf(JedisConnectionFactory.class, connections);
        redis.opsForHash().put("user:1", "name", "Ada");
        assertEquals(1L, redis.opsForSet().add("tags", "x"));

        try (Jedis jedis = new Jedis(server.host(), server.port())) {
            assertThrows(JedisDataException.class, () -> jedis.get("any"));
            jedis.auth("s3cret");
            assertEquals("Ada", jedis.hget("user:1", "name"));
        }
    }
}
