package io.cinnabar.command.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the nodes of a cluster agree on: the masters, which one serves each slot, and the slots
 * being moved (MIGRATING on the source, IMPORTING on the target). Nodes of one JVM share a single
 * instance instead of gossiping over a cluster bus, so a change is seen by all of them at once.
 * Any thread may read; changes (CLUSTER ADDSLOTS/SETSLOT on a keyspace thread, test controls on
 * the test's) are serialised by this object's lock.
 */
public final class ClusterState {
    private final List<ClusterNode> nodes = new CopyOnWriteArrayList<>();
    private final AtomicReferenceArray<ClusterNode> owners = new AtomicReferenceArray<>(HashSlot.COUNT);
    /** Per node: slot → the node it migrates to (Redis's migrating_slots_to of that node). */
    private final Map<ClusterNode, Map<Integer, ClusterNode>> migrating = new ConcurrentHashMap<>();
    /** Per node: slot → the node it imports from (Redis's importing_slots_from of that node). */
    private final Map<ClusterNode, Map<Integer, ClusterNode>> importing = new ConcurrentHashMap<>();
    private volatile long currentEpoch;
    /** Per running node: how it takes a PUBLISH made on another node (what the cluster bus carries in Redis). */
    private final Map<ClusterNode, java.util.function.BiConsumer<byte[], byte[]>> publishReceivers = new ConcurrentHashMap<>();
    /** Every slot served by a node that has not failed: kept up to date by each change, read per command. */
    private volatile boolean covered;

    /** A new master that serves no slot yet, with config epoch 0 as a fresh Redis node; its port is set once it listens. */
    public synchronized ClusterNode addNode(String ip) {
        ClusterNode n = new ClusterNode(ip, 0);
        nodes.add(n);
        migrating.put(n, new ConcurrentHashMap<>());
        importing.put(n, new ConcurrentHashMap<>());
        return n;
    }

    /**
     * CLUSTER RESET of node n: the state it goes on with alone, knowing no other node and serving
     * no slot (the others keep their view of it, as Redis's would until gossip told them). A
     * hard reset also gives it a new id and epoch 0.
     */
    public synchronized ClusterState resetFor(ClusterNode n, boolean hard) {
        ClusterState fresh = new ClusterState();
        ClusterNode me = new ClusterNode(hard ? ClusterNode.randomId() : n.id(), n.ip(), hard ? 0 : n.configEpoch());
        me.port(n.port());
        fresh.nodes.add(me);
        fresh.migrating.put(me, new ConcurrentHashMap<>());
        fresh.importing.put(me, new ConcurrentHashMap<>());
        fresh.currentEpoch = hard ? 0 : currentEpoch;
        return fresh;
    }

    public List<ClusterNode> nodes() { return nodes; }

    /** How node n receives the messages PUBLISHed on the others; null when it stops. */
    public void onPublish(ClusterNode n, java.util.function.BiConsumer<byte[], byte[]> receiver) {
        if (receiver == null) publishReceivers.remove(n); else publishReceivers.put(n, receiver);
    }

    /** Redis's clusterPropagatePublish: a PUBLISH on node from reaches the subscribers of every other node. */
    public void publishFrom(ClusterNode from, byte[] channel, byte[] message) {
        publishReceivers.forEach((n, receiver) -> {
            if (n != from) receiver.accept(channel, message);
        });
    }

    /** The node now listens on port (also after CONFIG SET port). */
    public void listening(ClusterNode n, int port) { n.port(port); }

    public ClusterNode node(String id) {
        for (ClusterNode n : nodes) if (n.id().equals(id)) return n;
        return null;
    }

    public long currentEpoch() { return currentEpoch; }

    /** The node serving slot, null when none is. */
    public ClusterNode owner(int slot) { return owners.get(slot); }

    public synchronized void assign(int slot, ClusterNode n) {
        owners.set(slot, n);
        covered = computeCovered();
    }

    public synchronized void assign(int from, int to, ClusterNode n) {
        for (int s = from; s <= to; s++) owners.set(s, n);
        covered = computeCovered();
    }

    public ClusterNode migratingTo(ClusterNode of, int slot) {
        Map<Integer, ClusterNode> m = migrating.get(of);
        return m.isEmpty() ? null : m.get(slot);
    }

    public ClusterNode importingFrom(ClusterNode of, int slot) {
        Map<Integer, ClusterNode> m = importing.get(of);
        return m.isEmpty() ? null : m.get(slot);
    }

    public synchronized void migrating(ClusterNode of, int slot, ClusterNode to) {
        if (to == null) migrating.get(of).remove(slot); else migrating.get(of).put(slot, to);
    }

    public synchronized void importing(ClusterNode of, int slot, ClusterNode from) {
        if (from == null) importing.get(of).remove(slot); else importing.get(of).put(slot, from);
    }

    /** A slot node is moving: to peer when migrating, from peer when importing. */
    record OpenSlot(int slot, ClusterNode peer, boolean migrating) { }

    /** The open slots of node, in slot order, for CLUSTER NODES's "[slot->-id]" and "[slot-<-id]". */
    List<OpenSlot> openSlots(ClusterNode of) {
        List<OpenSlot> out = new ArrayList<>();
        Map<Integer, ClusterNode> m = migrating.get(of), i = importing.get(of);
        if (m.isEmpty() && i.isEmpty()) return out;
        for (int s = 0; s < HashSlot.COUNT; s++) {
            ClusterNode to = m.get(s);
            if (to != null) out.add(new OpenSlot(s, to, true));
            else if (i.get(s) != null) out.add(new OpenSlot(s, i.get(s), false));
        }
        return out;
    }

    /** CLUSTER SET-CONFIG-EPOCH, as redis-cli --cluster create gives each master its own. */
    public synchronized void configEpoch(ClusterNode n, long epoch) {
        n.configEpoch(epoch);
        if (currentEpoch < epoch) currentEpoch = epoch;
    }

    /**
     * Redis's clusterBumpConfigEpochWithoutConsensus (a node took a slot it imported, BUMPEPOCH):
     * a new epoch unless n already has the greatest; true when it got one.
     */
    public synchronized boolean bumpEpoch(ClusterNode n) {
        long max = currentEpoch;
        for (ClusterNode o : nodes) max = Math.max(max, o.configEpoch());
        if (n.configEpoch() != 0 && n.configEpoch() == max) return false;
        n.configEpoch(++currentEpoch);
        return true;
    }

    /** Slots owned by n. */
    public int slotCount(ClusterNode n) {
        int count = 0;
        for (int s = 0; s < HashSlot.COUNT; s++) if (owners.get(s) == n) count++;
        return count;
    }

    public synchronized void failed(ClusterNode n, boolean failed) {
        n.failed(failed);
        covered = computeCovered();
    }

    /** Every slot is served by a node that has not failed (what cluster-require-full-coverage yes needs). */
    public boolean covered() {
        return covered;
    }

    private boolean computeCovered() {
        for (int s = 0; s < HashSlot.COUNT; s++) {
            ClusterNode n = owners.get(s);
            if (n == null || n.failed()) return false;
        }
        return true;
    }

    /** Slot ranges [start, end] owned by n, ascending. */
    public List<int[]> ranges(ClusterNode n) {
        List<int[]> out = new ArrayList<>();
        int start = -1;
        for (int s = 0; s <= HashSlot.COUNT; s++) {
            boolean mine = s < HashSlot.COUNT && owners.get(s) == n;
            if (mine && start < 0) start = s;
            if (!mine && start >= 0) {
                out.add(new int[] {start, s - 1});
                start = -1;
            }
        }
        return out;
    }
}
