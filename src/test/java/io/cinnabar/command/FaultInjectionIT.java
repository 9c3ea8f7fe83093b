package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.command.testing.Fault;
import io.cinnabar.command.testing.Verdict;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fault rules and the interceptor, seen from Jedis and raw sockets. */
@CinnabarTest(flushBetweenTests = false)
class FaultInjectionIT {
    private CinnabarServer server;

    /** One server for the class, put back to how it started before each test. */
    @BeforeEach
    void fresh(CinnabarServer server) {
        this.server = server;
        server.reset();
    }

    private Jedis jedis() {
        return new Jedis("127.0.0.1", server.port());
    }

    /** A Jedis that gives up waiting for a reply after ms. */
    private Jedis jedisWithTimeout(int ms) {
        return new Jedis(new HostAndPort("127.0.0.1", server.port()), DefaultJedisClientConfig.builder().socketTimeoutMillis(ms).build());
    }

    @Test
    void aRetryLoopSurvivesThreeLoadingErrors() {
        try (Jedis jedis = jedis()) {
            jedis.set("user:1", "ann");
            Fault fault = server.faults().on("GET").withKey("user:*").times(3)
                    .replyError("LOADING Redis is loading the dataset in memory");
            assertNull(jedis.get("other"), "keys outside the pattern are not touched");
            List<String> errors = new ArrayList<>();
            String value = null;
            for (int attempt = 0; attempt < 10 && value == null; attempt++) {
                try {
                    value = jedis.get("user:1");
                } catch (JedisDataException e) {
                    errors.add(e.getMessage());
                }
            }
            assertEquals("ann", value);
            assertEquals(List.of("LOADING Redis is loading the dataset in memory",
                    "LOADING Redis is loading the dataset in memory", "LOADING Redis is loading the dataset in memory"), errors);
            assertEquals(3, fault.fired());
            assertTrue(server.faults().list().isEmpty(), "an exhausted rule removes itself");
        }
    }

    @Test
    void errorsOfEveryKindReachTheClientWithTheirCode() {
        try (Jedis jedis = jedis()) {
            server.faults().on("GET").replyError("-MOVED 3999 127.0.0.1:6381");
            JedisMovedDataException moved = assertThrows(JedisMovedDataException.class, () -> jedis.get("k"));
            assertEquals(3999, moved.getSlot());
            assertEquals(6381, moved.getTargetNode().getPort());
            server.faults().clear();
            server.faults().on("set").replyError("READONLY You can't write against a read only replica.");
            JedisDataException readonly = assertThrows(JedisDataException.class, () -> jedis.set("k", "v"));
            assertEquals("READONLY You can't write against a read only replica.", readonly.getMessage());
            assertNull(jedis.get("k"), "the refused command did not run");
        }
    }

    @Test
    void theNthCallAndTheClientNameSelectCalls() {
        try (Jedis app = jedis(); Jedis other = jedis()) {
            app.clientSetname("app");
            server.faults().on("INCR").fromClient("app").onCall(2).times(1).replyError("BUSY Redis is busy running a script.");
            assertEquals(1, other.incr("n"));
            assertEquals(2, other.incr("n"));
            assertEquals(3, app.incr("n"));
            assertThrows(JedisDataException.class, () -> app.incr("n"));
            assertEquals(4, app.incr("n"));
        }
    }

    @Test
    void aDelayedReplyTimesTheClientOutWhileOthersAreServed() throws Exception {
        try (Jedis slow = jedisWithTimeout(200); Jedis other = jedis()) {
            server.faults().on("GET").fromClient("slow").delay(Duration.ofSeconds(5));
            slow.clientSetname("slow");
            assertThrows(JedisConnectionException.class, () -> slow.get("k"));
            assertEquals("PONG", other.ping());
            assertEquals("OK", other.set("k", "v"));
        }
    }

    @Test
    void aDelayedCommandRunsLaterAndKeepsItsConnectionsRepliesInOrder() throws Exception {
        try (RespSocket delayed = new RespSocket(server.port()); Jedis other = jedis()) {
            server.faults().on("GET").times(1).delay(Duration.ofMillis(1500));
            delayed.send("GET", "k");
            delayed.send("PING");
            // Served while the GET waits: the GET, run once its delay is over, sees this write.
            assertEquals("OK", other.set("k", "written meanwhile"));
            assertEquals("written meanwhile", delayed.read());
            assertEquals("PONG", delayed.read());
            assertEquals("PONG", delayed.call("PING"));
        }
    }

