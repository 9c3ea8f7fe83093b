package io.cinnabar;

import io.cinnabar.command.cluster.ClusterNode;
import io.cinnabar.command.cluster.ClusterState;
import io.cinnabar.command.cluster.HashSlot;
import io.cinnabar.command.cluster.KeyMover;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Redis Cluster in one JVM, for tests of cluster clients: N masters on loopback, each a
 * {@link CinnabarServer} with its own keyspace and port, splitting the 16384 slots as
 * {@code redis-cli --cluster create} does. They share one {@link ClusterState} instead of a
 * cluster bus, so a change made here (a slot moved, a node failed) is seen by all at once.
 * <pre>{@code
 * try (CinnabarCluster cluster = CinnabarCluster.builder().masters(3).start()) {
 *     JedisCluster jedis = new JedisCluster(new HostAndPort("127.0.0.1", cluster.node(0).port()));
 *     cluster.moveSlot(HashSlot.of("k"), 2);   // the client gets -MOVED and follows
 * }
 * }</pre>
 */
public final class CinnabarCluster implements AutoCloseable {
    private final ClusterState state;
    private final List<CinnabarServer> servers;
    private final List<ClusterNode> nodes;

    private CinnabarCluster(ClusterState state, List<CinnabarServer> servers, List<ClusterNode> nodes) {
        this.state = state;
        this.servers = servers;
        this.nodes = nodes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The i-th master (0-based, in slot order: node 0 serves slot 0). */
    public CinnabarServer node(int i) {
        return servers.get(i);
    }

    public List<CinnabarServer> nodes() {
        return List.copyOf(servers);
    }

    public int size() {
        return servers.size();
    }

    /** The 40-hex id of node i (CLUSTER MYID). */
    public String nodeId(int i) {
        return nodes.get(i).id();
    }

    /** The index of the node serving slot, -1 when none does. */
    public int ownerOf(int slot) {
        return nodes.indexOf(state.owner(slot));
    }

    /** The index of the node serving key's slot. */
    public int ownerOf(String key) {
        return ownerOf(HashSlot.of(key.getBytes(StandardCharsets.UTF_8)));
    }

    /** CLUSTER KEYSLOT of key. */
    public static int slotOf(String key) {
        return HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Opens the move of slot to node target: its owner marks it MIGRATING and the target
     * IMPORTING, as {@code CLUSTER SETSLOT} does. Keys not moved yet are served by the owner;
     * for moved ones it answers {@code -ASK} and the target serves them after ASKING.
     */
    public void beginSlotMigration(int slot, int target) {
        ClusterNode from = owner(slot), to = nodes.get(target);
        if (from == to) throw new IllegalArgumentException("node " + target + " already serves slot " + slot);
        state.importing(to, slot, from);
        state.migrating(from, slot, to);
    }

    /** Moves the keys of a slot being migrated (all of them, or just key when not null) to the target, as MIGRATE does. */
    public void migrateKeys(int slot, String key) {
        ClusterNode from = owner(slot), to = state.migratingTo(from, slot);
        if (to == null) throw new IllegalStateException("slot " + slot + " is not being migrated: call beginSlotMigration first");
        if (key != null && HashSlot.of(key.getBytes(StandardCharsets.UTF_8)) != slot) {
            throw new IllegalArgumentException("key " + key + " is not in slot " + slot);
        }
        moveKeys(slot, key == null ? null : key.getBytes(StandardCharsets.UTF_8), servers.get(nodes.indexOf(from)),
                servers.get(nodes.indexOf(to)));
    }

    /**
     * Ends the move of slot: the keys left go over, the target owns the slot (with a new config
     * epoch) and both nodes mark it stable, as {@code CLUSTER SETSLOT <slot> NODE <target>} on
     * each does. Clients asking the old owner get {@code -MOVED} from now on.
     */
    public void finishSlotMigration(int slot) {
        ClusterNode from = owner(slot), to = state.migratingTo(from, slot);
        if (to == null) throw new IllegalStateException("slot " + slot + " is not being migrated: call beginSlotMigration first");
        migrateKeys(slot, null);
        state.assign(slot, to);
        state.bumpEpoch(to);
        state.migrating(from, slot, null);
        state.importing(to, slot, null);
        redirectBlockedClients();
    }

    /** Moves slot, with its keys, to node target in one step. */
    public void moveSlot(int slot, int target) {
        beginSlotMigration(slot, target);
        finishSlotMigration(slot);
    }

    /**
     * Stops node i and marks it failed, as the other nodes would after cluster-node-timeout:
     * with its slots unserved the cluster is down (CLUSTERDOWN) unless
     * cluster-require-full-coverage is no. There are no replicas to fail over to.
     */
    public void failNode(int i) {
        servers.get(i).close();
        state.failed(nodes.get(i), true);
        redirectBlockedClients();
    }

    /** What each node's cron would do soon: clients blocked on keys it no longer serves are redirected at once. */
    private void redirectBlockedClients() {
        for (CinnabarServer s : servers) {
            if (!s.isRunning()) continue;
            s.onKeyspaceThread(c -> {
                c.blocked().redirectMovedSlots(c.cluster());
                return null;
            });
        }
    }

    /** Stops every node. */
    @Override
    public void close() {
        for (CinnabarServer s : servers) s.close();
    }

    private ClusterNode owner(int slot) {
        ClusterNode n = state.owner(slot);
        if (n == null) throw new IllegalStateException("slot " + slot + " is not served");
        return n;
    }

    /**
     * MIGRATE's steps: the source's keyspace thread serializes the keys and waits while the
     * target stores them, then deletes them, so no client sees a key on neither node.
     */
    private static void moveKeys(int slot, byte[] key, CinnabarServer from, CinnabarServer to) {
        from.onKeyspaceThread(src -> {
            List<KeyMover.Dumped> keys = KeyMover.dump(src.keyspace().db(0), slot, key, false);
            if (keys.isEmpty()) return null;
            to.onKeyspaceThread(dst -> {
                KeyMover.restore(dst.keyspace().db(0), dst.config(), keys);
                return null;
            });
            KeyMover.delete(src.keyspace().db(0), keys);
            return null;
        });
    }

    /**
     * Starts the servers on threads of their own: each start mostly waits (threads, bind, load),
     * so overlapping them saves most of it (the common pool has one thread on two cores).
     */
    private static void startAll(List<CinnabarServer> servers) {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(servers.size());
        try {
            List<java.util.concurrent.Future<CinnabarServer>> starts = new ArrayList<>();
            for (CinnabarServer s : servers) starts.add(pool.submit(s::start));
            for (java.util.concurrent.Future<CinnabarServer> f : starts) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while starting the cluster", e);
                }
            }
        } finally {
            pool.shutdown();
        }
    }

