package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

@CinnabarTest
class TransactionCommandsIT {
    @Test
    void execRunsQueuedCommandsInOrder(Jedis jedis) {
        Transaction t = jedis.multi();
        t.set("a", "1");
        t.get("a");
        t.set("a", "2");
        List<Object> results = t.exec();
        assertEquals(3, results.size());
        assertEquals("OK", results.get(0));
        assertEquals("1", results.get(1));
        assertEquals("2", jedis.get("a"));
    }

    @Test
    void queuedRepliesAndErrorsInsideExec(Jedis jedis) {
        assertEquals("OK", str(jedis, "MULTI"));
        assertEquals("QUEUED", str(jedis, "SET", "k", "v"));
        assertEquals("QUEUED", str(jedis, "CONFIG", "SET", "hz", "notanumber"));
        assertEquals("QUEUED", str(jedis, "GET", "k"));
        List<?> r = (List<?>) cmd(jedis, "EXEC");
        assertEquals("OK", r.get(0));
        assertEquals(JedisDataException.class, r.get(1).getClass());
        assertEquals("v", r.get(2));
    }

    /**
     * Read from Redis 7.0.15, which checks CLIENT REPLY at each write: OFF queued in a transaction
     * silences only the replies after it (Redisson's skipResult batches read EXEC's header and the
     * replies before it), ON there answers from then on, and a queued SKIP still skips the command
     * after EXEC.
     */
    @Test
    void clientReplyQueuedInATransactionActsWhereItRuns(CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            for (String[] command : new String[][] {{"MULTI"}, {"SET", "a", "1"}, {"CLIENT", "REPLY", "OFF"},
                    {"SET", "b", "2"}, {"EXEC"}, {"GET", "b"}, {"CLIENT", "REPLY", "ON"}, {"PING", "1"},
                    {"CLIENT", "REPLY", "OFF"}, {"MULTI"}, {"SET", "c", "3"}, {"CLIENT", "REPLY", "ON"}, {"PING", "x"},
                    {"EXEC"}, {"PING", "2"},
                    {"MULTI"}, {"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "ON"}, {"EXEC"}, {"PING", "skipped"},
                    {"PING", "3"}}) {
                c.send(command);
            }
            List<String> lines = new java.util.ArrayList<>();
            for (int i = 0; i < 21; i++) lines.add(c.line());
            assertEquals(List.of("+OK", "+QUEUED", "+QUEUED", "+QUEUED", "*3", "+OK", "+OK", "$1", "1",
                    "+OK", "$1", "x", "$1", "2",
                    "+OK", "+QUEUED", "+QUEUED", "*2", "+OK", "$1", "3"), lines);
        }
    }

    /** Read from Redis 7.0.15: a value stored from a queued argument is referenced by EXEC's queue too. */
    @Test
    void objectRefcountCountsTheQueuedArgumentsUntilExecEnds(Jedis jedis) {
        str(jedis, "MULTI");
        for (String[] command : new String[][] {{"SET", "long", "x".repeat(60)}, {"OBJECT", "REFCOUNT", "long"},
                {"MSETNX", "n", "12345"}, {"OBJECT", "REFCOUNT", "n"}, {"SET", "small", "5"}, {"OBJECT", "REFCOUNT", "small"},
                {"SET", "c", "hello"}, {"APPEND", "c", "x"}, {"OBJECT", "REFCOUNT", "c"}}) {
            assertEquals("QUEUED", str(jedis, command[0], Arrays.copyOfRange(command, 1, command.length)));
        }
        assertEquals(List.of("OK", 2L, 1L, 2L, "OK", 2147483647L, "OK", 6L, 1L), cmd(jedis, "EXEC"));
        assertEquals(1L, cmd(jedis, "OBJECT", "REFCOUNT", "long"));
    }

