package io.cinnabar.docs;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** docs/testing.md, "JUnit 5: @CinnabarTest". */
@CinnabarTest(options = {"notify-keyspace-events", "Ex"})
class CinnabarTestExampleIT {
    @Test
    void addsItem(Jedis jedis) {
        jedis.hset("cart:1", "apple", "2");
        assertEquals("2", jedis.hget("cart:1", "apple"));
    }

    @Test
    void startsEmpty(Jedis jedis) {
        assertFalse(jedis.exists("cart:1"));
    }

    @Test
    void injectsTheServerAndItsAddress(CinnabarServer server, HostAndPort address, Jedis jedis) {
        assertEquals("xE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        try (JedisPooled pool = new JedisPooled(address)) {
            pool.set("port", Integer.toString(server.port()));
            assertEquals(Integer.toString(address.getPort()), jedis.get("port"));
        }
    }
}
