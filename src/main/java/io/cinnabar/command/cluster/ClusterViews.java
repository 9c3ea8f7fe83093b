package io.cinnabar.command.cluster;

import io.cinnabar.protocol.Reply;

import java.util.List;

/** The cluster as CLUSTER NODES, INFO, SLOTS and SHARDS show it, in Redis 7.0's formats (cluster.c). */
final class ClusterViews {
    private ClusterViews() {}

    /** Redis's clusterGenNodesDescription: one line per node, with this node's open slots after its own. */
    static String nodes(ClusterMember m) {
        ClusterState state = m.state();
        StringBuilder out = new StringBuilder();
        long now = System.currentTimeMillis();
        for (ClusterNode n : state.nodes()) {
            boolean me = n == m.myself();
            out.append(n.id()).append(' ').append(n.ip()).append(':').append(n.port()).append('@').append(n.busPort())
                    .append(' ').append(me ? "myself,master" : n.failed() ? "master,fail" : "master")
                    .append(" - 0 ").append(me ? 0 : now).append(' ').append(n.configEpoch())
                    .append(me || !n.failed() ? " connected" : " disconnected");
            for (int[] r : state.ranges(n)) {
                out.append(' ').append(r[0]);
                if (r[1] != r[0]) out.append('-').append(r[1]);
            }
            if (me) {
                for (ClusterState.OpenSlot open : state.openSlots(n)) {
                    out.append(" [").append(open.slot()).append(open.migrating() ? "->-" : "-<-").append(open.peer().id()).append(']');
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** CLUSTER INFO: no bus, so no messages were sent or received. */
    static String info(ClusterMember m) {
        ClusterState state = m.state();
        int assigned = 0, ok = 0, fail = 0;
        for (int s = 0; s < HashSlot.COUNT; s++) {
            ClusterNode n = state.owner(s);
            if (n == null) continue;
            assigned++;
            if (n.failed()) fail++; else ok++;
        }
        int size = 0;
        for (ClusterNode n : state.nodes()) if (!state.ranges(n).isEmpty()) size++;
        return "cluster_state:" + (m.clusterOk() ? "ok" : "fail") + "\r\n"
                + "cluster_slots_assigned:" + assigned + "\r\n"
                + "cluster_slots_ok:" + ok + "\r\n"
                + "cluster_slots_pfail:0\r\n"
                + "cluster_slots_fail:" + fail + "\r\n"
                + "cluster_known_nodes:" + state.nodes().size() + "\r\n"
                + "cluster_size:" + size + "\r\n"
                + "cluster_current_epoch:" + state.currentEpoch() + "\r\n"
                + "cluster_my_epoch:" + m.myself().configEpoch() + "\r\n"
                + "cluster_stats_messages_sent:0\r\n"
                + "cluster_stats_messages_received:0\r\n"
                + "total_cluster_links_buffer_limit_exceeded:0\r\n";
    }

    /** Redis's clusterReplyMultiBulkSlots: each run of slots with its master [ip, port, id, {}] (no replicas). */
    static void slots(ClusterMember m, Reply r) {
        ClusterState state = m.state();
        int runs = 0;
        for (int s = 0; s < HashSlot.COUNT; s++) {
            if (state.owner(s) != null && (s == 0 || state.owner(s - 1) != state.owner(s))) runs++;
        }
        r.array(runs);
        int start = -1;
        for (int s = 0; s <= HashSlot.COUNT; s++) {
            ClusterNode n = s < HashSlot.COUNT ? state.owner(s) : null;
            ClusterNode prev = start >= 0 ? state.owner(start) : null;
            if (start >= 0 && n != prev) {
                r.array(3);
                r.integer(start);
                r.integer(s - 1);
                node(prev, r);
                start = -1;
            }
            if (n != null && start < 0) start = s;
        }
    }

    /** Redis's addNodeToNodeReply with cluster-preferred-endpoint-type ip and no hostname. */
    private static void node(ClusterNode n, Reply r) {
        r.array(4);
        r.bulk(n.ip());
        r.integer(n.port());
        r.bulk(n.id());
        r.map(0);
    }

    /** Redis's clusterReplyShards: every master with its slot ranges as a flat list of bounds. */
    static void shards(ClusterMember m, Reply r) {
        ClusterState state = m.state();
        List<ClusterNode> nodes = state.nodes();
        r.array(nodes.size());
        for (ClusterNode n : nodes) {
            r.map(2);
            r.bulk("slots");
            List<int[]> ranges = state.ranges(n);
            r.array(ranges.size() * 2);
            for (int[] range : ranges) {
                r.integer(range[0]);
                r.integer(range[1]);
            }
            r.bulk("nodes");
            r.array(1);
            r.map(7);
            r.bulk("id");
            r.bulk(n.id());
            r.bulk("port");
            r.integer(n.port());
            r.bulk("ip");
            r.bulk(n.ip());
            r.bulk("endpoint");
            r.bulk(n.ip());
            r.bulk("role");
            r.bulk("master");
            r.bulk("replication-offset");
            r.integer(0);
            r.bulk("health");
            r.bulk(n.failed() ? "fail" : "online");
        }
    }
}
