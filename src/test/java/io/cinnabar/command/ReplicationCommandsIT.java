package io.cinnabar.command;

import io.cinnabar.CinnabarCluster;
import io.cinnabar.ManualClock;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.junit.ClockMode;
import io.cinnabar.util.OwnThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.models.role.RedisInstance;
import io.lettuce.core.models.role.RedisMasterInstance;
import io.lettuce.core.models.role.RoleParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.ManualClockIT.blockedClients;
import static io.cinnabar.command.ManualClockIT.waitBlocked;
import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication commands of a master that has no replicas and cannot replicate (ROLE, WAIT,
 * REPLICAOF, FAILOVER, REPLCONF, SYNC), LOLWUT, RESTORE-ASKING and the cluster subcommands that
 * need a cluster bus, with Redis 7.0.15's replies and errors.
 */
@CinnabarTest(clock = ClockMode.MANUAL)
class ReplicationCommandsIT {
    @BeforeEach
    void empty(Jedis jedis) {
        jedis.flushAll();
    }

    @Test
    void roleIsAMasterAtTheOffsetInfoShowsWithNoReplicas(Jedis jedis, HostAndPort at) {
        assertEquals(List.of("master", 0L, List.of()), cmd(jedis, "ROLE"));
        assertTrue(jedis.info("replication").contains("master_repl_offset:0\r\n"));
        RedisClient client = Lettuce.client(at.getPort());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisInstance role = RoleParser.parse(c.sync().role());
            assertEquals(RedisInstance.Role.MASTER, role.getRole());
            assertEquals(0, ((RedisMasterInstance) role).getReplicationOffset());
            assertEquals(List.of(), ((RedisMasterInstance) role).getReplicas());
        } finally {
            client.shutdown();
        }
    }

    @Test
    void waitAnswersZeroAtOnceWhenNoReplicaIsNeededOrInsideMulti(Jedis jedis) {
        assertEquals(0L, cmd(jedis, "WAIT", "0", "0"));
        assertEquals(0L, cmd(jedis, "WAIT", "-1", "1000"));
        Transaction tx = jedis.multi();
        tx.waitReplicas(5, 0);
        assertEquals(List.of(0L), tx.exec());
    }

    @Test
    void waitRejectsBadArgumentsAsRedis(Jedis jedis) {
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "WAIT", "a", "0")));
        assertEquals("ERR timeout is not an integer or out of range", error(() -> cmd(jedis, "WAIT", "1", "1.5")));
        assertEquals("ERR timeout is negative", error(() -> cmd(jedis, "WAIT", "1", "-1")));
    }

    @Test
    void waitForAReplicaBlocksUntilItsTimeoutOnTheServerClockThenAnswersZero(Jedis jedis, HostAndPort at, ManualClock clock)
            throws Exception {
        try (Jedis waiter = new Jedis(at)) {
            CompletableFuture<Object> reply = OwnThread.supply(() -> cmd(waiter, "WAIT", "1", "5000"));
            waitBlocked(jedis, 1);
            clock.advance(Duration.ofMillis(5_000));
            // As a blocked pop, once the clock is past the timeout (Redis's timeout < now).
            assertEquals(1, blockedClients(jedis), "not yet due");
            clock.advance(Duration.ofMillis(1));
            assertEquals(0L, reply.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void waitWithoutTimeoutBlocksUntilClientUnblock(Jedis jedis, HostAndPort at, ManualClock clock) throws Exception {
        try (Jedis waiter = new Jedis(at)) {
            long id = waiter.clientId();
            CompletableFuture<Object> reply = OwnThread.supply(() -> cmd(waiter, "WAIT", "2", "0"));
            waitBlocked(jedis, 1);
            clock.advance(Duration.ofDays(365));
            assertEquals(1, blockedClients(jedis), "0 is forever");
            assertEquals(1L, jedis.clientUnblock(id));
            assertEquals(0L, reply.get(5, TimeUnit.SECONDS));

            CompletableFuture<String> failed = OwnThread.supply(() -> error(() -> cmd(waiter, "WAIT", "2", "0")));
            waitBlocked(jedis, 1);
            cmd(jedis, "CLIENT", "UNBLOCK", Long.toString(id), "ERROR");
            assertEquals("UNBLOCKED client unblocked via CLIENT UNBLOCK", failed.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void replicaofChecksThePortAndNoOneOfAMasterChangesNothing(Jedis jedis) {
        assertEquals("OK", str(jedis, "REPLICAOF", "NO", "ONE"));
        assertEquals("OK", str(jedis, "SLAVEOF", "no", "one"));
        assertEquals("ERR Invalid master port", error(() -> cmd(jedis, "REPLICAOF", "host", "70000")));
        assertEquals("ERR Invalid master port", error(() -> cmd(jedis, "REPLICAOF", "no", "two")));
        assertEquals(List.of("master", 0L, List.of()), cmd(jedis, "ROLE"), "still a master");
    }

    /** As a Redis replica whose master cannot be reached: Cinnabar's link never comes up. */
    @Test
    void aReplicaOfAMasterItCannotSyncFromServesReadsAndRefusesWritesUntilReplicaofNoOne(Jedis jedis) {
        jedis.set("kept", "v");
        try {
            assertEquals("OK", str(jedis, "REPLICAOF", "localhost", "0"));
            assertEquals("OK Already connected to specified master", str(jedis, "SLAVEOF", "LOCALHOST", "0"));
            assertEquals(List.of("slave", "localhost", 0L, "connect", -1L), cmd(jedis, "ROLE"));
            String info = jedis.info("replication");
            assertTrue(info.contains("role:slave\r\nmaster_host:localhost\r\nmaster_port:0\r\nmaster_link_status:down\r\n"), info);
            assertTrue(info.contains("slave_read_only:1\r\n"), info);
            assertEquals(Map.of("replicaof", "localhost 0"), jedis.configGet("replicaof"));

            assertEquals("v", jedis.get("kept"));
            String readonly = "READONLY You can't write against a read only replica.";
            assertEquals(readonly, error(() -> cmd(jedis, "SET", "kept", "w")));
            assertEquals(readonly, error(() -> cmd(jedis, "FLUSHALL")));
            assertTrue(error(() -> cmd(jedis, "EVAL", "return redis.call('set', 'x', '1')", "0")).startsWith(readonly + " script: "));
            // A script declaring flags without no-writes is a write command to processCommand.
            assertEquals(readonly, error(() -> cmd(jedis, "EVAL", "#!lua\nreturn 1", "0")));
            assertEquals(1L, cmd(jedis, "EVAL", "#!lua flags=no-writes\nreturn 1", "0"));
            assertTrue(error(() -> cmd(jedis, "WAIT", "0", "0")).startsWith("ERR WAIT cannot be used with replica instances."));
            assertEquals("ERR FAILOVER is not valid when server is a replica.", error(() -> cmd(jedis, "FAILOVER")));

            jedis.configSet("replica-read-only", "no");
            assertEquals("OK", jedis.set("kept", "w"), "a writable replica takes local writes");
        } finally {
            jedis.configSet("replica-read-only", "yes");
            assertEquals("OK", str(jedis, "REPLICAOF", "NO", "ONE"));
        }
        assertEquals(List.of("master", 0L, List.of()), cmd(jedis, "ROLE"));
        assertEquals(Map.of("replicaof", ""), jedis.configGet("replicaof"));
        assertEquals("OK", jedis.set("kept", "x"));
    }

    @Test
    void replicaofInTheConfigurationStartsAReplica() {
        try (io.cinnabar.CinnabarServer server = io.cinnabar.CinnabarServer.builder().port(0)
                .option("replicaof", "127.0.0.1 6380").build().start();
             Jedis replica = new Jedis("127.0.0.1", server.port())) {
            assertEquals(List.of("slave", "127.0.0.1", 6380L, "connect", -1L), cmd(replica, "ROLE"));
            assertEquals("READONLY You can't write against a read only replica.", error(() -> cmd(replica, "SET", "k", "v")));
        }
    }

    @Test
    void failoverChecksItsArgumentsThenNeedsAReplica(Jedis jedis) {
        assertEquals("ERR No failover in progress.", error(() -> cmd(jedis, "FAILOVER", "ABORT")));
        assertEquals("ERR FAILOVER requires connected replicas.", error(() -> cmd(jedis, "FAILOVER")));
        assertEquals("ERR FAILOVER requires connected replicas.",
                error(() -> cmd(jedis, "FAILOVER", "TO", "h", "1", "FORCE", "TIMEOUT", "5")));
        assertEquals("ERR FAILOVER timeout must be greater than 0", error(() -> cmd(jedis, "FAILOVER", "TIMEOUT", "0")));
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "FAILOVER", "TO", "h", "x")));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "FAILOVER", "FORCE", "FORCE")));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "FAILOVER", "ABORT", "x")));
    }

    @Test
    void replconfFromAClientThatIsNoReplica(Jedis jedis) {
        assertEquals("OK", str(jedis, "REPLCONF", "listening-port", "6380", "capa", "eof", "capa", "psync2"));
        assertEquals("OK", str(jedis, "REPLCONF", "rdb-filter-only", "functions"));
        assertEquals("ERR syntax error", error(() -> cmd(jedis, "REPLCONF", "capa")));
        assertEquals("ERR Unrecognized REPLCONF option: x", error(() -> cmd(jedis, "REPLCONF", "x", "y")));
        assertEquals("ERR value is out of range, value must between 0 and 1", error(() -> cmd(jedis, "REPLCONF", "rdb-only", "5")));
        assertEquals("ERR Missing rdb-filter-only values", error(() -> cmd(jedis, "REPLCONF", "rdb-filter-only", "\"abc")));
        assertEquals("ERR Unsupported rdb-filter-only option: x",
                error(() -> cmd(jedis, "REPLCONF", "rdb-filter-only", "functions x")));
    }

    @Test
    void replconfAckGetsNoReplyAsInRedis(Jedis jedis, HostAndPort at) throws Exception {
        try (RespSocket s = new RespSocket(at.getPort())) {
            s.send("REPLCONF", "ACK", "5");
            s.send("PING");
            assertEquals("+PONG", s.line(), "PING's is the first reply");
        }
    }

    @Test
    void lolwutPrintsTheVersionAndVersions5And6DrawArt(Jedis jedis) {
        assertEquals("Redis ver. 7.0.15\n", str(jedis, "LOLWUT"));
        assertEquals("Redis ver. 7.0.15\n", str(jedis, "LOLWUT", "VERSION", "7", "10"));
        String schotter = str(jedis, "LOLWUT", "VERSION", "5", "10", "2", "2");
        assertTrue(schotter.endsWith("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n"), schotter);
        assertTrue(schotter.chars().anyMatch(ch -> ch > 0x2800 && ch <= 0x28ff), "Braille pixels");
        String skyline = str(jedis, "LOLWUT", "VERSION", "6", "4", "3");
        assertEquals(4, skyline.split("\n")[0].split("\033\\[0m", -1).length - 1, "4 cells a row");
        assertEquals(3 + 2, skyline.split("\n").length, "3 rows and 2 lines of credits");
        assertTrue(skyline.endsWith("Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15\n"));
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(jedis, "LOLWUT", "VERSION", "6", "x")));
    }

    @Test
    void restoreAskingRestoresAsRestoreDoes(Jedis jedis) {
        jedis.rpush("l", "a", "b");
        byte[] dump = jedis.dump("l");
        jedis.del("l");
        assertEquals("OK", new String((byte[]) jedis.sendCommand(() -> "RESTORE-ASKING".getBytes(), "l".getBytes(), "0".getBytes(), dump)));
        assertEquals(List.of("a", "b"), jedis.lrange("l", 0, -1));
        assertEquals("BUSYKEY Target key name already exists.",
                error(() -> jedis.sendCommand(() -> "RESTORE-ASKING".getBytes(), "l".getBytes(), "0".getBytes(), dump)));
    }

    @Test
    void theCommandTableHasAllOfRedisCommands(Jedis jedis) {
        assertEquals(240L, cmd(jedis, "COMMAND", "COUNT"));
    }

    @Test
    void clusterBusSubcommandsNeedClusterMode(Jedis jedis) {
        for (String[] args : List.of(new String[]{"FORGET", "x"}, new String[]{"MEET", "127.0.0.1", "7000"},
                new String[]{"REPLICATE", "x"})) {
            assertEquals("ERR This instance has cluster support disabled", error(() -> cmd(jedis, "CLUSTER", args)));
        }
    }

    @Test
    void clusterNodesMeetOnlyEachOtherAndRefuseToForgetOrReplicate() {
        try (CinnabarCluster cluster = CinnabarCluster.builder().masters(2).start();
             Jedis one = new Jedis("127.0.0.1", cluster.node(0).port())) {
            String myId = str(one, "CLUSTER", "MYID");
            String otherPort = Integer.toString(cluster.node(1).port());
            assertEquals("OK", str(one, "CLUSTER", "MEET", "127.0.0.1", otherPort));
            assertEquals("ERR Invalid TCP base port specified: x", error(() -> cmd(one, "CLUSTER", "MEET", "127.0.0.1", "x")));
            assertEquals("ERR Invalid node address specified: nohost:1", error(() -> cmd(one, "CLUSTER", "MEET", "nohost", "1")));
            assertEquals("ERR Unknown node abc", error(() -> cmd(one, "CLUSTER", "FORGET", "abc")));
            assertEquals("ERR I tried hard but I can't forget myself...", error(() -> cmd(one, "CLUSTER", "FORGET", myId)));
            assertEquals("ERR Can't replicate myself", error(() -> cmd(one, "CLUSTER", "REPLICATE", myId)));
            assertEquals("ERR REPLICAOF not allowed in cluster mode.", error(() -> cmd(one, "REPLICAOF", "NO", "ONE")));
            assertEquals("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.",
                    error(() -> cmd(one, "FAILOVER")));
        }
    }
}
