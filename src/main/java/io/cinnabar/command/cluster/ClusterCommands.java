package io.cinnabar.command.cluster;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.keyspace.Database;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_ASYNC_LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/**
 * CLUSTER and the connection commands of cluster clients (ASKING, READONLY, READWRITE), as a
 * cluster-enabled Redis 7.0 answers them; with cluster-enabled no, each says so. The cluster's
 * layout is the {@link ClusterState} its nodes share (no cluster bus): CLUSTER MEET, FORGET and
 * REPLICATE, which only make sense with one, check their arguments as Redis does and then refuse
 * what would change the shared layout; there are no replicas.
 */
public final class ClusterCommands implements CommandFamily {
    static final String DISABLED = "ERR This instance has cluster support disabled";

    @Override
    public String group() {
        return "cluster";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CLUSTER", -2).doc("3.0.0", "A container for cluster commands", "Depends on subcommand.")
                .sub(spec("ADDSLOTS", -3, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("3.0.0", "Assign new hash slots to receiving node", "O(N) where N is the total number of hash slot arguments"),
                        c -> addSlots(c, false, false))
                .sub(spec("ADDSLOTSRANGE", -4, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("7.0.0", "Assign new hash slots to receiving node", "O(N) where N is the total number of the slots between the start slot and end slot arguments."),
                        c -> addSlots(c, false, true))
                .sub(spec("BUMPEPOCH", 2, NO_ASYNC_LOADING, ADMIN, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "Advance the cluster config epoch", "O(1)"),
                        c -> {
                            ClusterMember m = member(c);
                            boolean bumped = m.state().bumpEpoch(m.myself());
                            c.reply().simple((bumped ? "BUMPED " : "STILL ") + m.myself().configEpoch());
                        })
                .sub(spec("COUNT-FAILURE-REPORTS", 3, ADMIN, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "Return the number of failure reports active for a given node", "O(N) where N is the number of failure reports"),
                        c -> {
                            // Failures are decided by the test controls, not reported by peers.
                            knownNode(c, member(c));
                            c.reply().integer(0);
                        })
                .sub(spec("COUNTKEYSINSLOT", 3, STALE).doc("3.0.0", "Return the number of local keys in the specified hash slot", "O(1)"),
                        this::countKeysInSlot)
                .sub(spec("DELSLOTS", -3, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("3.0.0", "Set hash slots as unbound in receiving node", "O(N) where N is the total number of hash slot arguments"),
                        c -> addSlots(c, true, false))
                .sub(spec("DELSLOTSRANGE", -4, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("7.0.0", "Set hash slots as unbound in receiving node", "O(N) where N is the total number of the slots between the start slot and end slot arguments."),
                        c -> addSlots(c, true, true))
                .sub(spec("FAILOVER", -2, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("3.0.0", "Forces a replica to perform a manual failover of its master.", "O(1)"), this::failover)
                .sub(spec("FORGET", 3, ADMIN, STALE, NO_ASYNC_LOADING).doc("3.0.0", "Remove a node from the nodes table", "O(1)"),
                        this::forget)
                .sub(spec("FLUSHSLOTS", 2, NO_ASYNC_LOADING, ADMIN, STALE).doc("3.0.0", "Delete a node's own slots information", "O(1)"),
                        this::flushSlots)
                .sub(spec("GETKEYSINSLOT", 4, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "Return local key names in the specified hash slot", "O(log(N)) where N is the number of requested keys"),
                        this::getKeysInSlot)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help)
                .sub(spec("INFO", 2, STALE).tips("nondeterministic_output").doc("3.0.0", "Provides info about Redis Cluster node state", "O(1)"),
                        this::info)
                .sub(spec("KEYSLOT", 3, STALE).doc("3.0.0", "Returns the hash slot of the specified key", "O(N) where N is the number of bytes in the key"),
                        c -> {
                            member(c);
                            c.reply().integer(HashSlot.of(c.arg(2)));
                        })
                .sub(spec("LINKS", 2, STALE).tips("nondeterministic_output")
                        .doc("7.0.0", "Returns a list of all TCP links to and from peer nodes in cluster", "O(N) where N is the total number of Cluster nodes"),
                        c -> {
                            // Nodes of one JVM share their state: there are no bus links to list.
                            member(c);
                            c.reply().emptyArray();
                        })
                .sub(spec("MEET", -4, ADMIN, STALE, NO_ASYNC_LOADING)
                        .doc("3.0.0", "Force a node cluster to handshake with another node", "O(1)")
                        .history("4.0.0", "Added the optional `cluster_bus_port` argument."), this::meet)
                .sub(spec("MYID", 2, STALE).doc("3.0.0", "Return the node id", "O(1)"), c -> c.reply().bulk(member(c).myself().id()))
                .sub(spec("NODES", 2, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "Get Cluster config for the node", "O(N) where N is the total number of Cluster nodes"),
                        c -> c.reply().verbatim("txt", ClusterViews.nodes(member(c)).getBytes(StandardCharsets.UTF_8)))
                .sub(spec("REPLICAS", 3, ADMIN, STALE).tips("nondeterministic_output")
                        .doc("5.0.0", "List replica nodes of the specified master node", "O(1)"), this::replicas)
                .sub(spec("REPLICATE", 3, ADMIN, STALE, NO_ASYNC_LOADING)
                        .doc("3.0.0", "Reconfigure a node as a replica of the specified master node", "O(1)"), this::replicate)
                .sub(spec("RESET", -2, ADMIN, STALE, NOSCRIPT)
                        .doc("3.0.0", "Reset a Redis Cluster node", "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect."),
                        this::reset)
                .sub(spec("SAVECONFIG", 2, NO_ASYNC_LOADING, ADMIN, STALE).doc("3.0.0", "Forces the node to save cluster state on disk", "O(1)"),
                        c -> {
                            // The state lives in memory, shared by the nodes: nothing to write.
                            member(c);
                            c.reply().ok();
                        })
                .sub(spec("SET-CONFIG-EPOCH", 3, NO_ASYNC_LOADING, ADMIN, STALE)
                        .doc("3.0.0", "Set the configuration epoch in a new node", "O(1)"), this::setConfigEpoch)
                .sub(spec("SETSLOT", -4, NO_ASYNC_LOADING, ADMIN, STALE).doc("3.0.0", "Bind a hash slot to a specific node", "O(1)"),
                        this::setSlot)
                .sub(spec("SHARDS", 2, STALE).tips("nondeterministic_output")
                        .doc("7.0.0", "Get array of cluster slots to node mappings", "O(N) where N is the total number of cluster nodes"),
                        c -> ClusterViews.shards(member(c), c.reply()))
                .sub(spec("SLAVES", 3, ADMIN, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "List replica nodes of the specified master node", "O(1)")
                        .deprecated("5.0.0", "`CLUSTER REPLICAS`"), this::replicas)
                .sub(spec("SLOTS", 2, STALE).tips("nondeterministic_output")
                        .doc("3.0.0", "Get array of Cluster slot to node mappings", "O(N) where N is the total number of Cluster nodes")
                        .history("4.0.0", "Added node IDs.", "7.0.0", "Added additional networking metadata field.")
                        .deprecated("7.0.0", "`CLUSTER SHARDS`"),
                        c -> ClusterViews.slots(member(c), c.reply())), null);
        t.add(spec("ASKING", 1, FAST).acl("@connection").doc("3.0.0", "Sent by cluster clients after an -ASK redirect", "O(1)"),
                c -> {
                    member(c);
                    c.client().asking();
                    c.reply().ok();
                });
        t.add(spec("READONLY", 1, FAST, LOADING, STALE).acl("@connection")
                .doc("3.0.0", "Enables read queries for a connection to a cluster replica node", "O(1)"), c -> readonly(c, true));
        t.add(spec("READWRITE", 1, FAST, LOADING, STALE).acl("@connection")
                .doc("3.0.0", "Disables read queries for a connection to a cluster replica node", "O(1)"), c -> readonly(c, false));
    }

    /** This node's part in the cluster, or Redis's error when cluster-enabled is no. */
    private static ClusterMember member(Call c) {
        ClusterMember m = c.server().cluster();
        if (m == null) throw new CommandError(DISABLED);
        return m;
    }

    /** READONLY / READWRITE */
    private void readonly(Call c, boolean on) {
        member(c);
        c.client().clusterReadonly(on);
        c.reply().ok();
    }

    /** Redis's getSlotOrReply. */
    private static int slotArg(Call c, int i) {
        String error = "ERR Invalid or out of range slot";
        long slot = c.longArg(i, error);
        if (slot < 0 || slot >= HashSlot.COUNT) throw new CommandError(error);
        return (int) slot;
    }

    /** CLUSTER ADDSLOTS|DELSLOTS slot [slot ...], CLUSTER ADDSLOTSRANGE|DELSLOTSRANGE start end [start end ...] */
    private void addSlots(Call c, boolean delete, boolean ranges) {
        ClusterMember m = member(c);
        if (ranges && c.argCount() % 2 == 1) {
            throw new CommandError("ERR wrong number of arguments for '" + c.spec().fullName() + "' command");
        }
        ClusterState state = m.state();
        boolean[] chosen = new boolean[HashSlot.COUNT];
        int step = ranges ? 2 : 1;
        // Every argument is parsed before any slot is looked at, as Redis does for ADDSLOTS.
        if (!ranges) for (int j = 2; j < c.argCount(); j++) slotArg(c, j);
        for (int j = 2; j < c.argCount(); j += step) {
            int start = slotArg(c, j), end = ranges ? slotArg(c, j + 1) : start;
            if (start > end) {
                throw new CommandError("ERR start slot number " + start + " is greater than end slot number " + end);
            }
            for (int s = start; s <= end; s++) {
                if (delete && state.owner(s) == null) throw new CommandError("ERR Slot " + s + " is already unassigned");
                if (!delete && state.owner(s) != null) throw new CommandError("ERR Slot " + s + " is already busy");
                if (chosen[s]) throw new CommandError("ERR Slot " + s + " specified multiple times");
                chosen[s] = true;
            }
        }
        for (int s = 0; s < HashSlot.COUNT; s++) {
            if (!chosen[s]) continue;
            state.importing(m.myself(), s, null);
            state.assign(s, delete ? null : m.myself());
        }
        c.reply().ok();
    }

    /** The node argument 2 names, or Redis's "Unknown node" error. */
    private static ClusterNode knownNode(Call c, ClusterMember m) {
        ClusterNode n = m.state().node(c.argString(2));
        if (n == null) throw new CommandError("ERR Unknown node " + c.quoted(2));
        return n;
    }

    /** CLUSTER REPLICAS|SLAVES node-id: masters have none here. */
    private void replicas(Call c) {
        knownNode(c, member(c));
        c.reply().emptyArray();
    }

    /** CLUSTER FAILOVER [FORCE|TAKEOVER]: every node is a master, which cannot fail over. */
    private void failover(Call c) {
        member(c);
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        if (c.argCount() == 3 && !c.argIs(2, "FORCE") && !c.argIs(2, "TAKEOVER")) throw CommandError.syntax();
        throw new CommandError("ERR You should send CLUSTER FAILOVER to a replica");
    }

    static final String SHARED_LAYOUT = "ERR Cinnabar's cluster nodes share one layout and have no replicas: ";

    /** CLUSTER MEET ip port [cluster-bus-port]: nodes already share the layout, so only a known node can be met. */
    private void meet(Call c) {
        ClusterMember m = member(c);
        if (c.argCount() > 5) throw CommandError.subcommandSyntax(c.args());
        long port = c.longArg(3, "ERR Invalid TCP base port specified: " + c.quoted(3));
        long busPort = c.argCount() == 5 ? c.longArg(4, "ERR Invalid TCP bus port specified: " + c.quoted(4)) : port + 10000;
        String ip = c.argString(2);
        // Redis's clusterStartHandshake refuses what is not an IP address or a usable port pair.
        if (!isIpAddress(ip) || port <= 0 || port > 65535 || busPort <= 0 || busPort > 65535) {
            throw new CommandError("ERR Invalid node address specified: " + ip + ":" + c.quoted(3));
        }
        for (ClusterNode n : m.state().nodes()) {
            if (n.port() == port && n.ip().equals(ip)) {
                c.reply().ok();
                return;
            }
        }
        throw new CommandError(SHARED_LAYOUT + "CLUSTER MEET can only meet one of its nodes");
    }

    private static boolean isIpAddress(String s) {
        if (s.isEmpty() || !s.matches("[0-9A-Fa-f:.]+")) return false;
        try {
            java.net.InetAddress.getByName(s);
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** CLUSTER FORGET node-id */
    private void forget(Call c) {
        ClusterMember m = member(c);
        ClusterNode n = knownNode(c, m);
        if (n == m.myself()) throw new CommandError("ERR I tried hard but I can't forget myself...");
        throw new CommandError(SHARED_LAYOUT + "CLUSTER FORGET is not supported");
    }

    /** CLUSTER REPLICATE node-id */
    private void replicate(Call c) {
        ClusterMember m = member(c);
        ClusterNode n = knownNode(c, m);
        if (n == m.myself()) throw new CommandError("ERR Can't replicate myself");
        if (m.state().slotCount(m.myself()) != 0 || c.keyspace().db(0).size() != 0) {
            throw new CommandError("ERR To set a master the node must be empty and without assigned slots.");
        }
        throw new CommandError(SHARED_LAYOUT + "CLUSTER REPLICATE is not supported");
    }

    /** CLUSTER RESET [HARD|SOFT] */
    private void reset(Call c) {
        ClusterMember m = member(c);
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        boolean hard = false;
        if (c.argCount() == 3) {
            if (c.argIs(2, "HARD")) hard = true;
            else if (!c.argIs(2, "SOFT")) throw CommandError.syntax();
        }
        if (c.db().size() != 0) throw new CommandError("ERR CLUSTER RESET can't be called with master nodes containing keys");
        m.reset(hard);
        c.reply().ok();
    }

    /** CLUSTER FLUSHSLOTS */
    private void flushSlots(Call c) {
        ClusterMember m = member(c);
        if (c.keyspace().db(0).size() != 0) throw new CommandError("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
        for (int s = 0; s < HashSlot.COUNT; s++) {
            if (m.state().owner(s) == m.myself()) m.state().assign(s, null);
        }
        c.reply().ok();
    }

    /** CLUSTER SET-CONFIG-EPOCH epoch: only for a node that knows no other and has epoch 0. */
    private void setConfigEpoch(Call c) {
        ClusterMember m = member(c);
        long epoch = c.longArg(2);
        if (epoch < 0) throw new CommandError("ERR Invalid config epoch specified: " + epoch);
        if (m.state().nodes().size() > 1) {
            throw new CommandError("ERR The user can assign a config epoch only when the node does not know any other node.");
        }
        if (m.myself().configEpoch() != 0) throw new CommandError("ERR Node config epoch is already non-zero");
        m.state().configEpoch(m.myself(), epoch);
        c.reply().ok();
    }

    /** CLUSTER COUNTKEYSINSLOT slot */
    private void countKeysInSlot(Call c) {
        member(c);
        long slot = c.longArg(2);
        if (slot < 0 || slot >= HashSlot.COUNT) throw new CommandError("ERR Invalid slot");
        c.reply().integer(ClusterMember.countKeysInSlot(c.keyspace().db(0), (int) slot));
    }

    /** CLUSTER GETKEYSINSLOT slot count */
    private void getKeysInSlot(Call c) {
        member(c);
        long slot = c.longArg(2);
        long max = c.longArg(3);
        if (slot < 0 || slot >= HashSlot.COUNT || max < 0) throw new CommandError("ERR Invalid slot or number of keys");
        List<byte[]> keys = ClusterMember.keysInSlot(c.keyspace().db(0), (int) slot, max);
        c.reply().array(keys.size());
        for (byte[] k : keys) c.reply().bulk(k);
    }

    /** CLUSTER INFO */
    private void info(Call c) {
        ClusterMember m = member(c);
        c.reply().verbatim("txt", ClusterViews.info(m).getBytes(StandardCharsets.UTF_8));
    }

    /** CLUSTER SETSLOT slot IMPORTING node-id | MIGRATING node-id | STABLE | NODE node-id */
    private void setSlot(Call c) {
        ClusterMember m = member(c);
        ClusterState state = m.state();
        ClusterNode myself = m.myself();
        int slot = slotArg(c, 2);
        boolean withNode = c.argCount() == 5;
        String id = withNode ? c.argString(4) : null;
        if (c.argIs(3, "MIGRATING") && withNode) {
            if (state.owner(slot) != myself) throw new CommandError("ERR I'm not the owner of hash slot " + slot);
            ClusterNode n = state.node(id);
            if (n == null) throw new CommandError("ERR I don't know about node " + id);
            state.migrating(myself, slot, n);
        } else if (c.argIs(3, "IMPORTING") && withNode) {
            if (state.owner(slot) == myself) throw new CommandError("ERR I'm already the owner of hash slot " + slot);
            ClusterNode n = state.node(id);
            if (n == null) throw new CommandError("ERR I don't know about node " + id);
            state.importing(myself, slot, n);
        } else if (c.argIs(3, "STABLE") && c.argCount() == 4) {
            state.importing(myself, slot, null);
            state.migrating(myself, slot, null);
        } else if (c.argIs(3, "NODE") && withNode) {
            ClusterNode n = state.node(id);
            if (n == null) throw new CommandError("ERR Unknown node " + id);
            Database db0 = c.keyspace().db(0);
            long keys = ClusterMember.countKeysInSlot(db0, slot);
            if (state.owner(slot) == myself && n != myself && keys != 0) {
                throw new CommandError("ERR Can't assign hashslot " + slot
                        + " to a different node while I still hold keys for this hash slot.");
            }
            if (keys == 0) state.migrating(myself, slot, null);
            state.assign(slot, n);
            if (n == myself && state.importingFrom(myself, slot) != null) {
                state.bumpEpoch(myself);
                state.importing(myself, slot, null);
            }
        } else {
            throw new CommandError("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        }
        c.reply().ok();
    }

    /** CLUSTER HELP */
    private void help(Call c) {
        member(c);
        HelpReply.reply(c,
                "ADDSLOTS <slot> [<slot> ...]",
                "    Assign slots to current node.",
                "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                "    Assign slots which are between <start-slot> and <end-slot> to current node.",
                "BUMPEPOCH",
                "    Advance the cluster config epoch.",
                "COUNT-FAILURE-REPORTS <node-id>",
                "    Return number of failure reports for <node-id>.",
                "COUNTKEYSINSLOT <slot>",
                "    Return the number of keys in <slot>.",
                "DELSLOTS <slot> [<slot> ...]",
                "    Delete slots information from current node.",
                "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
                "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
                "FAILOVER [FORCE|TAKEOVER]",
                "    Promote current replica node to being a master.",
                "FORGET <node-id>",
                "    Remove a node from the cluster.",
                "GETKEYSINSLOT <slot> <count>",
                "    Return key names stored by current node in a slot.",
                "FLUSHSLOTS",
                "    Delete current node own slots information.",
                "INFO",
                "    Return information about the cluster.",
                "KEYSLOT <key>",
                "    Return the hash slot for <key>.",
                "MEET <ip> <port> [<bus-port>]",
                "    Connect nodes into a working cluster.",
                "MYID",
                "    Return the node id.",
                "NODES",
                "    Return cluster configuration seen by node. Output format:",
                "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
                "REPLICATE <node-id>",
                "    Configure current node as replica to <node-id>.",
                "RESET [HARD|SOFT]",
                "    Reset current node (default: soft).",
                "SET-CONFIG-EPOCH <epoch>",
                "    Set config epoch of current node.",
                "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
                "    Set slot state.",
                "REPLICAS <node-id>",
                "    Return <node-id> replicas.",
                "SAVECONFIG",
                "    Force saving cluster configuration on disk.",
                "SLOTS",
                "    Return information about slots range mappings. Each range is made of:",
                "    start, end, master and replicas IP addresses, ports and ids",
                "SHARDS",
                "    Return information about slot range mappings and the nodes associated with them.",
                "LINKS",
                "    Return information about all network links between this node and its peers.",
                "    Output format is an array where each array element is a map containing attributes of a link");
    }
}
