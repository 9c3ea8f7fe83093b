package io.cinnabar.docs;

import io.cinnabar.CinnabarCluster;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** docs/testing.md, "A Redis Cluster in one JVM". */
class ClusterExampleIT {
    @Test
    void jedisClusterFollowsASlotToItsNewOwner() {
        try (CinnabarCluster cluster = CinnabarCluster.builder().masters(3).start();
             JedisCluster jedis = new JedisCluster(new HostAndPort("127.0.0.1", cluster.node(0).port()))) {
            jedis.set("user:{42}:name", "ann");
            jedis.set("user:{42}:city", "Oslo");   // same hash tag, same slot
            int slot = CinnabarCluster.slotOf("user:{42}:name");
            int owner = cluster.ownerOf(slot);

            cluster.moveSlot(slot, (owner + 1) % 3);   // MIGRATING/IMPORTING, keys moved, slot handed over

            assertNotEquals(owner, cluster.ownerOf(slot));
            assertEquals("ann", jedis.get("user:{42}:name"));   // JedisCluster followed the -MOVED
            assertEquals(2, jedis.del("user:{42}:name", "user:{42}:city"));
        }
    }
}
