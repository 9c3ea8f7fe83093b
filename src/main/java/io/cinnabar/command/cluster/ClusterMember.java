package io.cinnabar.command.cluster;

import io.cinnabar.command.Client;
import io.cinnabar.command.CommandFlag;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Entry;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * One node's part in a cluster: who it is in the shared {@link ClusterState}, and Redis's
 * getNodeByQuery, which decides whether a call is served here or redirected (MOVED, ASK) or
 * refused (CROSSSLOT, TRYAGAIN, CLUSTERDOWN). Used on the node's keyspace thread only.
 */
public final class ClusterMember {
    /** Outcomes of {@link #route}: Redis's CLUSTER_REDIR_* codes. */
    public static final int NONE = 0, CROSS_SLOT = 1, UNSTABLE = 2, ASK = 3, MOVED = 4, DOWN_STATE = 5,
            DOWN_RO_STATE = 6, DOWN_UNBOUND = 7;

    /** Shared with the other nodes of the cluster, until CLUSTER RESET leaves it for a state of its own. */
    private ClusterState state;
    private ClusterNode myself;
    private final Config config;
    /** What the last {@link #route} found: the slot and the node named by a redirection. */
    private int slot;
    private ClusterNode target;
    /** Scratch state of one {@link #route}, reused: the key finder reports keys through {@link #key}. */
    private byte[][] argv;
    private byte[] firstKey;
    private boolean crossSlot, multipleKeys, unbound, countKeys;
    private int missing, existing;
    private Database db0;
    private final IntConsumer onKey = this::key, onCount = this::countOnly;

    public ClusterMember(ClusterState state, ClusterNode myself, Config config) {
        this.state = state;
        this.myself = myself;
        this.config = config;
    }

    public ClusterState state() { return state; }
    public ClusterNode myself() { return myself; }

    /** CLUSTER RESET: this node goes on alone, with no slots (see {@link ClusterState#resetFor}). */
    public void reset(boolean hard) {
        ClusterState fresh = state.resetFor(myself, hard);
        state = fresh;
        myself = fresh.nodes().get(0);
    }

    /** The slot the last {@link #route} looked at (-1 when its call had no keys). */
    public int slot() { return slot; }

    /**
     * Redis's getNodeByQuery for the calls of one command (the queued ones for EXEC): NONE when
     * this node serves them, else the code of the redirection or refusal; {@link #error} words it.
     * callFlags: the command's {@link CommandSpec.CallFlags}.
     */
    public int route(Client client, List<CommandSpec> specs, List<byte[][]> argvs, int callFlags, boolean shardPubSub,
                     boolean askingCommand, Database db0) {
        this.db0 = db0;
        firstKey = null;
        crossSlot = multipleKeys = unbound = false;
        missing = existing = 0;
        slot = -1;
        target = null;
        boolean migratingSlot = false, importingSlot = false;
        for (int i = 0, n = specs.size(); i < n && !crossSlot && !unbound; i++) {
            argv = argvs.get(i);
            countKeys = !shardPubSub && (migratingSlot || importingSlot);
            int before = slot;
            specs.get(i).forEachKey(argv, onKey);
            if (before < 0 && slot >= 0 && !unbound) {
                // The first key fixed the slot: a slot being moved needs its keys counted, from the first one.
                ClusterNode owner = state.owner(slot);
                migratingSlot = owner == myself && state.migratingTo(myself, slot) != null;
                importingSlot = !migratingSlot && state.importingFrom(myself, slot) != null;
                if ((migratingSlot || importingSlot) && !shardPubSub) {
                    missing = existing = 0;
                    countKeys = true;
                    specs.get(i).forEachKey(argv, onCount);
                }
            }
        }
        argv = null;
        this.db0 = null;
        if (unbound) return DOWN_UNBOUND;
        if (crossSlot) return CROSS_SLOT;
        if (firstKey == null) return NONE;
        ClusterNode owner = state.owner(slot);
        if (!clusterOk()) {
            if (shardPubSub) {
                if (!config.getBool(ConfigOptions.CLUSTER_ALLOW_PUBSUBSHARD_WHEN_DOWN)) return DOWN_STATE;
            } else if (!config.getBool(ConfigOptions.CLUSTER_ALLOW_READS_WHEN_DOWN)) {
                return DOWN_STATE;
            } else if ((callFlags & CommandSpec.CallFlags.WRITE) != 0) {
                return DOWN_RO_STATE;
            }
        }
        if (migratingSlot && missing > 0) {
            if (existing > 0) return UNSTABLE;
            target = state.migratingTo(myself, slot);
            return ASK;
        }
        if (importingSlot && (client.isAsking() || askingCommand)) {
            return multipleKeys && missing > 0 ? UNSTABLE : NONE;
        }
        if (owner != myself) {
            target = owner;
            return MOVED;
        }
        return NONE;
    }

