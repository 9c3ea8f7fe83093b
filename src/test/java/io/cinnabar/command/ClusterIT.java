package io.cinnabar.command;

import io.cinnabar.CinnabarCluster;
import io.cinnabar.CinnabarServer;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;

import java.util.List;
import java.util.Set;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A 3-master CinnabarCluster driven through plain connections, JedisCluster and Lettuce's RedisClusterClient. */
class ClusterIT {
    private CinnabarCluster cluster;

    @BeforeEach
    void start() {
        cluster = CinnabarCluster.builder().masters(3).start();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private Jedis jedis(int node) {
        return new Jedis("127.0.0.1", cluster.node(node).port());
    }

    private String address(int node) {
        return "127.0.0.1:" + cluster.node(node).port();
    }

    /** A key (with a {tag} so others can share its slot) that node serves. */
    private String tagOn(int node) {
        for (int i = 0; ; i++) {
            if (cluster.ownerOf("{t" + i + "}") == node) return "t" + i;
        }
    }

    @Test
    void slotsAreSplitAsRedisCliCreateDoes() {
        try (Jedis j = jedis(1)) {
            List<?> slots = (List<?>) cmd(j, "CLUSTER", "SLOTS");
            assertEquals(3, slots.size());
            int[][] ranges = {{0, 5460}, {5461, 10922}, {10923, 16383}};
            for (int i = 0; i < 3; i++) {
                List<?> range = (List<?>) slots.get(i);
                assertEquals((long) ranges[i][0], range.get(0));
                assertEquals((long) ranges[i][1], range.get(1));
                assertEquals(List.of("127.0.0.1", (long) cluster.node(i).port(), cluster.nodeId(i), List.of()), range.get(2));
            }
            assertEquals(cluster.nodeId(1), str(j, "CLUSTER", "MYID"));
            String info = str(j, "CLUSTER", "INFO");
            assertTrue(info.startsWith("cluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:16384\r\n"), info);
            assertTrue(info.contains("\r\ncluster_known_nodes:3\r\ncluster_size:3\r\ncluster_current_epoch:3\r\ncluster_my_epoch:2\r\n"), info);
            String nodes = str(j, "CLUSTER", "NODES");
            assertTrue(nodes.contains(cluster.nodeId(1) + " " + address(1) + "@" + (cluster.node(1).port() + 10000)
                    + " myself,master - 0 0 2 connected 5461-10922\n"), nodes);
            assertTrue(nodes.contains(" master - 0 "), nodes);
            assertEquals(3, nodes.split("\n").length);
            List<?> shards = (List<?>) cmd(j, "CLUSTER", "SHARDS");
            assertEquals(List.of("slots", List.of(0L, 5460L), "nodes", List.of(List.of("id", cluster.nodeId(0),
                    "port", (long) cluster.node(0).port(), "ip", "127.0.0.1", "endpoint", "127.0.0.1", "role", "master",
                    "replication-offset", 0L, "health", "online"))), shards.get(0));
            assertTrue(str(j, "INFO", "cluster").contains("cluster_enabled:1"));
        }
    }

    @Test
    void keysOfOtherNodesAreMovedAndSlotsMustMatch() {
        try (Jedis j = jedis(0)) {
            // "foo" is in slot 12182, node 2's; "a" and "b" are in different slots.
            assertEquals("MOVED 12182 " + address(2), error(() -> j.set("foo", "bar")));
            assertEquals("CROSSSLOT Keys in request don't hash to the same slot", error(() -> j.mset("{user}1", "x", "a", "y")));
            String tag = "{" + tagOn(0) + "}";
            assertEquals("OK", j.mset(tag + "1", "x", tag + "2", "y"));
            assertEquals(List.of("x", "y"), j.mget(tag + "1", tag + "2"));
            long slot = (Long) cmd(j, "CLUSTER", "KEYSLOT", tag + "1");
            assertEquals(2L, cmd(j, "CLUSTER", "COUNTKEYSINSLOT", Long.toString(slot)));
            assertEquals(1, ((List<?>) cmd(j, "CLUSTER", "GETKEYSINSLOT", Long.toString(slot), "1")).size());
            assertEquals("ERR Invalid slot", error(() -> cmd(j, "CLUSTER", "COUNTKEYSINSLOT", "16384")));
            // Keyless commands are served wherever they are sent.
            assertEquals("PONG", j.ping());
            assertEquals(2L, j.dbSize());
            assertEquals("ERR SELECT is not allowed in cluster mode", error(() -> j.select(1)));
            assertEquals("OK", j.select(0));
            assertEquals("ERR MOVE is not allowed in cluster mode", error(() -> j.move(tag + "1", 1)));
            // READONLY matters to replicas only: a master still redirects.
            assertEquals("OK", str(j, "READONLY"));
            assertTrue(str(j, "CLIENT", "INFO").contains(" flags=r "));
            assertEquals("MOVED 12182 " + address(2), error(() -> j.get("foo")));
            assertEquals("OK", str(j, "READWRITE"));
            assertTrue(str(j, "CLIENT", "INFO").contains(" flags=N "));
        }
    }

    @Test
    void transactionsAndScriptsAreRoutedByTheirKeys() {
        String tag = "{" + tagOn(0) + "}";
        try (Jedis j = jedis(0)) {
            assertEquals("OK", str(j, "MULTI"));
            assertEquals("MOVED 12182 " + address(2), error(() -> cmd(j, "SET", "foo", "1")));
            assertEquals("QUEUED", str(j, "SET", tag + "a", "1"));
            assertEquals("EXECABORT Transaction discarded because of previous errors.", error(() -> cmd(j, "EXEC")));
            assertNull(j.get(tag + "a"));
            assertEquals("OK", str(j, "MULTI"));
            assertEquals("QUEUED", str(j, "SET", tag + "a", "1"));
            assertEquals(List.of("OK"), cmd(j, "EXEC"));
            // EVAL's declared keys decide where it runs.
            assertEquals("MOVED 12182 " + address(2), error(() -> j.eval("return 1", 1, "foo")));
            assertEquals("CROSSSLOT Keys in request don't hash to the same slot", error(() -> j.eval("return 1", 2, tag, "foo")));
            assertEquals("1", j.eval("return redis.call('GET', KEYS[1])", 1, tag + "a"));
        }
    }

    /** The texts are a real Redis 7.0.15's, the same keys ("bar" and "b" are node 0's slots, "foo" is node 2's). */
    @Test
    void scriptsMayOnlyTouchLocalKeysOfOneSlot() {
        try (Jedis j = jedis(0)) {
            String nonLocal = error(() -> j.eval("return redis.call('get','foo')", 0));
            assertTrue(nonLocal.startsWith("ERR Script attempted to access a non local key in a cluster node script: "), nonLocal);
            assertTrue(nonLocal.endsWith(", on @user_script:1."), nonLocal);
            assertEquals("ERR Script attempted to access a non local key in a cluster node",
                    error(() -> j.eval("return redis.pcall('get','foo')", 0)));
            // Without a shebang a script may use several slots of its node; with one it may not.
            assertEquals("x", j.eval("redis.call('set','b','x') return redis.call('get','b')", 0));
            assertEquals("x", j.eval("redis.call('set','b','x') return redis.call('get','b') .. (redis.call('get','bar') or '')", 0));
            String crossSlot = error(() -> j.eval("#!lua\nredis.call('set','b','x') return redis.call('get','bar')", 0));
            assertTrue(crossSlot.startsWith("ERR Script attempted to access keys that do not hash to the same slot script: "), crossSlot);
            assertTrue(crossSlot.endsWith(", on @user_script:2."), crossSlot);
            crossSlot = error(() -> j.eval("#!lua\nreturn redis.call('get','bar')", 1, "b"));
            assertTrue(crossSlot.startsWith("ERR Script attempted to access keys that do not hash to the same slot"), crossSlot);
            assertNull(j.eval("#!lua flags=allow-cross-slot-keys\nredis.call('set','b','x') return redis.call('get','bar')", 0));
            assertEquals("ERR Can not run script on cluster, 'no-cluster' flag is set.",
                    error(() -> j.eval("#!lua flags=no-cluster\nreturn 1", 0)));
        }
    }

    @Test
    void jedisClusterFollowsMovedAfterASlotMove() {
        try (JedisCluster jc = new JedisCluster(Set.of(new HostAndPort("127.0.0.1", cluster.node(0).port())))) {
            for (int i = 0; i < 50; i++) jc.set("key" + i, "v" + i);
            for (int i = 0; i < 50; i++) assertEquals("v" + i, jc.get("key" + i));
            int slot = CinnabarCluster.slotOf("key7");
            int from = cluster.ownerOf(slot), to = (from + 1) % 3;
            jc.set("{key7}other", "w");
            cluster.moveSlot(slot, to);
            assertEquals(to, cluster.ownerOf(slot));
            try (Jedis old = jedis(from)) {
                assertEquals("MOVED " + slot + " " + address(to), error(() -> old.get("key7")));
                assertEquals(0L, cmd(old, "CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
            }
            // The client's slot cache is stale: it gets -MOVED, follows it and refreshes.
            assertEquals("v7", jc.get("key7"));
            assertEquals("w", jc.get("{key7}other"));
            jc.set("key7", "moved");
            try (Jedis now = jedis(to)) {
                assertEquals("moved", now.get("key7"));
                assertEquals(2L, cmd(now, "CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
                String nodes = str(now, "CLUSTER", "NODES");
                // The importing node took a new config epoch.
                assertTrue(nodes.contains(" myself,master - 0 0 4 connected"), nodes);
            }
        }
    }

    /** CLUSTER SLOTS in RESP3 carries a map (%0) per node: Jedis must still read the topology, and follow MOVED. */
    @Test
    void jedisClusterOverResp3() {
        var config = redis.clients.jedis.DefaultJedisClientConfig.builder().protocol(redis.clients.jedis.RedisProtocol.RESP3).build();
        try (JedisCluster jc = new JedisCluster(Set.of(new HostAndPort("127.0.0.1", cluster.node(1).port())), config)) {
            for (int i = 0; i < 20; i++) jc.set("k" + i, "v" + i);
            int slot = CinnabarCluster.slotOf("k5");
            cluster.moveSlot(slot, (cluster.ownerOf(slot) + 1) % 3);
            for (int i = 0; i < 20; i++) assertEquals("v" + i, jc.get("k" + i));
        }
    }

    @Test
    void askRedirectionsWhileASlotMigrates() {
        String tag = "{" + tagOn(0) + "}";
        int slot = CinnabarCluster.slotOf(tag);
        try (Jedis source = jedis(0); Jedis target = jedis(1)) {
            source.set(tag + "moved", "m");
            source.set(tag + "stays", "s");
            cluster.beginSlotMigration(slot, 1);
            assertTrue(str(source, "CLUSTER", "NODES").contains(" [" + slot + "->-" + cluster.nodeId(1) + "]"));
            assertTrue(str(target, "CLUSTER", "NODES").contains(" [" + slot + "-<-" + cluster.nodeId(0) + "]"));
            cluster.migrateKeys(slot, tag + "moved");
            // The source serves what it still has and sends the rest to the target with -ASK.
            assertEquals("s", source.get(tag + "stays"));
            assertEquals("ASK " + slot + " " + address(1), error(() -> source.get(tag + "moved")));
            assertEquals("ASK " + slot + " " + address(1), error(() -> source.set(tag + "new", "n")));
            assertEquals("TRYAGAIN Multiple keys request during rehashing of slot",
                    error(() -> source.mget(tag + "moved", tag + "stays")));
            // The target serves the slot only to a client that said ASKING, for one command.
            assertEquals("MOVED " + slot + " " + address(0), error(() -> target.get(tag + "moved")));
            assertEquals("OK", target.asking());
            assertEquals("m", target.get(tag + "moved"));
            assertEquals("MOVED " + slot + " " + address(0), error(() -> target.get(tag + "moved")));
            try (JedisCluster jc = new JedisCluster(Set.of(new HostAndPort("127.0.0.1", cluster.node(2).port())))) {
                assertEquals("m", jc.get(tag + "moved"));
                assertEquals("s", jc.get(tag + "stays"));
            }
            RedisClusterClient client = Lettuce.cluster(cluster.node(2).port());
            try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
                assertEquals("m", c.sync().get(tag + "moved"));
                assertEquals("s", c.sync().get(tag + "stays"));
            } finally {
                client.shutdown();
            }
            cluster.finishSlotMigration(slot);
            assertEquals("MOVED " + slot + " " + address(1), error(() -> source.get(tag + "stays")));
            assertEquals("s", target.get(tag + "stays"));
            assertTrue(!str(target, "CLUSTER", "NODES").contains("-<-"));
        }
    }

    @Test
    void lettuceClusterClientAcrossTheNodesAndAfterASlotMove() {
        RedisClusterClient client = Lettuce.cluster(cluster.node(0).port());
        try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
            RedisAdvancedClusterCommands<String, String> cmds = c.sync();
            assertEquals(3, c.getPartitions().size());
            for (int i = 0; i < 50; i++) cmds.set("key" + i, "v" + i);
            for (int i = 0; i < 50; i++) assertEquals("v" + i, cmds.get("key" + i));
            // Lettuce splits a cross-slot MGET by slot and sends each part to its node.
            assertEquals("v1", cmds.mget("key1", "key2", "key3").get(0).getValue());
            int[] perNode = new int[3];
            for (int n = 0; n < 3; n++) {
                try (Jedis j = jedis(n)) {
                    perNode[n] = (int) j.dbSize();
                }
            }
            assertEquals(50, perNode[0] + perNode[1] + perNode[2]);
            assertTrue(perNode[0] > 0 && perNode[1] > 0 && perNode[2] > 0);
            int slot = CinnabarCluster.slotOf("key3");
            cluster.moveSlot(slot, (cluster.ownerOf(slot) + 2) % 3);
            assertEquals("v3", cmds.get("key3"));
            cmds.set("key3", "after");
            assertEquals("after", cmds.get("key3"));
        } finally {
            client.shutdown();
        }
    }

    /** The README's example, step by step. */
    @Test
    void readmeExample() {
        try (JedisCluster jedis = new JedisCluster(new HostAndPort("127.0.0.1", cluster.node(0).port()))) {
            jedis.set("user:1", "ann");
            int slot = CinnabarCluster.slotOf("user:1");
            assertEquals(1, cluster.ownerOf(slot));
            cluster.beginSlotMigration(slot, 2);
            cluster.migrateKeys(slot, "user:1");
            try (Jedis source = jedis(1)) {
                assertEquals("ASK " + slot + " " + address(2), error(() -> source.get("user:1")));
            }
            assertEquals("ann", jedis.get("user:1"));
            cluster.finishSlotMigration(slot);
            assertEquals(2, cluster.ownerOf(slot));
            cluster.moveSlot(slot, 0);
            assertEquals("ann", jedis.get("user:1"));
            cluster.failNode(1);
            assertEquals("CLUSTERDOWN The cluster is down", error(() -> jedis.get("user:1")));
        }
    }

    @Test
    void aClientBlockedOnAMovedSlotIsRedirected() throws Exception {
        String key = "{" + tagOn(0) + "}list";
        int slot = CinnabarCluster.slotOf(key);
        try (RespSocket blocked = new RespSocket(cluster.node(0).port()); Jedis j = jedis(0)) {
            blocked.send("BLPOP", key, "0");
            for (int i = 0; i < 2000 && !j.info("clients").contains("blocked_clients:1\r"); i++) Thread.sleep(1);
            cluster.moveSlot(slot, 1);
            assertEquals(new RespSocket.Error("MOVED " + slot + " " + address(1)), blocked.read());
            assertTrue(j.info("clients").contains("blocked_clients:0\r"));
        }
    }

    @Test
    void publishReachesSubscribersOfEveryNode() throws Exception {
        try (RespSocket subscriber = new RespSocket(cluster.node(2).port()); Jedis publisher = jedis(0)) {
            assertEquals(List.of("subscribe", "news", 1L), subscriber.call("SUBSCRIBE", "news"));
            // The count is of this node's subscribers, as in Redis; the bus carries the message to the others.
            assertEquals(0L, publisher.publish("news", "hello"));
            assertEquals(List.of("message", "news", "hello"), subscriber.read());
        }
    }

    @Test
    void aFailedNodeTakesTheClusterDown() {
        cluster.failNode(2);
        try (Jedis j = jedis(0)) {
            assertTrue(str(j, "CLUSTER", "INFO").startsWith("cluster_state:fail\r\n"));
            assertTrue(str(j, "CLUSTER", "NODES").contains(" master,fail - 0 "));
            assertEquals("CLUSTERDOWN The cluster is down", error(() -> j.get("{" + tagOn(0) + "}")));
            assertEquals("PONG", j.ping());
        }
    }

    /** A cluster-enabled server on its own is a fresh one-node cluster: no slots until told, as a real node (texts from Redis 7.0.15). */
    @Test
    void aLoneClusterNodeServesTheSlotsItIsGiven() {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("cluster-enabled", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            String info = str(j, "CLUSTER", "INFO");
            assertTrue(info.startsWith("cluster_state:fail\r\ncluster_slots_assigned:0\r\n"), info);
            assertTrue(info.contains("cluster_known_nodes:1\r\n"), info);
            assertTrue(info.contains("cluster_current_epoch:0\r\ncluster_my_epoch:0\r\n"), info);
            assertEquals("CLUSTERDOWN Hash slot not served", error(() -> j.get("x")));
            assertEquals("OK", str(j, "CLUSTER", "SET-CONFIG-EPOCH", "5"));
            assertEquals("STILL 5", str(j, "CLUSTER", "BUMPEPOCH"));
            assertEquals("OK", str(j, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            assertEquals("ERR Slot 5 is already busy", error(() -> cmd(j, "CLUSTER", "ADDSLOTS", "5")));
            assertTrue(str(j, "CLUSTER", "INFO").startsWith("cluster_state:ok\r\ncluster_slots_assigned:16384\r\n"));
            assertEquals("OK", j.set("x", "1"));
            assertEquals("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.", error(() -> cmd(j, "CLUSTER", "FLUSHSLOTS")));
            assertEquals("ERR You should send CLUSTER FAILOVER to a replica", error(() -> cmd(j, "CLUSTER", "FAILOVER")));
            assertEquals("ERR syntax error", error(() -> cmd(j, "CLUSTER", "FAILOVER", "foo")));
            assertEquals("ERR Unknown node foo", error(() -> cmd(j, "CLUSTER", "REPLICAS", "foo")));
            assertEquals("ERR Unknown node foo", error(() -> cmd(j, "CLUSTER", "COUNT-FAILURE-REPORTS", "foo")));
            assertEquals("OK", str(j, "CLUSTER", "DELSLOTS", "5"));
            assertEquals("ERR Slot 5 is already unassigned", error(() -> cmd(j, "CLUSTER", "DELSLOTS", "5")));
            assertEquals("CLUSTERDOWN The cluster is down", error(() -> j.get("x")));
            assertTrue(str(j, "CLUSTER", "NODES").endsWith(" myself,master - 0 0 5 connected 0-4 6-16383\n"));
            assertEquals("ERR CLUSTER RESET can't be called with master nodes containing keys", error(() -> cmd(j, "CLUSTER", "RESET")));
            j.flushAll();
            String id = str(j, "CLUSTER", "MYID");
            assertEquals("ERR syntax error", error(() -> cmd(j, "CLUSTER", "RESET", "foo")));
            assertEquals("ERR This Redis command is not allowed from script",
                    error(() -> j.eval("return redis.pcall('cluster','reset','hard')", 0)));
            assertEquals("OK", str(j, "CLUSTER", "RESET", "HARD"));
            assertTrue(!id.equals(str(j, "CLUSTER", "MYID")));
            assertTrue(str(j, "CLUSTER", "INFO").contains("cluster_slots_assigned:0\r\n"));
            assertTrue(str(j, "CLUSTER", "INFO").contains("cluster_current_epoch:0\r\ncluster_my_epoch:0\r\n"));
        }
    }

    /** Patterns name keys of any slot: SORT refuses BY with a '*' and every GET in cluster mode (texts from Redis 7.0.15). */
    @Test
    void sortPatternsAreRefusedInClusterMode() {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("cluster-enabled", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", str(j, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            j.rpush("l", "3", "1", "2");
            assertEquals(List.of("3", "1", "2"), cmd(j, "SORT", "l", "BY", "nosort"));
            assertEquals("ERR BY option of SORT denied in Cluster mode.", error(() -> cmd(j, "SORT", "l", "BY", "w_*")));
            assertEquals("ERR BY option of SORT denied in Cluster mode.", error(() -> cmd(j, "SORT_RO", "l", "BY", "w_*")));
            assertEquals("ERR GET option of SORT denied in Cluster mode.", error(() -> cmd(j, "SORT", "l", "GET", "#")));
        }
    }

    @Test
    void clusterCommandsNeedClusterMode() {
        try (CinnabarServer server = CinnabarServer.builder().port(0).build().start();
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            String disabled = "ERR This instance has cluster support disabled";
            assertEquals(disabled, error(() -> cmd(j, "CLUSTER", "INFO")));
            assertEquals(disabled, error(() -> cmd(j, "CLUSTER", "KEYSLOT", "x")));
            assertEquals(disabled, error(() -> cmd(j, "READONLY")));
            assertEquals(disabled, error(() -> cmd(j, "ASKING")));
            assertEquals("OK", j.select(1));
            assertTrue(str(j, "INFO", "cluster").contains("cluster_enabled:0"));
        }
    }
}