    @Test
    void objectRefcountCountsIncrbyfloatsResultAsItsRewrittenArgumentUntilExecEnds(Jedis jedis) {
        str(jedis, "MULTI");
        for (String[] command : new String[][] {{"SET", "f", "1.5"}, {"INCRBYFLOAT", "f", "2"}, {"OBJECT", "REFCOUNT", "f"},
                {"INCRBYFLOAT", "g", "1e3"}, {"OBJECT", "REFCOUNT", "g"}}) {
            assertEquals("QUEUED", str(jedis, command[0], Arrays.copyOfRange(command, 1, command.length)));
        }
        assertEquals(List.of("OK", "3.5", 2L, "1000", 2L), cmd(jedis, "EXEC"));
        assertEquals(1L, cmd(jedis, "OBJECT", "REFCOUNT", "f"));
    }

    @Test
    void clientInfoInsideExecCountsTheQueuedCommandsNotTheirRewrites(Jedis jedis) {
        // As redis-server 7.0.15: INCRBYFLOAT's rewrite to SET does not add to multi=.
        str(jedis, "MULTI");
        assertEquals("QUEUED", str(jedis, "INCRBYFLOAT", "f", "1"));
        assertEquals("QUEUED", str(jedis, "CLIENT", "INFO"));
        List<?> replies = (List<?>) cmd(jedis, "EXEC");
        assertTrue(String.valueOf(replies.get(1)).contains(" multi=2 "), String.valueOf(replies.get(1)));
    }

