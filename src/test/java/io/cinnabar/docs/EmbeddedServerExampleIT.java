package io.cinnabar.docs;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/testing.md, "A server of your own". */
class EmbeddedServerExampleIT {
    @Test
    void startsAndStopsAServer() {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("maxmemory", "64mb").build().start();
             Jedis jedis = new Jedis(server.host(), server.port())) {
            jedis.set("greeting", "hello");
            assertEquals("hello", jedis.get("greeting"));
        }
    }
}
