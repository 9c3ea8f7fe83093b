package io.cinnabar.docs;

import io.cinnabar.CinnabarServer;
import io.cinnabar.command.testing.DataSnapshot;
import io.cinnabar.command.testing.Fault;
import io.cinnabar.command.testing.RecordedCommand;
import io.cinnabar.command.testing.Verdict;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/testing.md, "Faults", "Recording what clients sent" and "Fixtures, snapshots and reset". */
@CinnabarTest(flushBetweenTests = false)
class TestControlsExampleIT {
    static DataSnapshot fixture;

    @BeforeAll
    static void load(CinnabarServer server) {
        server.loadFixture(Path.of("src/test/resources/fixtures/users.redis"));
        fixture = server.snapshot();
    }

    @BeforeEach
    void fresh(CinnabarServer server) {
        server.restore(fixture);
    }

    @AfterEach
    void noFaults(CinnabarServer server) {
        server.faults().clear();
        server.faults().intercept(null);
    }

    @Test
    void aRetryLoopOutlastsThreeLoadingErrors(CinnabarServer server, Jedis jedis) {
        Fault fault = server.faults().on("HGET").withKey("user:*").times(3)
                .replyError("LOADING Redis is loading the dataset in memory");

        String name = null;
        int attempts = 0;
        while (name == null) {
            attempts++;
            try {
                name = jedis.hget("user:1", "name");
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().startsWith("LOADING"));
            }
        }
        assertEquals("ann", name);
        assertEquals(4, attempts);
    }

    @Test
    void anInterceptorAnswersInsteadOfTheServer(CinnabarServer server, Jedis jedis) {
        server.faults().intercept(cmd -> cmd.name().equals("GET") && cmd.argString(1).equals("secret")
                ? Verdict.bulk("intercepted") : Verdict.proceed());

        assertEquals("intercepted", jedis.get("secret"));
        assertEquals(null, jedis.get("other"));
    }

    @Test
    void theRecorderKeepsWhatClientsSent(CinnabarServer server, Jedis jedis) {
        server.recorder().clear().start();
        jedis.set("a", "1");
        jedis.incr("a");
        server.recorder().stop();

        List<RecordedCommand> sets = server.recorder().commands("SET");
        assertEquals(List.of("a", "1"), sets.get(0).args());
        assertEquals(List.of("SET a 1", "INCR a"),
                server.recorder().commands().stream().map(Object::toString).toList());
    }

    @Test
    void eachTestStartsFromTheFixture(Jedis jedis) {
        assertEquals("ann", jedis.hget("user:1", "name"));
        jedis.del("user:1");
        assertFalse(jedis.exists("user:1"));
    }

    @Test
    void andSoDoesThisOne(Jedis jedis) {
        assertEquals(2, jedis.scard("users"));
        assertTrue(jedis.exists("user:1"));
    }
}
