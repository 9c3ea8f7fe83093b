package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.junit.ClockMode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SYNC and PSYNC as a Redis 7.0.15 master answers them, with its bytes: newlines while the replica
 * waits, +FULLRESYNC for PSYNC, "$EOF:<mark>" ... mark (diskless) or "$<length>" and the dump,
 * then the replication stream (or, for REPLCONF rdb-only 1 as redis-cli --rdb sends, the close).
 */
@CinnabarTest(clock = ClockMode.MANUAL)
class ReplicaSyncIT {
    private static final Pattern DISKLESS = Pattern.compile("^(\n*)\\+FULLRESYNC ([0-9a-f]{40}) ([0-9]+)\r\n\\$EOF:([0-9a-f]{40})\r\n",
            Pattern.DOTALL);

    @BeforeEach
    void defaults(Jedis jedis) {
        jedis.flushAll();
        jedis.functionFlush();
        jedis.configSet("repl-diskless-sync", "yes");
        jedis.configSet("repl-diskless-sync-delay", "5");
        jedis.configSet("rdb-key-save-delay", "0");
    }

    @Test
    void aDisklessSyncWaitsTheDelayWithNewlinesThenSendsTheDataSetAndCloses(Jedis jedis, HostAndPort at, ManualClock clock,
                                                                          @TempDir Path dir) throws Exception {
        jedis.set("k", "v");
        jedis.rpush("l", "a", "b");
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("REPLCONF", "capa", "eof"));
            assertEquals("OK", s.call("REPLCONF", "rdb-only", "1"));
            s.send("PSYNC", "?", "-1");
            awaitReplicas(jedis, 1);
            assertTrue(jedis.info("replication").contains("connected_slaves:1\r\nslave0:ip=127.0.0.1,port=0,state=wait_bgsave,offset=0,lag=0\r\n"));
            assertTrue(jedis.clientList().contains(" flags=S "), jedis.clientList());
            assertEquals(1, jedis.clientList(redis.clients.jedis.args.ClientType.REPLICA).lines().count());
            for (int second = 0; second < 5; second++) clock.advance(Duration.ofSeconds(1));
            byte[] all = s.readToEof();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            Matcher m = DISKLESS.matcher(text);
            assertTrue(m.find(), text);
            assertEquals("\n\n\n\n\n", m.group(1), "a newline a second while waiting");
            String replication = jedis.info("replication");
            assertEquals(replication.split("master_replid:")[1].substring(0, 40), m.group(2));
            // The stream's offset where the snapshot is: what earlier tests' replicas left in the backlog.
            assertTrue(replication.contains("master_repl_offset:" + m.group(3) + "\r\n"), replication);
            byte[] mark = m.group(4).getBytes(StandardCharsets.US_ASCII);
            assertArrayEquals(mark, Arrays.copyOfRange(all, all.length - mark.length, all.length), "ends with the mark");
            byte[] rdb = Arrays.copyOfRange(all, m.end(), all.length - mark.length);
            try (CinnabarServer copy = serverOn(dir, rdb); Jedis j = new Jedis("127.0.0.1", copy.port())) {
                assertEquals("v", j.get("k"));
                assertEquals(List.of("a", "b"), j.lrange("l", 0, -1));
            }
        }
        awaitReplicas(jedis, 0);
    }

    @Test
    void withoutTheEofCapabilityTheDumpFileIsWrittenAndSentWithItsLength(Jedis jedis, HostAndPort at, @TempDir Path dir)
            throws Exception {
        jedis.set("k", "on disk");
        assertTrue(!jedis.info("persistence").contains("rdb_changes_since_last_save:0\r\n"));
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("REPLCONF", "rdb-only", "1"));
            s.send("SYNC");
            byte[] all = s.readToEof();
            String head = new String(all, 0, Math.min(all.length, 24), StandardCharsets.ISO_8859_1);
            assertTrue(head.startsWith("$"), head);
            int crlf = head.indexOf("\r\n");
            int length = Integer.parseInt(head.substring(1, crlf));
            assertEquals(crlf + 2 + length, all.length, "the length, then that many bytes, then the close");
            try (CinnabarServer copy = serverOn(dir, Arrays.copyOfRange(all, crlf + 2, all.length));
                 Jedis j = new Jedis("127.0.0.1", copy.port())) {
                assertEquals("on disk", j.get("k"));
            }
        }
        assertTrue(jedis.info("persistence").contains("rdb_changes_since_last_save:0\r\n"), "a save for replicas counts as one");
        assertTrue(Files.exists(Path.of(jedis.configGet("dir").get("dir"), "dump.rdb")));
    }

    @Test
    void aFunctionsOnlySyncCarriesTheLibrariesAndNoKeys(Jedis jedis, HostAndPort at, @TempDir Path dir) throws Exception {
        jedis.configSet("repl-diskless-sync-delay", "0");
        jedis.set("k", "v");
        jedis.functionLoad("#!lua name=mylib\nredis.register_function('f', function() return 1 end)");
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("REPLCONF", "capa", "eof"));
            assertEquals("OK", s.call("REPLCONF", "rdb-filter-only", "functions"));
            assertEquals("OK", s.call("REPLCONF", "rdb-only", "1"));
            s.send("SYNC");
            byte[] all = s.readToEof();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            assertTrue(text.startsWith("$EOF:"), text);
            int start = text.indexOf("\r\n") + 2;
            try (CinnabarServer copy = serverOn(dir, Arrays.copyOfRange(all, start, all.length - 40));
                 Jedis j = new Jedis("127.0.0.1", copy.port())) {
                assertEquals(0, j.dbSize());
                assertEquals(1L, j.fcall("f", List.of(), List.of()));
            }
        }
    }

    @Test
    void aDisklessSnapshotStopsOnceItsReplicaIsGone(Jedis jedis, HostAndPort at, ManualClock clock) throws Exception {
        jedis.configSet("repl-diskless-sync-delay", "0");
        for (int i = 0; i < 3; i++) jedis.set("k" + i, "v");
        jedis.configSet("rdb-key-save-delay", "10000000");
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("REPLCONF", "capa", "eof"));
            assertEquals("OK", s.call("REPLCONF", "rdb-only", "1"));
            s.send("SYNC");
            awaitReplicas(jedis, 1);
            assertTrue(jedis.info("persistence").contains("rdb_bgsave_in_progress:1"));
        }
        for (int tries = 0; tries < 200 && jedis.info("persistence").contains("rdb_bgsave_in_progress:1"); tries++) {
            clock.advance(Duration.ofSeconds(1));
        }
        assertTrue(jedis.info("persistence").contains("rdb_bgsave_in_progress:0"));
    }

    @Test
    void refusalsFollowSyncCommandsChecks(Jedis jedis, HostAndPort at) throws Exception {
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("REPLCONF", "rdb-filter-only", "functions"));
            assertEquals("OK", s.call("REPLCONF", "rdb-only", "1"));
            assertEquals(new RespSocket.Error("ERR Filtered replica requires EOF capability"), s.call("SYNC"));
            assertEquals("OK", s.call("REPLCONF", "rdb-filter-only", ""));
            assertEquals(new RespSocket.Error("ERR value is not an integer or out of range"), s.call("PSYNC", "?", "x"));
        }
        try (RespSocket s = new RespSocket(at.getPort())) {
            assertEquals("OK", s.call("MULTI"));
            assertEquals(new RespSocket.Error("ERR Command not allowed inside a transaction"), s.call("SYNC"));
        }
    }

    @Test
    void aReplicaGetsTheStreamAfterThePayloadAndItsAcksAnswerWait(Jedis jedis, HostAndPort at) throws Exception {
        jedis.configSet("repl-diskless-sync-delay", "0");
        jedis.set("before", "1");
        try (RespSocket s = new RespSocket(at.getPort()); Jedis waiter = new Jedis(at)) {
            assertEquals("OK", s.call("REPLCONF", "listening-port", "6390"));
            assertEquals("OK", s.call("REPLCONF", "capa", "eof", "capa", "psync2"));
            s.send("PSYNC", "?", "-1");
            String fullResync = s.line();
            assertTrue(fullResync.startsWith("+FULLRESYNC "), fullResync);
            long start = Long.parseLong(fullResync.substring(fullResync.lastIndexOf(' ') + 1));
            String eof = s.line();
            assertTrue(eof.startsWith("$EOF:"), eof);
            s.readThrough(eof.substring(5).getBytes(StandardCharsets.US_ASCII));

            // Writes after the snapshot are the stream, from a SELECT on; "before" was in the payload.
            jedis.incr("after");
            jedis.select(3);
            jedis.set("three", "3");
            jedis.select(0);
            byte[] expected = ("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*2\r\n$4\r\nINCR\r\n$5\r\nafter\r\n"
                    + "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$5\r\nthree\r\n$1\r\n3\r\n").getBytes(StandardCharsets.US_ASCII);
            assertEquals(new String(expected, StandardCharsets.US_ASCII), new String(s.readBytes(expected.length), StandardCharsets.US_ASCII));
            long streamed = start + expected.length;
            assertTrue(jedis.info("replication").contains("master_repl_offset:" + streamed + "\r\n"), jedis.info("replication"));

            // WAIT asks the replica (REPLCONF GETACK, in the stream) and answers once it acknowledges.
            java.util.concurrent.CompletableFuture<Object> waited = io.cinnabar.util.OwnThread.supply(() -> cmd(waiter, "WAIT", "1", "0"));
            byte[] getack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);
            assertEquals(new String(getack, StandardCharsets.US_ASCII), new String(s.readBytes(getack.length), StandardCharsets.US_ASCII));
            long acked = streamed + getack.length;
            s.send("REPLCONF", "ACK", Long.toString(acked));
            assertEquals(1L, waited.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(jedis.info("replication").contains("connected_slaves:1\r\nslave0:ip=127.0.0.1,port=6390,state=online,offset="
                    + acked + ",lag=0\r\n"), jedis.info("replication"));
            assertEquals(List.of("master", acked, List.of(List.of("127.0.0.1", "6390", Long.toString(acked)))), cmd(jedis, "ROLE"));
            assertTrue(jedis.clientList().contains(" flags=S "));
        }
        awaitReplicas(jedis, 0);
    }

    /** Until INFO counts n replicas: the connection's command, or its close, reaches the server on its own time (as waitBlocked). */
    private static void awaitReplicas(Jedis jedis, int n) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (jedis.info("replication").contains("connected_slaves:" + n + "\r\n")) return;
            Thread.sleep(2);
        }
        throw new AssertionError("connected_slaves never reached " + n + ": " + jedis.info("replication"));
    }

    private static CinnabarServer serverOn(Path dir, byte[] rdb) throws Exception {
        Files.write(dir.resolve("dump.rdb"), rdb);
        return CinnabarServer.builder().port(0).option("dir", dir.toString()).build().start();
    }
}