    /** Redis's cluster state: ok unless a slot is unserved (or its node failed) under cluster-require-full-coverage. */
    public boolean clusterOk() {
        return state.covered() || !config.getBool(ConfigOptions.CLUSTER_REQUIRE_FULL_COVERAGE);
    }

    private void key(int position) {
        if (crossSlot || unbound) return;
        byte[] k = argv[position];
        int s = HashSlot.of(k);
        if (firstKey == null) {
            firstKey = k;
            slot = s;
            if (state.owner(s) == null) unbound = true;
            return;
        }
        if (!Arrays.equals(firstKey, k)) {
            if (s != slot) {
                crossSlot = true;
                return;
            }
            multipleKeys = true;
        }
        if (countKeys) count(k);
    }

    private void countOnly(int position) {
        count(argv[position]);
    }

    private void count(byte[] key) {
        Entry e = db0.stored(key);
        if (e == null || db0.isExpired(e)) missing++; else existing++;
    }

    /** Redis's clusterRedirectClient: the error reply for a code of {@link #route} other than NONE. */
    public String error(int code) {
        return switch (code) {
            case CROSS_SLOT -> "CROSSSLOT Keys in request don't hash to the same slot";
            case UNSTABLE -> "TRYAGAIN Multiple keys request during rehashing of slot";
            case DOWN_STATE -> "CLUSTERDOWN The cluster is down";
            case DOWN_RO_STATE -> "CLUSTERDOWN The cluster is down and only accepts read commands";
            case DOWN_UNBOUND -> "CLUSTERDOWN Hash slot not served";
            case ASK -> "ASK " + slot + " " + target.ip() + ":" + target.port();
            case MOVED -> "MOVED " + slot + " " + target.ip() + ":" + target.port();
            default -> throw new IllegalArgumentException("no error for " + code);
        };
    }

    /** For a client blocked on key: the error that redirects it elsewhere, null while this node still serves key's slot. */
    public String blockedRedirect(byte[] key) {
        if (!clusterOk()) return error(DOWN_STATE);
        int s = HashSlot.of(key);
        ClusterNode owner = state.owner(s);
        if (owner == myself || state.importingFrom(myself, s) != null) return null;
        if (owner == null) return error(DOWN_UNBOUND);
        slot = s;
        target = owner;
        return error(MOVED);
    }

    /** Redis's scriptVerifyClusterState: null when a script's call may touch its keys here, else the error. */
    public String scriptRefusal(Client caller, CommandSpec spec, byte[][] args, int callFlags, boolean allowCrossSlot, Database db0) {
        int code = route(caller, List.of(spec), List.<byte[][]>of(args), callFlags, spec.keysAreChannels,
                spec.hasFlag(CommandFlag.ASKING), db0);
        if (code != NONE) {
            if (code == DOWN_RO_STATE) return "Script attempted to execute a write command while the cluster is down and readonly";
            if (code == DOWN_STATE) return "Script attempted to execute a command while the cluster is down";
            return "Script attempted to access a non local key in a cluster node";
        }
        if (slot != -1 && !allowCrossSlot) {
            if (caller.scriptSlot() == -1) caller.scriptSlot(slot);
            else if (caller.scriptSlot() != slot) return "Script attempted to access keys that do not hash to the same slot";
        }
        return null;
    }

    /** Keys of db 0 in slot (Redis keeps a per-slot index; this walks the keys, fine for tests' data sets). */
    public static long countKeysInSlot(Database db0, int slot) {
        long[] n = {0};
        db0.forEach(e -> {
            if (!db0.isExpired(e) && HashSlot.of(e.key()) == slot) n[0]++;
        });
        return n[0];
    }

    /** Up to max keys of db 0 in slot. */
    public static List<byte[]> keysInSlot(Database db0, int slot, long max) {
        List<byte[]> out = new java.util.ArrayList<>();
        db0.forEach(e -> {
            if (out.size() < max && !db0.isExpired(e) && HashSlot.of(e.key()) == slot) out.add(e.key());
        });
        return out;
    }
}