    @Test
    void errorsWhileQueueingAbortExec(Jedis jedis) {
        str(jedis, "MULTI");
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "SET", "k"));
        assertEquals("ERR wrong number of arguments for 'set' command", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "NOSUCHCMD"));
        assertEquals("ERR unknown command 'NOSUCHCMD', with args beginning with: ", e.getMessage());
        str(jedis, "SET", "k", "v");
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "EXEC"));
        assertEquals("EXECABORT Transaction discarded because of previous errors.", e.getMessage());
        assertNull(jedis.get("k"));
    }

    @Test
    void stateErrors(Jedis jedis) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "EXEC"));
        assertEquals("ERR EXEC without MULTI", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "DISCARD"));
        assertEquals("ERR DISCARD without MULTI", e.getMessage());
        str(jedis, "MULTI");
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "MULTI"));
        assertEquals("ERR MULTI calls can not be nested", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "WATCH", "x"));
        assertEquals("ERR WATCH inside MULTI is not allowed", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "SHUTDOWN"));
        assertEquals("ERR Command not allowed inside a transaction", e.getMessage());
        // Neither error made the transaction dirty except the rejected SHUTDOWN.
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "EXEC"));
        assertEquals("EXECABORT Transaction discarded because of previous errors.", e.getMessage());
    }

    @Test
    void discardDropsQueue(Jedis jedis) {
        str(jedis, "MULTI");
        str(jedis, "SET", "k", "v");
        assertEquals("OK", str(jedis, "DISCARD"));
        assertNull(jedis.get("k"));
        assertEquals("PONG", jedis.ping());
    }

    @Test
    void watchedKeyModifiedByOtherClientFailsExec(Jedis jedis, CinnabarServer server) {
        jedis.set("w", "1");
        assertEquals("OK", str(jedis, "WATCH", "w"));
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            other.set("w", "2");
        }
        str(jedis, "MULTI");
        str(jedis, "SET", "w", "3");
        assertNull(cmd(jedis, "EXEC"));
        assertEquals("2", jedis.get("w"));
    }

    @Test
    void watchedKeyUntouchedExecSucceeds(Jedis jedis, CinnabarServer server) {
        jedis.set("w", "1");
        str(jedis, "WATCH", "w", "other");
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            other.set("unrelated", "2");
        }
        str(jedis, "MULTI");
        str(jedis, "SET", "w", "3");
        assertEquals(List.of("OK"), cmd(jedis, "EXEC"));
        assertEquals("3", jedis.get("w"));
    }

    @Test
    void unwatchForgetsKeys(Jedis jedis) {
        str(jedis, "WATCH", "w");
        jedis.set("w", "x");
        assertEquals("OK", str(jedis, "UNWATCH"));
        str(jedis, "MULTI");
        str(jedis, "PING");
        assertEquals(List.of("PONG"), cmd(jedis, "EXEC"));
    }

    @Test
    void execUnwatchesEvenOnFailure(Jedis jedis) {
        str(jedis, "WATCH", "w");
        jedis.set("w", "x");
        str(jedis, "MULTI");
        assertNull(cmd(jedis, "EXEC"));
        str(jedis, "MULTI");
        str(jedis, "PING");
        assertEquals(List.of("PONG"), cmd(jedis, "EXEC"));
    }

    @Test
    void flushAndDeleteTouchWatchedKeys(Jedis jedis) {
        jedis.set("w", "1");
        str(jedis, "WATCH", "w");
        jedis.flushDB();
        str(jedis, "MULTI");
        assertNull(cmd(jedis, "EXEC"));

        jedis.set("w", "1");
        str(jedis, "WATCH", "w");
        jedis.del("w");
        str(jedis, "MULTI");
        assertNull(cmd(jedis, "EXEC"));

    }

    @Test
    void flushOfMissingWatchedKeyDoesNotFailExec(Jedis jedis) {
        str(jedis, "WATCH", "absent");
        jedis.flushAll();
        str(jedis, "MULTI");
        str(jedis, "PING");
        assertEquals(List.of("PONG"), cmd(jedis, "EXEC"));
    }

    @Test
    void swapdbTouchesWatchedKeys(Jedis jedis) {
        jedis.select(1);
        jedis.set("w", "db1");
        jedis.select(0);
        str(jedis, "WATCH", "w");
        jedis.swapDB(0, 1);
        str(jedis, "MULTI");
        assertNull(cmd(jedis, "EXEC"));
    }

    /** Runs command from another client between WATCH key and EXEC; true when EXEC still ran. */
    private static boolean execSurvives(Jedis jedis, CinnabarServer server, String key, String... command) {
        assertEquals("OK", str(jedis, "WATCH", key));
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            try {
                cmd(other, command[0], java.util.Arrays.copyOfRange(command, 1, command.length));
            } catch (JedisDataException failed) {
                // a command that failed is part of what is tested
            }
        }
        str(jedis, "MULTI");
        str(jedis, "PING");
        return cmd(jedis, "EXEC") != null;
    }

    @Test
    void writesThatChangeNothingLeaveWatchedKeysAlone(Jedis jedis, CinnabarServer server) {
        jedis.hset("h", "f", "v");
        jedis.sadd("s", "m");
        jedis.zadd("z", 1, "m");
        jedis.rpush("l", "a");
        jedis.set("str", "v");
        assertTrue(execSurvives(jedis, server, "h", "HDEL", "h", "missing"));
        assertTrue(execSurvives(jedis, server, "h", "HSETNX", "h", "f", "other"));
        assertTrue(execSurvives(jedis, server, "s", "SREM", "s", "missing"));
        assertTrue(execSurvives(jedis, server, "z", "ZREM", "z", "missing"));
        assertTrue(execSurvives(jedis, server, "z", "ZADD", "z", "NX", "5", "m"));
        assertTrue(execSurvives(jedis, server, "z", "ZREMRANGEBYSCORE", "z", "10", "20"));
        assertTrue(execSurvives(jedis, server, "l", "LREM", "l", "0", "missing"));
        assertTrue(execSurvives(jedis, server, "l", "LINSERT", "l", "BEFORE", "missing", "x"));
        assertTrue(execSurvives(jedis, server, "str", "SET", "str", "other", "NX"));
        assertTrue(execSurvives(jedis, server, "str", "SETRANGE", "str", "0", ""));
        assertTrue(execSurvives(jedis, server, "str", "MSETNX", "str", "x", "new", "y"));
        assertTrue(execSurvives(jedis, server, "nokey", "DEL", "nokey"));
        assertTrue(execSurvives(jedis, server, "str", "HINCRBY", "str", "f", "1"), "a failed command changed nothing");
        // Nothing above was counted as a change either.
        assertEquals("v", jedis.hget("h", "f"));
        assertEquals("v", jedis.get("str"));
    }

    @Test
    void writesThatChangeTheValueInvalidateWatch(Jedis jedis, CinnabarServer server) {
        jedis.hset("h", "f", "v");
        jedis.hset("h", "g", "v");
        jedis.zadd("z", 1, "m");
        jedis.rpush("l", "a", "b");
        jedis.set("str", "v");
        assertFalse(execSurvives(jedis, server, "h", "HDEL", "h", "f"));
        assertFalse(execSurvives(jedis, server, "h", "HSET", "h", "g", "v"));
        assertFalse(execSurvives(jedis, server, "z", "ZADD", "z", "XX", "5", "m"));
        assertFalse(execSurvives(jedis, server, "l", "LREM", "l", "0", "a"));
        assertFalse(execSurvives(jedis, server, "l", "LTRIM", "l", "0", "-1"));
        assertFalse(execSurvives(jedis, server, "str", "APPEND", "str", "x"));
        assertFalse(execSurvives(jedis, server, "str", "SET", "str", "w", "XX"));
    }

    @Test
    void watchedKeyThatExpiresFailsExec() {
        try (CinnabarServer manual = CinnabarServer.builder().port(0).clock(new io.cinnabar.ManualClock()).build().start();
             Jedis j = new Jedis(manual.host(), manual.port())) {
            watchedKeyThatExpiresFailsExec(j, manual.clock());
        }
    }

    private static void watchedKeyThatExpiresFailsExec(Jedis jedis, io.cinnabar.ManualClock clock) {
        jedis.set("ttl", "v", redis.clients.jedis.params.SetParams.setParams().px(20));
        str(jedis, "WATCH", "ttl");
        clock.advanceMillis(21);
        str(jedis, "MULTI");
        str(jedis, "PING");
        assertNull(cmd(jedis, "EXEC"));
    }

    @Test
    void outOfMemoryRefusesGrowingCommandsAndQueueing(Jedis jedis, CinnabarServer server) {
        try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
            jedis.set("x", "v");
            str(jedis, "MULTI");
            str(jedis, "SET", "y", "1");
            str(jedis, "GET", "x");
            admin.configSet("maxmemory", "1");
            try {
                String oom = "OOM command not allowed when used memory > 'maxmemory'.";
                assertEquals("EXECABORT Transaction discarded because of: " + oom, Raw.error(() -> cmd(jedis, "EXEC")));
                assertEquals(oom, Raw.error(() -> jedis.set("y", "1")));
                assertEquals("v", jedis.get("x"), "reads still run");
                str(jedis, "MULTI");
                assertEquals(oom, Raw.error(() -> cmd(jedis, "GET", "x")), "nothing more is queued");
                assertEquals("OK", str(jedis, "DISCARD"));
                admin.configSet("maxmemory", "0");
                str(jedis, "MULTI");
                str(jedis, "GET", "x");
                admin.configSet("maxmemory", "1");
                assertEquals(List.of("v"), cmd(jedis, "EXEC"), "an EXEC of reads runs");
            } finally {
                admin.configSet("maxmemory", "0");
            }
        }
    }

    @Test
    void rejectedExecAbortsWithReason(Jedis jedis) {
        str(jedis, "MULTI");
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "EXEC", "extra"));
        assertEquals("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command",
                e.getMessage());
        e = assertThrows(JedisDataException.class, () -> cmd(jedis, "EXEC"));
        assertEquals("ERR EXEC without MULTI", e.getMessage());
    }

    @Test
    void lettuceTransactionOverResp3(CinnabarServer server) {
        var client = Lettuce.client(server.port());
        try (var conn = client.connect()) {
            var sync = conn.sync();
            sync.multi();
            sync.set("lk", "v");
            sync.get("lk");
            var result = sync.exec();
            assertEquals(2, result.size());
            assertEquals("v", result.get(1));
        } finally {
            client.shutdown();
        }
    }
}
