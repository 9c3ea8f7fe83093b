package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;
import redis.clients.jedis.params.FailoverParams;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cinnabar as a replica (REPLICAOF, or replicaof in the configuration), of a Cinnabar master and
 * of a real Redis 7.0 one: the full sync, the stream after it, acknowledgements, what the replica
 * refuses and shows, and REPLICAOF NO ONE.
 */
class ReplicaOfIT {
    @TempDir
    Path dir;

    private CinnabarServer.Builder server(String name, String... options) throws Exception {
        CinnabarServer.Builder b = CinnabarServer.builder().port(0)
                .option("dir", Files.createDirectories(dir.resolve(name)).toString())
                .option("repl-diskless-sync-delay", "0").option("enable-debug-command", "yes");
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"no", "yes"})
    void aCinnabarReplicaFollowsItsMasterAndKeepsItInItsOwnFiles(String appendonly) throws Exception {
        String held;
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port())) {
            DataSet.fill(c);
            try (CinnabarServer r = server("replica", "appendonly", appendonly).build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                assertEquals("OK", j.replicaof("127.0.0.1", m.port()));
                awaitLinkUp(j);
                DataSet.writeOfEveryKind(c);
                assertEquals(1L, c.waitReplicas(1, 10_000), "the replica acknowledged every write");
                held = digest(c);
                assertEquals(held, digest(j));
                String info = j.info("replication");
                assertTrue(info.contains("role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:" + m.port()
                        + "\r\nmaster_link_status:up\r\n"), info);
                long offset = field(c.info("replication"), "master_repl_offset");
                assertEquals(offset, field(info, "slave_repl_offset"));
                assertEquals(List.of("slave", "127.0.0.1", (long) m.port(), "connected", offset), role(j));
                // Its last ACK answered WAIT's GETACK, which it counts only after: Redis's replicationSendAck.
                assertTrue(c.info("replication").contains("slave0:ip=127.0.0.1,port=" + r.port() + ",state=online,offset="
                        + (offset - "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".length()) + ","), c.info("replication"));
                assertTrue(j.clientList().contains(" flags=M "), j.clientList());
                // The AOF holds the master's data once the rewrite after the sync has made a base of it.
                awaitInfo(j, "persistence", "aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n");
            }
        }
        if (appendonly.equals("yes")) {
            // The replica's own AOF holds the master's data: restarted alone, it comes back the same.
            try (CinnabarServer again = server("replica", "appendonly", "yes").build().start();
                 Jedis j = new Jedis("127.0.0.1", again.port())) {
                assertEquals(held, digest(j));
            }
        }
    }

    @Test
    void aReplicaStoppedBeforeItsAofRewriteEndsComesBackWithItsOldDataWhole() throws Exception {
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port())) {
            DataSet.fill(c);
            try (CinnabarServer r = server("replica", "appendonly", "yes").build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                j.set("own", "before the sync");
                j.configSet("rdb-key-save-delay", "1000000"); // a second a key: the rewrite after the sync outlasts the test
                j.replicaof("127.0.0.1", m.port());
                awaitLinkUp(j);
                c.set("streamed", "after the sync");
                assertEquals(1L, c.waitReplicas(1, 10_000));
                assertTrue(j.info("persistence").contains("aof_enabled:1\r\naof_rewrite_in_progress:1\r\n"), j.info("persistence"));
                // Redis's prepareForShutdown: the AOF does not hold the data set yet.
                assertEquals("ERR Errors trying to SHUTDOWN. Check logs.", assertThrows(JedisDataException.class,
                        () -> j.sendCommand(redis.clients.jedis.Protocol.Command.SHUTDOWN)).getMessage());
            } // closing forces the stop, as SHUTDOWN FORCE would
        }
        // Neither the master's data nor its stream without the rest: the data set as it was before the sync.
        try (CinnabarServer again = server("replica", "appendonly", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", again.port())) {
            assertEquals(java.util.Set.of("own"), j.keys("*"));
        }
    }

    @Test
    void aReplicaConnectsFromBindSourceAddr() throws Exception {
        // Protected mode, as Redis's islocalClient, takes only 127.0.0.1 and ::1 for local.
        try (CinnabarServer m = server("master", "protected-mode", "no").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "bind-source-addr", "127.0.0.2").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.replicaof("127.0.0.1", m.port());
            awaitLinkUp(j);
            String info = c.info("replication");
            assertTrue(info.contains("slave0:ip=127.0.0.2,port=" + r.port() + ","), info);
        }
    }

    @Test
    void aLinkThatDropsGoesOnWhereItStoppedThroughTheBacklog() throws Exception {
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + m.port()).build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            awaitLinkUp(j);
            c.select(3);
            c.set("before", "1");
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals(1L, j.clientKill(new ClientKillParams().type(ClientType.MASTER)));
            // Written while the link is down: the backlog holds it, and the master client's SELECT 3 is remembered.
            c.set("during", "2");
            c.select(0);
            c.set("db0", "3");
            awaitInfo(c, "stats", "sync_partial_ok:1\r\n");
            awaitLinkUp(j);
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals(digest(c), digest(j));
            String stats = c.info("stats");
            assertTrue(stats.contains("sync_full:1\r\nsync_partial_ok:1\r\nsync_partial_err:0\r\n"), stats);
            String info = c.info("replication");
            assertTrue(info.contains("repl_backlog_active:1\r\nrepl_backlog_size:1048576\r\nrepl_backlog_first_byte_offset:1\r\n"), info);
            assertEquals(field(info, "master_repl_offset"), field(info, "repl_backlog_histlen"));
        }
    }

    @Test
    void aReplicaRefusesWritesUntilPromotedAndThenKeepsItsData() throws Exception {
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + m.port()).build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            awaitLinkUp(j);
            c.set("k", "from-master");
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals("from-master", j.get("k"));
            JedisDataException refused = assertThrows(JedisDataException.class, () -> j.set("k", "x"));
            assertEquals("READONLY You can't write against a read only replica.", refused.getMessage());
            String replid = field(j.info("replication"), "master_replid", "");
            assertEquals(field(c.info("replication"), "master_replid", ""), replid);

            assertEquals("OK", j.replicaofNoOne());
            assertEquals("master", role(j).get(0));
            assertNotEquals(replid, field(j.info("replication"), "master_replid", ""), "a promoted replica starts its own history");
            assertEquals("from-master", j.get("k"));
            assertEquals("OK", j.set("k", "own"));
            c.set("k", "later");
            assertEquals("own", j.get("k"), "the old master's writes no longer arrive");
        }
    }

    @Test
    void aReplicaWithItsLinkDownServesStaleDataOnlyIfAllowed() throws Exception {
        int nobody = LocalServers.freePort();
        try (CinnabarServer r = server("replica", "replica-serve-stale-data", "no").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.replicaof("127.0.0.1", nobody);
            JedisDataException refused = assertThrows(JedisDataException.class, () -> j.get("k"));
            assertEquals("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", refused.getMessage());
            assertTrue(j.info("replication").contains("master_link_status:down"), "INFO is a stale command");
            j.configSet("replica-serve-stale-data", "yes");
            assertNull(j.get("k"));
        }
    }

    /**
     * redis.set_repl as Redis's scriptCall passes it to call(): each write goes to the AOF, to the
     * replicas, to both or to neither, and each of them selects its own databases. The MULTI and
     * EXEC around the script's writes go to both.
     */
    @Test
    void aScriptsWritesGoWhereSetReplSays() throws Exception {
        try (CinnabarServer m = server("master", "appendonly", "yes", "appendfsync", "always").build().start();
             Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + m.port()).build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            awaitLinkUp(j);
            c.eval("redis.call('select', 2) redis.call('set', 'both', '1')"
                    + " redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '2')"
                    + " redis.set_repl(redis.REPL_AOF) redis.call('select', 4) redis.call('set', 'aof', '3')"
                    + " redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'replica', '4')"
                    + " redis.call('select', 5) redis.call('set', 'replica', '5')"
                    + " redis.set_repl(redis.REPL_ALL) redis.call('set', 'both', '6')");
            c.set("after", "7");
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals(List.of("1", "-", "-", "-"), values(j, 2, "both", "none", "aof", "replica"));
            assertEquals(List.of("-", "-", "-", "4"), values(j, 4, "both", "none", "aof", "replica"));
            assertEquals(List.of("6", "-", "-", "5"), values(j, 5, "both", "none", "aof", "replica"));
            assertEquals("7", j.get("after"));

            // The master's data as its AOF has it.
            assertEquals("OK", new String((byte[]) c.sendCommand(() -> "DEBUG".getBytes(), "LOADAOF")));
            assertEquals(List.of("1", "-", "-", "-"), values(c, 2, "both", "none", "aof", "replica"));
            assertEquals(List.of("-", "-", "3", "-"), values(c, 4, "both", "none", "aof", "replica"));
            assertEquals(List.of("6", "-", "-", "-"), values(c, 5, "both", "none", "aof", "replica"));
            assertEquals("7", c.get("after"));
        }
    }

    private static List<String> values(Jedis j, int db, String... keys) {
        j.select(db);
        List<String> out = new java.util.ArrayList<>();
        for (String v : j.mget(keys)) out.add(v == null ? "-" : v);
        j.select(0);
        return out;
    }

    /**
     * repl-diskless-load swapdb, as Redis's readSyncBulkPayload: while a full sync's payload
     * arrives the replica is loading (LOADING to its clients), or, when the payload is of the
     * history it already follows, serves its old data (async_loading) and refuses only the
     * commands flagged no-async-loading; a transfer cut short leaves the old data. The master is
     * real Redis, whose diskless payload comes as its snapshot is made (Cinnabar's comes once made).
     */
    @Test
    void aDisklessLoadIsLoadingOrServesTheOldDataWhileThePayloadArrives() throws Exception {
        try (RealRedis m = RealRedis.start(Files.createDirectories(dir.resolve("redis")), "--repl-diskless-sync-delay", "0",
                "--enable-debug-command", "yes"); Jedis c = m.client();
             CinnabarServer r = server("replica", "repl-diskless-load", "swapdb", "replica-read-only", "no").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            // Values big enough for Redis's snapshot to reach the socket key by key.
            for (int i = 0; i < 100; i++) c.set("m" + i, "v".repeat(100_000));
            j.set("mine", "old");
            c.configSet("rdb-key-save-delay", "100000"); // 0.1 s a key: the payload takes 10 s
            j.replicaof("127.0.0.1", m.port);
            awaitInfo(j, "persistence", "\nloading:1\r\n");
            assertTrue(j.info("persistence").contains("async_loading:0\r\n"));
            assertEquals("LOADING Redis is loading the dataset in memory",
                    assertThrows(JedisDataException.class, () -> j.get("mine")).getMessage());
            c.configSet("repl-diskless-sync-delay", "5"); // the next sync waits: the replica is seen between the two
            c.clientKill(new ClientKillParams().type(ClientType.REPLICA));
            awaitInfo(j, "persistence", "\nloading:0\r\n");
            assertEquals("old", j.get("mine"), "a payload cut short leaves the data as it was");

            // Synced once; then a full sync of the same history (the backlog no longer holds its offset).
            c.configSet("rdb-key-save-delay", "0", "repl-diskless-sync-delay", "0");
            awaitLinkUp(j);
            assertEquals(100L, j.dbSize());
            j.set("mine", "kept");
            c.configSet("rdb-key-save-delay", "100000", "repl-backlog-size", "16384");
            c.clientKill(new ClientKillParams().type(ClientType.REPLICA));
            for (int i = 0; i < 10; i++) c.set("big" + i, "A".repeat(16384));
            awaitInfo(j, "persistence", "async_loading:1\r\n");
            assertTrue(j.info("persistence").contains("\nloading:0\r\n"));
            assertEquals("kept", j.get("mine"), "the old data is served meanwhile");
            assertEquals("LOADING Redis is loading the dataset in memory",
                    assertThrows(JedisDataException.class, () -> j.replicaofNoOne()).getMessage());
            assertEquals("LOADING Redis is loading the dataset in memory",
                    assertThrows(JedisDataException.class, () -> j.configSet("appendonly", "no")).getMessage());
            assertEquals("LOADING Redis is loading the dataset in memory",
                    assertThrows(JedisDataException.class, () -> j.configSet("repl-diskless-load", "disabled")).getMessage());
            c.configSet("rdb-key-save-delay", "0", "repl-diskless-sync-delay", "5");
            c.clientKill(new ClientKillParams().type(ClientType.REPLICA));
            awaitInfo(j, "persistence", "async_loading:0\r\n");
            assertEquals("kept", j.get("mine"));
            c.configSet("repl-diskless-sync-delay", "0");
            awaitLinkUp(j);
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals(digest(c), digest(j));
        }
    }

    /**
     * Scripts on a stale replica, as Redis's scriptPrepareForRun and scriptCall decide: one that
     * declares allow-stale runs and may call stale commands only; any other, MASTERDOWN (with its
     * own text for a script that declared flags).
     */
    @Test
    void aStaleReplicaRunsOnlyTheScriptsThatAllowIt() throws Exception {
        int nobody = LocalServers.freePort();
        try (CinnabarServer r = server("replica", "replica-serve-stale-data", "no").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.functionLoad("#!lua name=lib\n"
                    + "redis.register_function{function_name='plain', callback=function() return 'ran' end, flags={'no-writes'}}\n"
                    + "redis.register_function{function_name='stale', callback=function() return 'ran' end, flags={'allow-stale', 'no-writes'}}\n"
                    + "redis.register_function{function_name='reads', callback=function() return redis.call('get', 'k') end, flags={'allow-stale', 'no-writes'}}\n"
                    + "redis.register_function{function_name='info', callback=function() return redis.call('info', 'server') end, flags={'allow-stale', 'no-writes'}}");
            j.replicaof("127.0.0.1", nobody);
            String masterDown = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
            assertEquals(masterDown, assertThrows(JedisDataException.class, () -> j.fcall("plain", List.of(), List.of())).getMessage());
            assertEquals("ran", j.fcall("stale", List.of(), List.of()));
            assertEquals("ERR Can not execute the command on a stale replica script: reads, on @user_function:4.",
                    assertThrows(JedisDataException.class, () -> j.fcall("reads", List.of(), List.of())).getMessage());
            assertTrue(j.fcall("info", List.of(), List.of()).toString().contains("redis_version:"));
            assertEquals(masterDown, assertThrows(JedisDataException.class, () -> j.eval("#!lua flags=no-writes\nreturn 1")).getMessage());
            assertEquals(masterDown, assertThrows(JedisDataException.class, () -> j.eval("return 1")).getMessage(),
                    "a script without flags may not run stale either, although EVAL itself may");
            assertEquals("ERR Can not execute the command on a stale replica",
                    j.eval("#!lua flags=no-writes,allow-stale\nreturn redis.pcall('get', 'k')['err']"));
            j.configSet("replica-serve-stale-data", "yes");
            assertEquals("ran", j.fcall("plain", List.of(), List.of()));
            assertEquals(1L, j.eval("return 1"));
        }
    }

    /**
     * A failover as Sentinel runs it: one replica promoted (REPLICAOF NO ONE), the other replica
     * and the old master pointed at it. Both continue (+CONTINUE) from its backlog, which holds the
     * old master's stream as it ran there, under the old id kept as the second one.
     */
    @Test
    void afterAFailoverTheOtherReplicaAndTheOldMasterContinueFromThePromotedReplica() throws Exception {
        try (Group g = masterAndTwoReplicas()) {
            Jedis c = g.c, j1 = g.j1, j2 = g.j2;
            int r1Port = g.r1.port();
            DataSet.writeOfEveryKind(c);
            c.select(2);
            c.set("in db 2", "x");
            assertEquals(2L, c.waitReplicas(2, 10_000));
            String oldId = field(c.info("replication"), "master_replid", "");
            long offset = field(c.info("replication"), "master_repl_offset");
            String replica = j1.info("replication");
            assertEquals(oldId, field(replica, "master_replid", ""));
            assertEquals(offset, field(replica, "master_repl_offset"), "a replica's stream is its master's, byte for byte");
            assertEquals("1", field(replica, "repl_backlog_active", ""));

            assertEquals("OK", j1.replicaofNoOne());
            String promoted = j1.info("replication");
            String newId = field(promoted, "master_replid", "");
            assertNotEquals(oldId, newId);
            assertEquals(oldId, field(promoted, "master_replid2", ""));
            assertEquals(offset + 1, field(promoted, "second_repl_offset"));
            assertEquals(offset, field(promoted, "master_repl_offset"), "the offset goes on");
            j1.set("after promotion", "y");

            j2.replicaof("127.0.0.1", r1Port);
            awaitInfo(j1, "stats", "sync_partial_ok:1\r\n");
            c.replicaof("127.0.0.1", r1Port);
            awaitInfo(j1, "stats", "sync_partial_ok:2\r\n");
            awaitLinkUp(j2);
            awaitLinkUp(c);
            assertReplicated(j1, j2, c);
            assertTrue(j1.info("stats").contains("sync_full:0\r\n"), j1.info("stats"));
            String follower = j2.info("replication");
            assertEquals(newId, field(follower, "master_replid", ""));
            assertEquals(oldId, field(follower, "master_replid2", ""), "a replica keeps the id it continued from second");
            c.select(0);
            assertEquals("y", c.get("after promotion"));
        }
    }

    /**
     * FAILOVER: the master pauses writes until the replica named has acknowledged the whole
     * stream, then becomes its replica with PSYNC ... FAILOVER, which promotes it; the old master
     * continues from it (+CONTINUE), and so does the other replica once pointed at it.
     */
    @Test
    void failoverHandsTheMasterRoleToACaughtUpReplicaWithoutASync() throws Exception {
        try (Group g = masterAndTwoReplicas()) {
            Jedis c = g.c, j1 = g.j1, j2 = g.j2;
            int r1Port = g.r1.port();
            assertEquals("ERR FAILOVER is not valid when server is a replica.",
                    assertThrows(JedisDataException.class, () -> j1.failover()).getMessage());
            assertEquals("ERR No failover in progress.",
                    assertThrows(JedisDataException.class, () -> c.sendCommand(() -> "FAILOVER".getBytes(), "ABORT")).getMessage());
            assertEquals("ERR FAILOVER with force option requires both a timeout and target HOST and IP.",
                    assertThrows(JedisDataException.class, () -> c.sendCommand(() -> "FAILOVER".getBytes(),
                            "TO", "127.0.0.1", Integer.toString(r1Port), "FORCE")).getMessage());
            assertEquals("ERR FAILOVER target HOST and PORT is not a replica.",
                    assertThrows(JedisDataException.class, () -> c.failover(FailoverParams.failoverParams()
                            .to("127.0.0.1", g.m.port()))).getMessage());
            DataSet.writeOfEveryKind(c);

            assertEquals("OK", c.failover(FailoverParams.failoverParams().to("127.0.0.1", r1Port)));
            awaitInfo(c, "replication", "master_failover_state:no-failover");
            assertEquals("master", role(j1).get(0));
            assertEquals(List.of("slave", "127.0.0.1", (long) r1Port), role(c).subList(0, 3));
            assertEquals("READONLY You can't write against a read only replica.",
                    assertThrows(JedisDataException.class, () -> c.set("k", "v")).getMessage());
            j2.replicaof("127.0.0.1", r1Port);
            awaitInfo(j1, "stats", "sync_partial_ok:2\r\n");
            awaitLinkUp(c);
            awaitLinkUp(j2);
            j1.set("after failover", "1");
            assertReplicated(j1, c, j2);
            assertTrue(j1.info("stats").contains("sync_full:0\r\n"), j1.info("stats"));
        }
    }

    /**
     * A dump says where its data is in the replication stream (repl-id, repl-offset): a replica
     * restarted from it, and then a master restarted from its own, continue with their
     * counterpart (+CONTINUE) instead of synchronising the whole data set again. Keys the master
     * finds expired as it loads are deleted on its replicas too.
     */
    @Test
    void restartsFromADumpContinueTheStream() throws Exception {
        int masterPort = LocalServers.freePort();
        ManualClock masterClock = new ManualClock();
        CinnabarServer m = server("master").port(masterPort).clock(masterClock).build().start();
        try (Jedis c = new Jedis("127.0.0.1", masterPort)) {
            try (CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + masterPort).build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                awaitLinkUp(j);
                DataSet.writeOfEveryKind(c);
                assertEquals(1L, c.waitReplicas(1, 10_000));
                j.save();
            }
            c.set("while the replica was down", "1");
            try (CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + masterPort).build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                awaitInfo(c, "stats", "sync_partial_ok:1\r\n");
                awaitLinkUp(j);
                assertEquals(1L, c.waitReplicas(1, 10_000));
                assertEquals(digest(c), digest(j));
                c.psetex("expires while the master is down", 1000, "v");
                assertEquals(1L, c.waitReplicas(1, 10_000));
                String oldId = field(c.info("replication"), "master_replid", "");
                long offset = field(c.info("replication"), "master_repl_offset");
                c.save();
                m.close();
                masterClock.advance(Duration.ofSeconds(2));
                m = server("master").port(masterPort).clock(masterClock).build().start();
                try (Jedis again = new Jedis("127.0.0.1", masterPort)) {
                    String info = again.info("replication");
                    assertEquals(oldId, field(info, "master_replid2", ""));
                    assertEquals(offset + 1, field(info, "second_repl_offset"));
                    // The key it found expired goes from the replica too: a DEL after the saved offset.
                    assertTrue(field(info, "master_repl_offset") > offset, info);
                    awaitInfo(again, "stats", "sync_partial_ok:1\r\n");
                    awaitLinkUp(j);
                    again.set("after the restart", "2");
                    assertReplicated(again, j);
                    assertTrue(again.info("stats").contains("sync_full:0\r\n"), again.info("stats"));
                }
            }
        } finally {
            m.close();
        }
    }

    /** repl-backlog-ttl: once no replica is left, the backlog goes after that many seconds (on the master's clock). */
    @Test
    void aBacklogNoReplicaUsesGoesAfterReplBacklogTtl() throws Exception {
        ManualClock clock = new ManualClock();
        try (CinnabarServer m = server("master", "repl-backlog-ttl", "10").clock(clock).build().start();
             Jedis c = new Jedis("127.0.0.1", m.port())) {
            try (CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + m.port()).build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                awaitLinkUp(j);
                c.set("k", "v");
                assertReplicated(c, j);
            }
            awaitInfo(c, "replication", "connected_slaves:0\r\n");
            assertTrue(c.info("replication").contains("repl_backlog_active:1\r\n"));
            // The cron starts counting when it first sees no replica: the clock moves until it has.
            for (int i = 0; i < 200 && c.info("replication").contains("repl_backlog_active:1"); i++) {
                clock.advance(Duration.ofSeconds(11));
                Thread.sleep(20);
            }
            assertTrue(c.info("replication").contains("repl_backlog_active:0\r\n"), c.info("replication"));
        }
    }

    /**
     * Chained replication: a replica passes its master's stream on, byte for byte, to replicas of
     * its own (a real Redis one and a Cinnabar one), whose payload says which database that stream
     * is in (repl-stream-db), so that all four hold the same data at the same offset.
     */
    @Test
    void aReplicaServesReplicasOfItsOwn() throws Exception {
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r1 = server("replica").build().start(); Jedis j1 = new Jedis("127.0.0.1", r1.port())) {
            assertEquals("NOMASTERLINK Can't SYNC while not connected with my master", assertThrows(JedisDataException.class,
                    () -> { j1.replicaof("127.0.0.1", 1); j1.sendCommand(() -> "SYNC".getBytes()); }).getMessage());
            j1.replicaof("127.0.0.1", m.port());
            awaitLinkUp(j1);
            DataSet.writeOfEveryKind(c);
            c.select(5);
            c.set("a", "1");
            assertEquals(1L, c.waitReplicas(1, 10_000));
            try (RealRedis redis = RealRedis.start(Files.createDirectories(dir.resolve("redis")), "--enable-debug-command", "yes",
                    "--replicaof", "127.0.0.1", Integer.toString(r1.port())); Jedis rr = redis.client();
                 CinnabarServer r2 = server("subreplica", "replicaof", "127.0.0.1 " + r1.port()).build().start();
                 Jedis j2 = new Jedis("127.0.0.1", r2.port())) {
                awaitLinkUp(rr);
                awaitLinkUp(j2);
                // No SELECT in the stream from here: the master's is still in database 5.
                c.set("b", "2");
                long offset = field(c.info("replication"), "master_repl_offset");
                for (Jedis sub : List.of(rr, j2)) {
                    awaitInfo(sub, "replication", "master_repl_offset:" + offset + "\r\n");
                    sub.select(5);
                    assertEquals("2", sub.get("b"));
                    assertEquals(digest(c), digest(sub));
                }
                assertEquals(2, j1.info("replication").split("slave\\d:").length - 1, j1.info("replication"));
            }
        }
    }

    @Test
    void aReplicaLeavesEvictingToItsMaster() throws Exception {
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "maxmemory", "1", "maxmemory-policy", "allkeys-lru").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.replicaof("127.0.0.1", m.port());
            awaitLinkUp(j);
            for (int i = 0; i < 200; i++) c.set("k" + i, "v".repeat(100));
            assertEquals(1L, c.waitReplicas(1, 10_000));
            // replica-ignore-maxmemory yes (the default): far over maxmemory, nothing evicted.
            assertEquals(200L, j.dbSize());
            assertEquals(digest(c), digest(j));
        }
    }

    @Test
    void aMasterTurningReplicaLetsItsBlockedClientsGo() throws Exception {
        try (CinnabarServer m = server("master").build().start(); CinnabarServer r = server("replica").build().start();
             Jedis j = new Jedis("127.0.0.1", r.port()); java.net.Socket blocked = new java.net.Socket("127.0.0.1", r.port())) {
            blocked.setSoTimeout(10_000);
            blocked.getOutputStream().write("BLPOP foo 0\r\n".getBytes());
            for (int i = 0; i < 500 && !j.clientList().contains("cmd=blpop"); i++) Thread.sleep(10);
            j.replicaof("127.0.0.1", m.port());
            // Its keys now change only as the master says: Redis's disconnectAllBlockedClients.
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(blocked.getInputStream()));
            assertEquals("-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)", in.readLine());
            assertNull(in.readLine(), "and the connection is closed");
        }
    }

    @Test
    void aReplicaLeavesExpiringToItsMaster() throws Exception {
        ManualClock masterClock = new ManualClock(), replicaClock = new ManualClock(masterClock.millis());
        try (CinnabarServer m = server("master").clock(masterClock).build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica").clock(replicaClock).build().start(); Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.replicaof("127.0.0.1", m.port());
            awaitLinkUp(j);
            c.psetex("soon", 1000, "v");
            c.incr("counter");
            assertEquals(1L, c.waitReplicas(1, 10_000));
            replicaClock.advance(Duration.ofSeconds(2));
            // Past its TTL by the replica's clock: gone to readers, still stored until the master says so.
            assertNull(j.get("soon"));
            assertEquals(2L, j.dbSize());
            // A TTL already past by the replica's clock when it arrives is set, not acted on (checkAlreadyExpired).
            c.set("late", "v");
            c.pexpire("late", 1000);
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertNull(j.get("late"));
            assertEquals(3L, j.dbSize());
            masterClock.advance(Duration.ofSeconds(2));
            assertEquals(1L, c.waitReplicas(1, 10_000));
            assertEquals(1L, j.dbSize(), "the master's expiry reached the replica as DELs");
        }
    }

    @Test
    void aWritableReplicaExpiresTheKeysItsOwnClientsGaveATtl() throws Exception {
        ManualClock replicaClock = new ManualClock();
        try (CinnabarServer m = server("master").build().start(); Jedis c = new Jedis("127.0.0.1", m.port());
             CinnabarServer r = server("replica", "replica-read-only", "no").clock(replicaClock).build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            j.replicaof("127.0.0.1", m.port());
            awaitLinkUp(j);
            j.psetex("own", 1000, "v");
            j.set("forever", "v");
            replicaClock.advance(Duration.ofSeconds(2));
            // The master knows nothing of these keys: the replica's cron expires them (expireSlaveKeys).
            for (int i = 0; i < 500 && j.dbSize() != 1; i++) Thread.sleep(20);
            assertEquals(1L, j.dbSize());
            assertEquals("v", j.get("forever"));
        }
    }

    /**
     * Failovers between real Redis and Cinnabar keep partial resynchronisation working both ways:
     * a Cinnabar replica continues from a promoted Redis replica, then, promoted itself, serves
     * +CONTINUE to that Redis server.
     */
    @Test
    void failoversBetweenRealRedisAndCinnabarContinueTheStream() throws Exception {
        try (RealRedis master = RealRedis.start(Files.createDirectories(dir.resolve("redis-master")), "--enable-debug-command", "yes");
             RealRedis other = RealRedis.start(Files.createDirectories(dir.resolve("redis-replica")), "--enable-debug-command", "yes",
                     "--replicaof", "127.0.0.1", Integer.toString(master.port));
             Jedis rm = master.client(); Jedis rr = other.client();
             CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + master.port).build().start();
             Jedis j = new Jedis("127.0.0.1", r.port())) {
            awaitLinkUp(j);
            awaitLinkUp(rr);
            DataSet.writeOfEveryKind(rm);
            assertEquals(2L, rm.waitReplicas(2, 10_000));

            assertEquals("OK", rr.replicaofNoOne());
            rr.set("written on redis", "1");
            j.replicaof("127.0.0.1", other.port);
            awaitInfo(rr, "stats", "sync_partial_ok:1\r\n");
            awaitLinkUp(j);
            assertReplicated(rr, j);
            assertEquals(field(rr.info("replication"), "master_repl_offset"), field(j.info("replication"), "master_repl_offset"));

            assertEquals("OK", j.replicaofNoOne());
            j.set("written on cinnabar", "2");
            rr.replicaof("127.0.0.1", r.port());
            awaitInfo(j, "stats", "sync_partial_ok:1\r\n");
            // Two failovers back, the old master's id is no longer one of the two kept: a full sync, as in Redis.
            rm.replicaof("127.0.0.1", r.port());
            awaitInfo(j, "stats", "sync_full:1\r\n");
            awaitLinkUp(rr);
            awaitLinkUp(rm);
            assertReplicated(j, rr, rm);
            assertTrue(j.info("stats").contains("sync_full:1\r\nsync_partial_ok:1\r\n"), j.info("stats"));
        }
    }

    @Test
    void aCinnabarReplicaFollowsARealRedisMaster() throws Exception {
        try (RealRedis redis = RealRedis.start(Files.createDirectories(dir.resolve("redis")), "--repl-diskless-sync-delay", "0",
                "--enable-debug-command", "yes"); Jedis c = redis.client()) {
            DataSet.fill(c);
            try (CinnabarServer r = server("replica", "replicaof", "127.0.0.1 " + redis.port).build().start();
                 Jedis j = new Jedis("127.0.0.1", r.port())) {
                awaitLinkUp(j);
                DataSet.writeOfEveryKind(c);
                assertEquals(1L, c.waitReplicas(1, 10_000), "the replica acknowledged every write");
                assertEquals(digest(c), digest(j));
                assertEquals(field(c.info("replication"), "master_repl_offset"), field(j.info("replication"), "slave_repl_offset"));
                // Redis continues the stream of a replica whose link dropped.
                j.clientKill(new ClientKillParams().type(ClientType.MASTER));
                c.set("during", "x");
                awaitInfo(c, "stats", "sync_partial_ok:1\r\n");
                awaitLinkUp(j);
                assertEquals(1L, c.waitReplicas(1, 10_000));
                assertEquals(digest(c), digest(j));
                assertTrue(c.info("stats").contains("sync_partial_ok:1\r\n"), c.info("stats"));
            }
        }
    }

    private static List<Object> role(Jedis j) {
        List<Object> role = j.role();
        return role.stream().map(o -> o instanceof byte[] b ? new String(b) : o).toList();
    }

    private static long field(String info, String name) {
        return Long.parseLong(field(info, name, ""));
    }

    private static String field(String info, String name, String ignored) {
        for (String line : info.split("\r\n")) if (line.startsWith(name + ":")) return line.substring(name.length() + 1);
        throw new AssertionError(name + " not in " + info);
    }

    /** A master and two replicas with their links up, and a client of each. */
    private record Group(CinnabarServer m, CinnabarServer r1, CinnabarServer r2, Jedis c, Jedis j1, Jedis j2) implements AutoCloseable {
        @Override
        public void close() {
            for (AutoCloseable a : new AutoCloseable[] {j2, j1, c, r2, r1, m}) {
                try {
                    a.close();
                } catch (Exception ignored) {
                    // the others close all the same
                }
            }
        }
    }

    private Group masterAndTwoReplicas() throws Exception {
        CinnabarServer m = server("master").build().start();
        CinnabarServer r1 = server("replica1", "replicaof", "127.0.0.1 " + m.port()).build().start();
        CinnabarServer r2 = server("replica2", "replicaof", "127.0.0.1 " + m.port()).build().start();
        Group g = new Group(m, r1, r2, new Jedis("127.0.0.1", m.port()), new Jedis("127.0.0.1", r1.port()),
                new Jedis("127.0.0.1", r2.port()));
        awaitLinkUp(g.j1);
        awaitLinkUp(g.j2);
        return g;
    }

    /** Every replica acknowledged all the master's writes (WAIT), and holds the same data. */
    private static void assertReplicated(Jedis master, Jedis... replicas) {
        assertEquals(replicas.length, master.waitReplicas(replicas.length, 10_000));
        for (Jedis r : replicas) assertEquals(digest(master), digest(r));
    }

    private static String digest(Jedis j) {
        return new String((byte[]) j.sendCommand(() -> "DEBUG".getBytes(), "DIGEST"));
    }

    /** Until the replica's link to the master is up: the sync runs on its own time. */
    private static void awaitLinkUp(Jedis replica) throws InterruptedException {
        awaitInfo(replica, "replication", "master_link_status:up");
    }

    /** Until INFO section shows text: a link reconnects from the cron, on its own time. */
    private static void awaitInfo(Jedis j, String section, String text) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (j.info(section).contains(text)) return;
            Thread.sleep(20);
        }
        throw new AssertionError("never showed " + text + ": " + j.info(section));
    }
}
