package io.cinnabar.command;

import io.cinnabar.CinnabarCluster;
import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.junit.ClockMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MIGRATE from the injected server (on a clock the test moves) to a second Cinnabar server. */
@CinnabarTest(clock = ClockMode.MANUAL)
class MigrateIT {
    private static CinnabarServer target;
    private static Jedis other;

    @BeforeAll
    static void startTarget() {
        target = CinnabarServer.builder().port(0).option("save", "").build().start();
        other = new Jedis("127.0.0.1", target.port());
    }

    @AfterAll
    static void stopTarget() {
        other.close();
        target.close();
    }

    @BeforeEach
    void empty(Jedis jedis) {
        jedis.flushAll();
        other.configSet("requirepass", "");
        other.flushAll();
    }

    private static String port() {
        return Integer.toString(target.port());
    }

    @Test
    void movesAKeyWithItsTtlAndDeletesItHere(Jedis jedis, ManualClock clock) {
        jedis.rpush("list", "a", "b", "c");
        jedis.pexpire("list", 100_000);
        clock.advance(Duration.ofMillis(40_000));
        assertEquals("OK", str(jedis, "MIGRATE", "127.0.0.1", port(), "list", "3", "5000"));
        assertFalse(jedis.exists("list"));
        other.select(3);
        assertEquals(List.of("a", "b", "c"), other.lrange("list", 0, -1));
        long ttl = other.pttl("list");
        assertTrue(ttl > 50_000 && ttl <= 60_000, "what was left of the TTL: " + ttl);
        other.select(0);
        assertEquals("NOKEY", str(jedis, "MIGRATE", "127.0.0.1", port(), "list", "3", "5000"));
    }

