package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stream queued for replicas, as Redis 7.0 accounts its shared replication buffer: in used
 * memory once (INFO mem_total_replication_buffers), past repl-backlog-size as the replicas' own
 * (mem_clients_slaves) and not counted for maxmemory (mem_not_counted_for_evict), so that a
 * replica that stops reading does not evict the master's data. Replicas are not clients in
 * INFO's connected_clients.
 */
class ReplicationBuffersIT {
    private static final String VALUE = "x".repeat(10_000);

    @Test
    void aReplicaThatStopsReadingNeitherEvictsNorCountsAsAClient() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("repl-diskless-sync-delay", "0")
                .option("repl-backlog-size", "16kb").option("maxmemory-policy", "allkeys-random").build().start();
             Jedis c = new Jedis("127.0.0.1", server.port()); RespSocket replica = new RespSocket(server.port())) {
            for (int i = 0; i < 100; i++) c.setrange("key:" + i, 10_000, "asdf");
            replica.fullSync(); // and then it reads nothing
            assertEquals(1L, field(c.info("clients"), "connected_clients"), "the replica is not counted");

            long used = field(c.info("memory"), "used_memory");
            long notCounted = field(c.info("memory"), "mem_not_counted_for_evict");
            c.configSet("maxmemory", Long.toString(used - notCounted + 256 * 1024));
            // ~30 MB of writes that do not grow the data, which the replica never reads.
            for (int i = 0; i < 3000; i++) c.setrange("key:0", 0, VALUE);

            String memory = c.info("memory");
            assertEquals(100L, c.dbSize(), "nothing evicted");
            long buffers = field(memory, "mem_total_replication_buffers");
            assertTrue(buffers > 4 << 20, memory);
            assertEquals(buffers - 16 * 1024, field(memory, "mem_clients_slaves"), memory);
            assertEquals(16 * 1024, field(memory, "mem_replication_backlog"), memory);
            assertEquals(buffers - 16 * 1024, field(memory, "mem_not_counted_for_evict"), memory);
            assertTrue(field(memory, "used_memory") > used + buffers - 1024 * 1024, memory);
        }
    }

    @Test
    void aSmallerBacklogDropsItsOldestBlocksAtOnce() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("repl-diskless-sync-delay", "0").build().start();
             Jedis c = new Jedis("127.0.0.1", server.port()); RespSocket replica = new RespSocket(server.port())) {
            replica.fullSync();
            for (int i = 0; i < 20; i++) c.set("k" + i, VALUE);
            assertTrue(field(c.info("replication"), "repl_backlog_histlen") > 200_000);
            // As Redis's resizeReplicationBacklog: a PSYNC right after finds the new size.
            c.configSet("repl-backlog-size", "16384");
            long histlen = field(c.info("replication"), "repl_backlog_histlen");
            assertTrue(histlen >= 16384 && histlen <= 2 * 16384, "repl_backlog_histlen:" + histlen);
        }
    }

    private static long field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) return Long.parseLong(line.substring(name.length() + 1));
        }
        throw new AssertionError(name + " not in " + info);
    }
}