    public static final class Builder {
        private int masters = 3;
        private final Map<String, String> options = new LinkedHashMap<>();

        private Builder() {}

        /** How many masters (default 3). */
        public Builder masters(int n) {
            if (n < 1 || n > HashSlot.COUNT) throw new IllegalArgumentException("masters must be 1.." + HashSlot.COUNT);
            masters = n;
            return this;
        }

        /** A config option for every node, by its conf-file name (see CinnabarServer.Builder#option). */
        public Builder option(String name, String value) {
            options.put(name, value);
            return this;
        }

        /** Starts the nodes on free loopback ports; returns once all of them serve. */
        public CinnabarCluster start() {
            ClusterState state = new ClusterState();
            List<ClusterNode> nodes = new ArrayList<>();
            List<CinnabarServer> servers = new ArrayList<>();
            // redis-cli's allocation: each master gets the rounded share of 16384 / masters.
            double perNode = (double) HashSlot.COUNT / masters, cursor = 0;
            int first = 0;
            try {
                for (int i = 0; i < masters; i++) {
                    ClusterNode node = state.addNode("127.0.0.1");
                    state.configEpoch(node, i + 1);
                    int last = (int) Math.round(cursor + perNode - 1);
                    if (last > HashSlot.COUNT - 1 || i == masters - 1) last = HashSlot.COUNT - 1;
                    if (last < first) last = first;
                    state.assign(first, last, node);
                    first = last + 1;
                    cursor += perNode;
                    CinnabarServer.Builder b = CinnabarServer.builder().port(0);
                    options.forEach(b::option);
                    b.option("cluster-enabled", "yes");
                    servers.add(b.build().joinCluster(state, node));
                    nodes.add(node);
                }
                startAll(servers);
            } catch (RuntimeException e) {
                for (CinnabarServer s : servers) s.close();
                throw e;
            }
            return new CinnabarCluster(state, servers, nodes);
        }
    }
}