    @Test
    void aDroppedReplyLeavesTheConnectionSilentButTheCommandRan() throws Exception {
        try (Jedis client = jedisWithTimeout(200); Jedis other = jedis()) {
            server.faults().on("INCR").times(1).drop();
            assertThrows(JedisConnectionException.class, () -> client.incr("n"));
            assertEquals("1", other.get("n"), "the command ran, only its reply was lost");
        }
        try (RespSocket raw = new RespSocket(server.port())) {
            server.faults().on("INCR").times(1).drop();
            assertEquals("PONG", raw.call("PING"));
            raw.send("INCR", "n");
            raw.send("PING");
            raw.timeoutMillis(300);
            assertThrows(SocketTimeoutException.class, raw::read, "nothing answers on that connection any more");
        }
        try (Jedis other = jedis()) {
            assertEquals("2", other.get("n"));
        }
    }

    @Test
    void aClosedConnectionDeliversEarlierRepliesFirstAndDoesNotRunTheCommand() throws Exception {
        server.faults().on("SET").closeConnection();
        try (Jedis jedis = jedis()) {
            assertThrows(JedisConnectionException.class, () -> jedis.set("k", "v"));
        }
        try (RespSocket raw = new RespSocket(server.port())) {
            raw.send("PING");
            raw.send("SET", "k", "v");
            assertEquals("PONG", raw.read());
            assertThrows(IOException.class, raw::read);
        }
        server.faults().clear();
        try (Jedis jedis = jedis()) {
            assertNull(jedis.get("k"));
        }
    }

    @Test
    void theInterceptorSeesEachCommandAndMayAnswerIt() {
        List<String> seen = new ArrayList<>();
        server.faults().intercept(cmd -> {
            seen.add(cmd.clientName() + "@" + cmd.db() + " " + cmd);
            if (cmd.name().equals("GET") && cmd.argString(1).equals("secret")) return Verdict.bulk("intercepted");
            if (cmd.name().equals("CONFIG|GET")) return Verdict.error("NOPERM not here");
            return Verdict.proceed();
        });
        try (Jedis jedis = jedis()) {
            jedis.clientSetname("t");
            jedis.select(2);
            assertEquals("intercepted", jedis.get("secret"));
            assertNull(jedis.get("other"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.configGet("port"));
            assertEquals("NOPERM not here", e.getMessage());
        }
        assertTrue(seen.contains("t@2 GET secret"), seen.toString());
        assertTrue(seen.contains("t@2 CONFIG GET port"), seen.toString());
        server.faults().intercept(null);
        try (Jedis jedis = jedis()) {
            assertNull(jedis.get("secret"));
        }
    }

    @Test
    void anInterceptorThatThrowsAnswersWithAnErrorAndTheConnectionGoesOn() {
        server.faults().intercept(cmd -> {
            if (cmd.name().equals("GET")) throw new IllegalStateException("bug in the test");
            return null;
        });
        try (Jedis jedis = jedis()) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.get("k"));
            assertTrue(e.getMessage().startsWith("ERR command interceptor failed: java.lang.IllegalStateException: bug in the test"),
                    e.getMessage());
            assertEquals("PONG", jedis.ping(), "null lets the command through");
        }
        server.faults().intercept(cmd -> Verdict.answer(reply -> {
            throw new IllegalArgumentException("bad answer");
        }));
        try (Jedis jedis = jedis()) {
            JedisDataException e = assertThrows(JedisDataException.class, jedis::ping);
            assertTrue(e.getMessage().contains("bad answer"), e.getMessage());
        }
    }

    @Test
    void aRuleInsideMultiDoomsTheTransaction() {
        try (Jedis jedis = jedis()) {
            server.faults().on("INCR").replyError("OOM command not allowed when used memory > 'maxmemory'.");
            redis.clients.jedis.Transaction tx = jedis.multi();
            tx.set("a", "1");
            tx.incr("n");
            JedisDataException e = assertThrows(JedisDataException.class, tx::exec);
            assertTrue(e.getMessage().startsWith("EXECABORT"), e.getMessage());
            assertNull(jedis.get("a"));
        }
    }

    @Test
    void noRuleMatchesCinnabarCommandsSoFaultsCanAlwaysBeCleared() {
        Fault all = server.faults().on("*").replyError("ERR everything fails");
        try (Jedis jedis = jedis()) {
            assertThrows(JedisDataException.class, jedis::ping);
        }
        all.remove();
        assertFalse(server.faults().list().contains(all));
        try (Jedis jedis = jedis()) {
            assertEquals("PONG", jedis.ping());
        }
    }

}
