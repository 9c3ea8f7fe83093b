package io.cinnabar.docs;

import io.cinnabar.junit.CinnabarExtension;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** docs/testing.md, "JUnit 5: @RegisterExtension". */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RegisterExtensionExampleIT {
    @RegisterExtension
    static CinnabarExtension cinnabar = new CinnabarExtension()
            .option("hz", "100")
            .flushBetweenTests(false);

    @Test
    @Order(1)
    void firstTestWrites() {
        try (Jedis jedis = new Jedis("127.0.0.1", cinnabar.port())) {
            jedis.set("visits", "1");
        }
    }

    @Test
    @Order(2)
    void laterTestStillSeesIt(Jedis jedis) {
        assertEquals("1", jedis.get("visits"));
        assertEquals("100", jedis.configGet("hz").get("hz"));
    }
}
