package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Redis 7.0 replica of Cinnabar (redis-server --replicaof): after the full sync and a
 * stream of writes of every kind it holds what Cinnabar holds, and its acknowledgements answer
 * WAIT. Skipped where redis-server is not installed (CI installs it).
 */
class RealRedisReplicaIT {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"no", "yes"})
    void aRedisReplicaFollowsCinnabarThroughTheSyncAndTheStream(String appendonly) throws Exception {
        Path master = Files.createDirectories(dir.resolve("master")), replica = Files.createDirectories(dir.resolve("replica"));
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", master.toString()).option("appendonly", appendonly)
                .option("repl-diskless-sync-delay", "0").option("enable-debug-command", "yes").build().start();
             Jedis c = new Jedis("127.0.0.1", s.port())) {
            DataSet.fill(c);
            try (RealRedis r = RealRedis.start(replica, "--replicaof", "127.0.0.1", Integer.toString(s.port()),
                    "--enable-debug-command", "yes"); Jedis j = r.client()) {
                awaitLinkUp(j);
                DataSet.writeOfEveryKind(c);
                assertEquals(1L, c.waitReplicas(1, 10_000), "the replica acknowledged every write");
                c.configSet("min-replicas-to-write", "1");
                assertEquals("OK", c.set("guarded", "1"), "one good replica is enough");
                assertTrue(c.info("replication").contains("min_slaves_good_slaves:1\r\n"), c.info("replication"));
                assertEquals(1L, c.waitReplicas(1, 10_000));
                assertEquals(digest(c), digest(j));
                assertTrue(c.info("replication").contains("slave0:ip=127.0.0.1,port=" + r.port + ",state=online"), c.info("replication"));
                // PUBLISH reaches the replica's subscribers too.
                try (java.net.Socket sub = new java.net.Socket("127.0.0.1", r.port)) {
                    sub.setSoTimeout(10_000);
                    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(sub.getInputStream()));
                    sub.getOutputStream().write("SUBSCRIBE news\r\n".getBytes());
                    for (int i = 0; i < 6; i++) in.readLine(); // *3 $9 subscribe $4 news :1
                    c.publish("news", "hello");
                    assertEquals(java.util.List.of("*3", "$7", "message", "$4", "news", "$5", "hello"),
                            java.util.List.of(in.readLine(), in.readLine(), in.readLine(), in.readLine(), in.readLine(), in.readLine(), in.readLine()));
                }
                // A Redis replica whose link drops continues from Cinnabar's backlog.
                c.configSet("min-replicas-to-write", "0");
                j.clientKill(new redis.clients.jedis.params.ClientKillParams().type(redis.clients.jedis.args.ClientType.MASTER));
                c.set("during", "x");
                for (int i = 0; i < 1000 && !c.info("stats").contains("sync_partial_ok:1\r\n"); i++) Thread.sleep(20);
                awaitLinkUp(j);
                assertEquals(1L, c.waitReplicas(1, 10_000));
                assertEquals(digest(c), digest(j));
                assertTrue(c.info("stats").contains("sync_full:1\r\nsync_partial_ok:1\r\n"), c.info("stats"));
            }
        }
    }

    private static String digest(Jedis j) {
        return new String((byte[]) j.sendCommand(() -> "DEBUG".getBytes(), "DIGEST"));
    }

    /** Until the replica's link to the master is up: the sync runs on its own time. */
    private static void awaitLinkUp(Jedis replica) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            if (replica.info("replication").contains("master_link_status:up")) return;
            Thread.sleep(20);
        }
        throw new AssertionError("the replica never synced: " + replica.info("replication"));
    }
}
