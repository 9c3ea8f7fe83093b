package io.cinnabar.docs;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.junit.ClockMode;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/testing.md, "A clock the test moves". */
@CinnabarTest(clock = ClockMode.MANUAL)
class ClockExampleIT {
    @Test
    void sessionsLastAnHour(Jedis jedis, ManualClock clock) {
        jedis.setex("session:1", 3600, "alice");
        clock.advance(Duration.ofMinutes(59));
        assertTrue(jedis.exists("session:1"));
        clock.advance(Duration.ofMinutes(1));
        assertEquals(0, jedis.pttl("session:1"));
        clock.advance(Duration.ofMillis(1));
        assertFalse(jedis.exists("session:1"));
    }

    @Test
    void aBlockedPopTimesOutWhenTheClockSaysSo(CinnabarServer server, ManualClock clock) throws Exception {
        try (Jedis worker = new Jedis(server.host(), server.port());
             Jedis observer = new Jedis(server.host(), server.port())) {
            CompletableFuture<List<String>> popped = CompletableFuture.supplyAsync(() -> worker.blpop(30, "jobs"));
            while (!observer.info("clients").contains("blocked_clients:1")) Thread.onSpinWait();
            clock.advance(Duration.ofSeconds(30).plusMillis(1));
            assertNull(popped.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void otherLanguagesMoveTheClockWithACommand() {
        try (CinnabarServer server = CinnabarServer.builder().port(0)
                     .option("enable-test-commands", "yes").option("clock", "manual").build().start();
             Jedis jedis = new Jedis(server.host(), server.port())) {
            jedis.set("token", "t", redis.clients.jedis.params.SetParams.setParams().px(500));
            jedis.sendCommand(() -> "CINNABAR".getBytes(), "CLOCK", "ADVANCE", "501");
            assertFalse(jedis.exists("token"));
            assertEquals(Long.class, jedis.sendCommand(() -> "CINNABAR".getBytes(), "CLOCK", "NOW").getClass());
        }
    }
}
