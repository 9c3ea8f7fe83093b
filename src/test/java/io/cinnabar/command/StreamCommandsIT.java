package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.StreamPendingSummary;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stream commands through Jedis; expected replies and errors were read from a real Redis 7.0.15. */
@CinnabarTest
class StreamCommandsIT {
    private static String error(Jedis jedis, String name, String... args) {
        return Raw.error(() -> cmd(jedis, name, args));
    }

    @BeforeEach
    void clean(Jedis jedis) {
        jedis.flushAll();
    }

    /** Waits (without sleeping for time to pass) until the server counts n blocked clients. */
    static void awaitBlocked(Jedis jedis, int n) {
        for (int i = 0; i < 10_000; i++) {
            if (jedis.info("clients").contains("blocked_clients:" + n + "\r")) return;
            Thread.onSpinWait();
        }
        throw new AssertionError("never saw " + n + " blocked clients: " + jedis.info("clients"));
    }

    @Test
    void idsAndXaddTokensAreReadUpToANulByte(Jedis jedis) {
        // Redis reads IDs as C strings and tests XADD's "*", "~" and "=" by their first two bytes
        // (found by hand against redis-server 7.0.15).
        assertEquals("5-1", cmd(jedis, "XADD", "x", "5-1\0x", "a", "b"));
        assertEquals("6-0", cmd(jedis, "XADD", "x", "6\0", "a", "b"));
        assertEquals("7-0", cmd(jedis, "XADD", "x", "7-*\0", "a", "b"));
        assertEquals("8-1", cmd(jedis, "XADD", "x", "MAXLEN", "~\0", "5", "8-1", "a", "b"));
        assertEquals(3, ((List<?>) cmd(jedis, "XRANGE", "x", "(5-1\0", "+\0")).size());
        assertEquals(1L, cmd(jedis, "XDEL", "x", "5-1\0y"));
        assertTrue(((String) cmd(jedis, "XADD", "x", "*\0", "a", "b")).endsWith("-0"));
        // "$" and ">" are compared with strcmp.
        assertEquals("OK", cmd(jedis, "XGROUP", "CREATE", "x", "g", "0\0x"));
        assertEquals("OK", cmd(jedis, "XGROUP", "CREATE", "x", "g1", "$\0"));
        List<?> read = (List<?>) cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "x", ">\0");
        assertEquals(1, read.size());
        assertEquals("OK", cmd(jedis, "XGROUP", "SETID", "x", "g", "$\0"));
    }

    @Test
    void xaddIdsAndErrors(Jedis jedis) {
        assertEquals("1-1", cmd(jedis, "XADD", "s", "1-1", "a", "1"));
        assertEquals("1-2", cmd(jedis, "XADD", "s", "1-*", "a", "2"));
        assertEquals("5-0", cmd(jedis, "XADD", "s", "5", "a", "3"));
        assertEquals("ERR The ID specified in XADD is equal or smaller than the target stream top item",
                error(jedis, "XADD", "s", "5-0", "a", "4"));
        assertEquals("ERR The ID specified in XADD must be greater than 0-0", error(jedis, "XADD", "t", "0-0", "a", "1"));
        assertEquals("ERR Invalid stream ID specified as stream command argument", error(jedis, "XADD", "s", "x-1", "a", "1"));
        assertEquals("ERR wrong number of arguments for 'xadd' command", error(jedis, "XADD", "s", "*", "a"));
        assertEquals("ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
                error(jedis, "XADD", "s", "MAXLEN", "1", "MINID", "1", "*", "a", "1"));
        assertEquals("ERR syntax error, LIMIT cannot be used without the special ~ option",
                error(jedis, "XADD", "s", "MAXLEN", "1", "LIMIT", "10", "*", "a", "1"));
        assertNull(cmd(jedis, "XADD", "none", "NOMKSTREAM", "*", "a", "1"));
        assertEquals(0L, cmd(jedis, "EXISTS", "none"));
        StreamEntryID auto = jedis.xadd("s", XAddParams.xAddParams(), Map.of("f", "v"));
        assertTrue(auto.getTime() > 5);
        assertEquals(4L, jedis.xlen("s"));
        assertEquals("stream", jedis.type("s"));
        assertEquals("stream", jedis.objectEncoding("s"));
        jedis.set("str", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", error(jedis, "XADD", "str", "*", "a", "1"));
        assertEquals(List.of("s"), jedis.scan("0", new redis.clients.jedis.params.ScanParams(), "stream").getResult());
    }

    @Test
    void rangesWithExclusiveBoundsAndCount(Jedis jedis) {
        for (int i = 1; i <= 5; i++) cmd(jedis, "XADD", "s", i + "-0", "n", String.valueOf(i));
        List<StreamEntry> all = jedis.xrange("s", "-", "+");
        assertEquals(5, all.size());
        assertEquals(Map.of("n", "3"), all.get(2).getFields());
        assertEquals(List.of(List.of("2-0", List.of("n", "2")), List.of("3-0", List.of("n", "3"))),
                cmd(jedis, "XRANGE", "s", "(1-0", "(4-0"));
        assertEquals(List.of(List.of("5-0", List.of("n", "5")), List.of("4-0", List.of("n", "4"))),
                cmd(jedis, "XREVRANGE", "s", "+", "-", "COUNT", "2"));
        assertNull(cmd(jedis, "XRANGE", "s", "-", "+", "COUNT", "0"));
        assertEquals(List.of(), cmd(jedis, "XRANGE", "nokey", "-", "+"));
        assertEquals("ERR invalid start ID for the interval",
                error(jedis, "XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"));
        assertEquals("ERR Invalid stream ID specified as stream command argument", error(jedis, "XRANGE", "s", "(-", "+"));
        assertEquals(2L, jedis.xdel("s", new StreamEntryID(2, 0), new StreamEntryID(9, 0), new StreamEntryID(3, 0)));
        assertEquals(List.of("1-0", "4-0", "5-0"), jedis.xrange("s", "-", "+").stream().map(e -> e.getID().toString()).toList());
        assertEquals(2L, cmd(jedis, "XTRIM", "s", "MAXLEN", "=", "1"));
        assertEquals(List.of("5-0"), jedis.xrange("s", "-", "+").stream().map(e -> e.getID().toString()).toList());
        assertEquals("ERR syntax error, XTRIM must be called with a trimming strategy", error(jedis, "XTRIM", "s", "LIMIT", "0"));
    }

    @Test
    void approximateTrimKeepsWholeNodesAndNodeSizeIsConfigurable(Jedis jedis) {
        jedis.configSet("stream-node-max-entries", "10");
        for (int i = 1; i <= 35; i++) cmd(jedis, "XADD", "s", i + "-0", "n", String.valueOf(i));
        assertEquals(4L, ((List<?>) cmd(jedis, "XINFO", "STREAM", "s")).get(3));
        // ~ only drops whole nodes of 10: 35 entries trimmed towards 12 keep 15.
        assertEquals(20L, cmd(jedis, "XTRIM", "s", "MAXLEN", "~", "12"));
        assertEquals(15L, jedis.xlen("s"));
        assertEquals(5L, cmd(jedis, "XTRIM", "s", "MINID", "26"));
        assertEquals("26-0", jedis.xrange("s", "-", "+", 1).get(0).getID().toString());
        assertEquals("10", jedis.configGet("stream-node-max-entries").get("stream-node-max-entries"));
    }

    @Test
    void consumerGroupsThroughJedis(Jedis jedis) {
        for (int i = 1; i <= 3; i++) cmd(jedis, "XADD", "s", i + "-0", "n", String.valueOf(i));
        assertEquals("OK", jedis.xgroupCreate("s", "g", new StreamEntryID(0, 0), false));
        assertEquals("BUSYGROUP Consumer Group name already exists", error(jedis, "XGROUP", "CREATE", "s", "g", "$"));
        assertEquals("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
                + "the MKSTREAM option to create an empty stream automatically.", error(jedis, "XGROUP", "CREATE", "x", "g", "$"));
        List<Map.Entry<String, List<StreamEntry>>> read = jedis.xreadGroup("g", "alice",
                XReadGroupParams.xReadGroupParams().count(2), Map.of("s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
        assertEquals(2, read.get(0).getValue().size());
        StreamPendingSummary summary = jedis.xpending("s", "g");
        assertEquals(2L, summary.getTotal());
        assertEquals(Map.of("alice", 2L), summary.getConsumerMessageCount());
        // History: the consumer's own pending entries, from the given ID on.
        assertEquals(List.of(List.of("s", List.of(List.of("2-0", List.of("n", "2"))))),
                cmd(jedis, "XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "1-0"));
        assertEquals(1L, jedis.xack("s", "g", new StreamEntryID(1, 0), new StreamEntryID(3, 0)));
        List<?> claimed = (List<?>) cmd(jedis, "XCLAIM", "s", "g", "bob", "0", "2-0", "JUSTID");
        assertEquals(List.of("2-0"), claimed);
        List<?> pending = (List<?>) ((List<?>) cmd(jedis, "XPENDING", "s", "g", "-", "+", "10")).get(0);
        assertEquals("bob", pending.get(1));
        assertEquals(2L, pending.get(3), "the history read counts as a delivery, XCLAIM JUSTID does not");
        assertEquals("NOGROUP No such key 'x' or consumer group 'g' in XREADGROUP with GROUP option",
                error(jedis, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"));
        assertEquals("NOGROUP No such key 's' or consumer group 'nope'", error(jedis, "XPENDING", "s", "nope"));
        assertEquals("NOGROUP No such consumer group 'nope' for key name 's'",
                error(jedis, "XGROUP", "CREATECONSUMER", "s", "nope", "c"));
        assertEquals(List.of("0-0", List.of(List.of("2-0", List.of("n", "2"))), List.of()),
                cmd(jedis, "XAUTOCLAIM", "s", "g", "carol", "0", "0-0"));
        jedis.xdel("s", new StreamEntryID(2, 0));
        assertEquals(List.of("0-0", List.of(), List.of("2-0")), cmd(jedis, "XAUTOCLAIM", "s", "g", "dave", "0", "0-0"));
        assertEquals(0L, jedis.xpending("s", "g").getTotal());
        assertEquals(1L, jedis.xgroupDestroy("s", "g"));
        assertEquals(0L, jedis.xgroupDestroy("s", "g"));
    }

    /**
     * Entries delivered anew after XGROUP SETID moved the group back are still pending for their
     * first consumer: they pass to the new one, delivery count 1 (as redis-server 7.0.15 does).
     */
    @Test
    void redeliveryAfterSetidBackMovesPendingEntries(Jedis jedis) {
        for (int i = 1; i <= 3; i++) cmd(jedis, "XADD", "s", i + "-0", "a", String.valueOf(i));
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        cmd(jedis, "XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">");
        cmd(jedis, "XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0");
        cmd(jedis, "XGROUP", "SETID", "s", "g", "0");
        cmd(jedis, "XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">");
        StreamPendingSummary summary = jedis.xpending("s", "g");
        assertEquals(3, summary.getTotal());
        assertEquals(Map.of("alice", 1L, "bob", 2L), summary.getConsumerMessageCount());
        List<?> pending = (List<?>) cmd(jedis, "XPENDING", "s", "g", "-", "+", "10");
        assertEquals(List.of("1-0", "bob", 1L), List.of(((List<?>) pending.get(0)).get(0), ((List<?>) pending.get(0)).get(1), ((List<?>) pending.get(0)).get(3)));
        assertEquals(List.of("3-0", "alice", 2L), List.of(((List<?>) pending.get(2)).get(0), ((List<?>) pending.get(2)).get(1), ((List<?>) pending.get(2)).get(3)));
    }

    /** XINFO STREAM's radix-tree-nodes after each change, as redis-server 7.0.15 gives them for the same commands. */
    @Test
    void radixTreeNodesFollowTheNodes(Jedis jedis) {
        jedis.configSet("stream-node-max-entries", "2");
        List<Long> seen = new java.util.ArrayList<>();
        for (long ms : new long[] {1, 2, 3, 5, 300, 301, 70000, 70001, 70002, 1L << 33, (1L << 33) + 5, 1L << 40, (1L << 40) + 255, (1L << 40) + 256}) {
            cmd(jedis, "XADD", "rs", ms + "-0", "f", "v");
            seen.add(radixTreeNodes(jedis));
        }
        cmd(jedis, "XTRIM", "rs", "MINID", "4");
        seen.add(radixTreeNodes(jedis));
        cmd(jedis, "XDEL", "rs", "70000-0", "70001-0");
        seen.add(radixTreeNodes(jedis));
        cmd(jedis, "XTRIM", "rs", "MAXLEN", "3");
        seen.add(radixTreeNodes(jedis));
        assertEquals(List.of(2L, 2L, 6L, 6L, 9L, 9L, 12L, 12L, 16L, 16L, 20L, 20L, 23L, 23L, 20L, 16L, 6L), seen);
    }

    private static long radixTreeNodes(Jedis jedis) {
        List<?> info = (List<?>) cmd(jedis, "XINFO", "STREAM", "rs");
        return (Long) info.get(info.indexOf("radix-tree-nodes") + 1);
    }

    @Test
    void xinfoHas70Fields(Jedis jedis) {
        cmd(jedis, "XADD", "s", "1-0", "a", "1");
        cmd(jedis, "XADD", "s", "2-0", "a", "2");
        cmd(jedis, "XDEL", "s", "1-0");
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        List<?> info = (List<?>) cmd(jedis, "XINFO", "STREAM", "s");
        assertEquals(List.of("length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id", "max-deleted-entry-id",
                "entries-added", "recorded-first-entry-id", "groups", "first-entry", "last-entry"), keysOf(info));
        assertEquals("1-0", info.get(9));
        assertEquals("2-0", info.get(13));
        List<?> group = (List<?>) ((List<?>) cmd(jedis, "XINFO", "GROUPS", "s")).get(0);
        assertEquals(Arrays.asList("name", "g", "consumers", 0L, "pending", 0L, "last-delivered-id", "0-0", "entries-read", null,
                "lag", 1L), group);
        cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">");
        List<?> full = (List<?>) cmd(jedis, "XINFO", "STREAM", "s", "FULL");
        assertEquals(List.of("length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id", "max-deleted-entry-id",
                "entries-added", "recorded-first-entry-id", "entries", "groups"), keysOf(full));
        List<?> fullGroup = (List<?>) ((List<?>) full.get(17)).get(0);
        assertEquals(List.of("name", "last-delivered-id", "entries-read", "lag", "pel-count", "pending", "consumers"), keysOf(fullGroup));
        assertEquals(2L, fullGroup.get(5), "entries-read counts from the first entry ever");
        assertEquals(0L, fullGroup.get(7));
        List<?> consumer = (List<?>) ((List<?>) cmd(jedis, "XINFO", "CONSUMERS", "s", "g")).get(0);
        assertEquals(List.of("name", "pending", "idle"), keysOf(consumer));
        assertEquals("ERR no such key", error(jedis, "XINFO", "STREAM", "nokey"));
    }

    /** XCLAIM FORCE creates the pending entry as streamCreateNACK does, with one delivery, before the claim counts its own. */
    @Test
    void xclaimForceStartsFromOneDelivery(Jedis jedis) {
        cmd(jedis, "XADD", "s", "1-1", "f", "v");
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        cmd(jedis, "XCLAIM", "s", "g", "c", "0", "1-1", "FORCE", "JUSTID");
        assertEquals(1L, ((List<?>) ((List<?>) cmd(jedis, "XPENDING", "s", "g", "-", "+", "10")).get(0)).get(3));
        cmd(jedis, "XADD", "s", "2-0", "f", "v");
        cmd(jedis, "XCLAIM", "s", "g", "c", "3600000", "2-0", "2-0", "TIME", "1000", "FORCE");
        assertEquals(3L, ((List<?>) ((List<?>) cmd(jedis, "XPENDING", "s", "g", "-", "+", "10")).get(1)).get(3));
    }

    /** Redis decides per stream while serving: a key named twice with ">" only gets what the first read left. */
    @Test
    void xreadgroupServesARepeatedKeyOnlyWhatIsLeft(Jedis jedis) {
        cmd(jedis, "XADD", "s", "1-0", "a", "1");
        cmd(jedis, "XADD", "s", "2-0", "a", "2");
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        assertEquals(List.of(List.of("s", List.of(List.of("1-0", List.of("a", "1")), List.of("2-0", List.of("a", "2"))))),
                cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "s", ">", ">"));
        cmd(jedis, "XADD", "s", "3-0", "a", "3");
        cmd(jedis, "XADD", "s", "4-0", "a", "4");
        assertEquals(List.of(List.of("s", List.of(List.of("3-0", List.of("a", "3")))), List.of("s", List.of(List.of("4-0", List.of("a", "4"))))),
                cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", "s", ">", ">"));
        assertEquals(List.of(List.of("s", List.of(List.of("3-0", List.of("a", "3")))), List.of("s", List.of(List.of("3-0", List.of("a", "3"))))),
                cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", "s", "2", "2"));
    }

    /** xinfoCommand looks the key up before it reads XINFO STREAM's options. */
    @Test
    void xinfoStreamChecksTheKeyBeforeItsOptions(Jedis jedis) {
        jedis.set("str", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "XINFO", "STREAM", "str", "FULL", "COUNT", "abc"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", error(jedis, "XINFO", "STREAM", "str", "NOPE"));
        assertEquals("ERR no such key", error(jedis, "XINFO", "STREAM", "nokey", "FULL", "COUNT"));
        cmd(jedis, "XADD", "s", "1-0", "a", "1");
        assertEquals("ERR value is not an integer or out of range", error(jedis, "XINFO", "STREAM", "s", "FULL", "COUNT", "abc"));
    }

    private static List<Object> keysOf(List<?> flatMap) {
        List<Object> keys = new java.util.ArrayList<>();
        for (int i = 0; i < flatMap.size(); i += 2) keys.add(flatMap.get(i));
        return keys;
    }

    @Test
    void blockedXreadIsServedByXaddFromAnotherClient(CinnabarServer server, Jedis jedis) throws Exception {
        cmd(jedis, "XADD", "s", "1-0", "a", "1");
        try (Jedis reader = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<Object> blocked = OwnThread.supply(() ->
                    cmd(reader, "XREAD", "BLOCK", "0", "STREAMS", "s", "$"));
            awaitBlocked(jedis, 1);
            cmd(jedis, "XADD", "s", "2-0", "b", "2");
            assertEquals(List.of(List.of("s", List.of(List.of("2-0", List.of("b", "2"))))), blocked.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aBlockedReadIsServedFromTheFirstKeyThatGotData(CinnabarServer server, Jedis jedis) throws Exception {
        try (Jedis reader = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<Object> blocked = OwnThread.supply(() ->
                    cmd(reader, "XREAD", "BLOCK", "0", "STREAMS", "a", "b", "$", "$"));
            awaitBlocked(jedis, 1);
            redis.clients.jedis.Transaction t = jedis.multi();
            t.sendCommand(() -> "XADD".getBytes(), "b", "1-0", "f", "b");
            t.sendCommand(() -> "XADD".getBytes(), "a", "1-0", "f", "a");
            t.exec();
            // As Redis: one key per served read, the first that became ready.
            assertEquals(List.of(List.of("b", List.of(List.of("1-0", List.of("f", "b"))))), blocked.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void onlyEntryChangesTouchWatch(CinnabarServer server, Jedis jedis) {
        cmd(jedis, "XADD", "s", "1-0", "f", "v");
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            // As Redis 7.0.15: group and ID changes count as changes but do not call signalModifiedKey.
            for (String[] change : new String[][] {{"XSETID", "s", "5-0"}, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"},
                    {"XACK", "s", "g", "1-0"}}) {
                jedis.watch("s");
                cmd(other, change[0], java.util.Arrays.copyOfRange(change, 1, change.length));
                redis.clients.jedis.Transaction t = jedis.multi();
                t.exists("s");
                assertEquals(List.of(true), t.exec(), change[0]);
            }
            jedis.watch("s");
            cmd(other, "XADD", "s", "*", "f", "v");
            redis.clients.jedis.Transaction t = jedis.multi();
            t.exists("s");
            assertNull(t.exec());
        }
    }

    @Test
    void blockedReadsTimeOutOrAreUnblocked(CinnabarServer server, Jedis jedis) throws Exception {
        try (Jedis reader = new Jedis("127.0.0.1", server.port())) {
            long id = reader.clientId();
            CompletableFuture<Object> blocked = OwnThread.supply(() ->
                    cmd(reader, "XREAD", "BLOCK", "0", "STREAMS", "s", "$"));
            awaitBlocked(jedis, 1);
            assertEquals(1L, jedis.clientUnblock(id));
            assertNull(blocked.get(10, TimeUnit.SECONDS));
            assertNull(cmd(reader, "XREAD", "BLOCK", "1", "STREAMS", "s", "$"), "timed out");
            assertEquals("ERR timeout is negative", error(reader, "XREAD", "BLOCK", "-1", "STREAMS", "s", "$"));
        }
    }

    @Test
    void blockedXreadgroupLearnsItsStreamOrGroupIsGone(CinnabarServer server, Jedis jedis) throws Exception {
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        try (Jedis reader = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<String> gone = OwnThread.supply(() ->
                    error(reader, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"));
            awaitBlocked(jedis, 1);
            jedis.del("s");
            assertEquals("UNBLOCKED the stream key no longer exists", gone.get(10, TimeUnit.SECONDS));

            cmd(jedis, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            CompletableFuture<String> destroyed = OwnThread.supply(() ->
                    error(reader, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"));
            awaitBlocked(jedis, 1);
            cmd(jedis, "XGROUP", "DESTROY", "s", "g");
            assertEquals("NOGROUP the consumer group this client was blocked on no longer exists",
                    destroyed.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void blockedClientsAreServedOldestFirst(CinnabarServer server, Jedis jedis) throws Exception {
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        try (Jedis first = new Jedis("127.0.0.1", server.port()); Jedis second = new Jedis("127.0.0.1", server.port())) {
            CompletableFuture<Object> a = OwnThread.supply(() ->
                    cmd(first, "XREADGROUP", "GROUP", "g", "first", "BLOCK", "0", "STREAMS", "s", ">"));
            awaitBlocked(jedis, 1);
            CompletableFuture<Object> b = OwnThread.supply(() ->
                    cmd(second, "XREADGROUP", "GROUP", "g", "second", "BLOCK", "0", "STREAMS", "s", ">"));
            awaitBlocked(jedis, 2);
            cmd(jedis, "XADD", "s", "1-0", "a", "1");
            assertEquals(List.of(List.of("s", List.of(List.of("1-0", List.of("a", "1"))))), a.get(10, TimeUnit.SECONDS));
            assertFalse(b.isDone(), "the group's only entry went to the first client");
            cmd(jedis, "XADD", "s", "2-0", "a", "2");
            assertEquals(List.of(List.of("s", List.of(List.of("2-0", List.of("a", "2"))))), b.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void noackReadAdvancesTheGroupWithoutPendingEntries(Jedis jedis) {
        cmd(jedis, "XADD", "s", "1-0", "a", "1");
        cmd(jedis, "XGROUP", "CREATE", "s", "g", "0");
        List<?> read = jedis.xread(XReadParams.xReadParams().count(1), Map.of("s", new StreamEntryID(0, 0)));
        assertEquals(1, read.size());
        cmd(jedis, "XREADGROUP", "GROUP", "g", "c", "NOACK", "STREAMS", "s", ">");
        assertEquals(0L, jedis.xpending("s", "g").getTotal());
        List<?> group = (List<?>) ((List<?>) cmd(jedis, "XINFO", "GROUPS", "s")).get(0);
        assertEquals(Arrays.asList("name", "g", "consumers", 1L, "pending", 0L, "last-delivered-id", "1-0",
                "entries-read", 1L, "lag", 0L), group);
    }

    @Test
    void dumpFromRedisRestoresAndRoundTrips(Jedis jedis) {
        // DUMP of a stream written by Redis 7.0.15: 1-1 {a 1 b hello}, 1-2 deleted, 2-0 {c 3}; group g, 1-1 pending for alice.
        byte[] payload = java.util.HexFormat.of().parseHex("130110000000000000000100000000000000014043430000001900020101010201"
                + "816102816202000102010001000101018568656c6c6f0605010301000101010201817802050100010101dfff02010181630203"
                + "010601ff0202000101010203010167010181ffffffffffffffff010000000000000001000000000000000129375d0ca20100000101"
                + "05616c69636529375d0ca201000001000000000000000100000000000000010a001a4ba8a6b08b9fda");
        assertEquals("OK", jedis.restore("s".getBytes(), 0, payload));
        assertEquals(List.of(List.of("1-1", List.of("a", "1", "b", "hello")), List.of("2-0", List.of("c", "3"))),
                cmd(jedis, "XRANGE", "s", "-", "+"));
        assertEquals(List.of(1L, "1-1", "1-1", List.of(List.of("alice", "1"))), cmd(jedis, "XPENDING", "s", "g"));
        byte[] again = jedis.dump("s".getBytes());
        assertEquals("OK", jedis.restore("copy".getBytes(), 0, again));
        assertEquals(cmd(jedis, "XINFO", "STREAM", "s"), cmd(jedis, "XINFO", "STREAM", "copy"));
    }
}