    @Test
    void copyKeepsTheKeyAndReplaceOverwritesTheTarget(Jedis jedis) {
        jedis.hset("h", Map.of("f", "1"));
        other.set("h", "old");
        assertEquals("ERR Target instance replied with error: BUSYKEY Target key name already exists.",
                error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", port(), "h", "0", "5000", "COPY")));
        assertEquals("OK", str(jedis, "MIGRATE", "127.0.0.1", port(), "h", "0", "5000", "COPY", "REPLACE"));
        assertTrue(jedis.exists("h"));
        assertEquals(Map.of("f", "1"), other.hgetAll("h"));
    }

    @Test
    void keysMovesTheOnesThatExistAndDeletesOnlyThoseTheTargetTook(Jedis jedis) {
        jedis.mset("a", "1", "b", "2", "c", "3", "d", "4");
        other.mset("c", "busy");
        assertEquals("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string",
                error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", port(), "a", "0", "5000", "KEYS", "a")));
        assertEquals("NOKEY", str(jedis, "MIGRATE", "127.0.0.1", port(), "", "0", "5000", "KEYS", "x", "y"));
        assertEquals("ERR Target instance replied with error: BUSYKEY Target key name already exists.",
                error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", port(), "", "0", "5000", "KEYS", "a", "x", "b", "c", "d")));
        assertEquals(List.of("c"), List.copyOf(jedis.keys("*")), "c was refused, the others moved");
        assertEquals(List.of("1", "2", "busy", "4"), other.mget("a", "b", "c", "d"));
    }

    @Test
    void authAndAuth2AreSentFirstAndTheirErrorsReported(Jedis jedis, ManualClock clock) {
        // A connection cached by an earlier test logged in before the password was set.
        clock.advance(Duration.ofSeconds(11));
        other.configSet("requirepass", "secret");
        try (Jedis admin = new Jedis("127.0.0.1", target.port())) {
            admin.auth("secret");
            jedis.set("k", "v");
            assertTrue(error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "AUTH", "wrong"))
                    .startsWith("ERR Target instance replied with error: WRONGPASS"));
            assertFalse(admin.exists("k"), "the target refused the RESTORE of a client that failed AUTH");
            assertEquals("OK", str(jedis, "MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "AUTH2", "default", "secret"));
            assertEquals("v", admin.get("k"));
            admin.configSet("requirepass", "");
        }
    }

    @Test
    void aRefusedConnectionFailsWhileWritingAsInRedis(Jedis jedis) throws IOException {
        jedis.set("k", "v");
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        assertEquals("IOERR error or timeout writing to target instance",
                error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", Integer.toString(closed), "k", "0", "1000")));
        assertTrue(jedis.exists("k"));
    }

    @Test
    void aTargetThatNeverAnswersCostsTheTimeoutOnly(Jedis jedis) throws IOException {
        jedis.set("k", "v");
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                try (Socket ignored = silent.accept()) {
                    Thread.sleep(5_000);
                } catch (IOException | InterruptedException e) {
                    // The test is over.
                }
            });
            acceptor.start();
            long start = System.nanoTime();
            assertEquals("IOERR error or timeout reading to target instance",
                    error(() -> cmd(jedis, "MIGRATE", "127.0.0.1", Integer.toString(silent.getLocalPort()), "k", "0", "200")));
            assertTrue(System.nanoTime() - start < 4_000_000_000L, "bounded by the timeout, not by the peer");
            acceptor.interrupt();
        }
        assertTrue(jedis.exists("k"));
        assertEquals("v", jedis.get("k"));
    }

    @Test
    void connectionsAreCachedForTenSecondsOfTheServerClock(Jedis jedis, ManualClock clock) {
        jedis.set("k", "v");
        clock.advance(Duration.ofSeconds(60));
        assertTrue(jedis.info().contains("migrate_cached_sockets:0\r\n"));
        assertEquals("OK", str(jedis, "MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "COPY", "REPLACE"));
        assertEquals("OK", str(jedis, "MIGRATE", "127.0.0.1", port(), "k", "0", "5000", "COPY", "REPLACE"));
        assertTrue(jedis.info().contains("migrate_cached_sockets:1\r\n"));
        clock.advance(Duration.ofMillis(10_000));
        assertTrue(jedis.info().contains("migrate_cached_sockets:1\r\n"), "not idle for more than 10 s yet");
        clock.advance(Duration.ofMillis(1));
        assertTrue(jedis.info().contains("migrate_cached_sockets:0\r\n"));
    }

    @Test
    void theKeysAreTheKeyArgumentOrWhatFollowsKeys(Jedis jedis) {
        assertEquals(List.of("k"), cmd(jedis, "COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "10"));
        assertEquals(List.of("a", "b"), cmd(jedis, "COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "10",
                "AUTH2", "keys", "keys", "KEYS", "a", "b"));
    }

    @Test
    void inAClusterKeysGoAsRestoreAskingToTheImportingNode() {
        try (CinnabarCluster cluster = CinnabarCluster.builder().masters(2).start();
             Jedis from = new Jedis("127.0.0.1", cluster.node(0).port());
             Jedis to = new Jedis("127.0.0.1", cluster.node(1).port())) {
            String key = "{k}";
            Jedis owner = cluster.ownerOf(key) == 0 ? from : to;
            Jedis receiver = owner == from ? to : from;
            int receiverPort = owner == from ? cluster.node(1).port() : cluster.node(0).port();
            long slot = (Long) cmd(owner, "CLUSTER", "KEYSLOT", key);
            owner.set(key, "v");
            str(receiver, "CLUSTER", "SETSLOT", Long.toString(slot), "IMPORTING", str(owner, "CLUSTER", "MYID"));
            str(owner, "CLUSTER", "SETSLOT", Long.toString(slot), "MIGRATING", str(receiver, "CLUSTER", "MYID"));
            assertEquals("OK", str(owner, "MIGRATE", "127.0.0.1", Integer.toString(receiverPort), key, "0", "5000"));
            assertEquals(1L, cmd(receiver, "CLUSTER", "COUNTKEYSINSLOT", Long.toString(slot)),
                    "RESTORE-ASKING was let into a slot the node only imports");
            assertEquals(0L, cmd(owner, "CLUSTER", "COUNTKEYSINSLOT", Long.toString(slot)));
        }
    }
}
