package io.cinnabar.spring.app;

import io.cinnabar.spring.AutoConfigureCinnabar;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.test.autoconfigure.DataRedisTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** @AutoConfigureCinnabar empties the server before each test; flushBetweenTests = false keeps the data. */
class FlushBetweenTestsIT {
    @DataRedisTest
    @AutoConfigureCinnabar
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    @org.junit.jupiter.api.Nested
    class Flushed {
        @Autowired
        StringRedisTemplate redis;

        @Test
        @Order(1)
        void writes() {
            redis.opsForValue().set("left", "over");
            assertEquals("over", redis.opsForValue().get("left"));
        }

        @Test
        @Order(2)
        void startsEmpty() {
            assertFalse(redis.hasKey("left"));
        }
    }

    @DataRedisTest
    @AutoConfigureCinnabar(flushBetweenTests = false)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    @org.junit.jupiter.api.Nested
    class Kept {
        @Autowired
        StringRedisTemplate redis;

        @Test
        @Order(1)
        void writes() {
            redis.opsForValue().set("kept", "yes");
        }

        @Test
        @Order(2)
        void seesTheLastTestsData() {
            assertEquals("yes", redis.opsForValue().get("kept"));
        }
    }
}
