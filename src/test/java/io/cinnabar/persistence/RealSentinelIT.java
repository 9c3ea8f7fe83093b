package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Cinnabar master and replica watched by a real Redis 7.0 Sentinel (Debian's redis-server run as
 * a sentinel), used through Jedis's JedisSentinelPool, as a Sentinel deployment uses them: the
 * sentinel finds the replica, a failover promotes it, and the pool's clients follow to it.
 */
class RealSentinelIT {
    @TempDir
    Path dir;

    @Test
    void aFailoverPromotesTheReplicaAndThePoolFollowsIt() throws Exception {
        String binary = RealRedis.requireTool("redis-server");
        try (CinnabarServer master = server("master").build().start();
             CinnabarServer replica = server("replica").option("replicaof", "127.0.0.1 " + master.port()).build().start();
             Jedis r = new Jedis("127.0.0.1", replica.port())) {
            await(() -> r.info("replication").contains("master_link_status:up"), "the replica's link is up");
            int port = LocalServers.freePort();
            Path conf = dir.resolve("sentinel.conf");
            Files.write(conf, List.of("port " + port, "bind 127.0.0.1", "dir " + dir,
                    "sentinel monitor mymaster 127.0.0.1 " + master.port() + " 1",
                    "sentinel down-after-milliseconds mymaster 5000", "sentinel failover-timeout mymaster 30000"));
            Process sentinel = new ProcessBuilder(binary, conf.toString(), "--sentinel", "--logfile", dir.resolve("sentinel.log").toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try (Jedis s = LocalServers.awaitPong(port);
                 JedisSentinelPool pool = new JedisSentinelPool("mymaster", Set.of("127.0.0.1:" + port))) {
                try (Jedis j = pool.getResource()) {
                    j.set("before", "1");
                }
                // The sentinel learns of the replica from the master's INFO, then asks it for its own.
                await(() -> s.sentinelReplicas("mymaster").stream().anyMatch(m -> m.get("flags").equals("slave")
                        && m.get("master-link-status").equals("ok") && m.get("port").equals(Integer.toString(replica.port()))),
                        "the sentinel knows the replica");

                assertEquals("OK", s.sentinelFailover("mymaster"));
                await(() -> s.sentinelGetMasterAddrByName("mymaster").get(1).equals(Integer.toString(replica.port())),
                        "the sentinel names the replica as master");
                await(() -> pool.getCurrentHostMaster().equals(new HostAndPort("127.0.0.1", replica.port())),
                        "the pool follows +switch-master");
                try (Jedis j = pool.getResource()) {
                    assertEquals("1", j.get("before"));
                    assertEquals("OK", j.set("after", "2"));
                }
                // The failover's CLIENT KILL TYPE normal closed every client the replica had, r's too.
                try (Jedis promoted = new Jedis("127.0.0.1", replica.port())) {
                    assertEquals("master", promoted.role().get(0));
                    assertEquals("2", promoted.get("after"));
                }
            } finally {
                sentinel.destroy();
                assertTrue(sentinel.waitFor(20, TimeUnit.SECONDS));
            }
        }
    }

    private CinnabarServer.Builder server(String name) throws Exception {
        return CinnabarServer.builder().port(0).option("dir", Files.createDirectories(dir.resolve(name)).toString());
    }

    /** Until condition holds: the sentinel works on its own clock (INFO and hello every 1-10 s). */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) return;
            Thread.sleep(50);
        }
        throw new AssertionError("never: " + what);
    }
}
