package io.cinnabar.command;

import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.protocol.Reply;

import java.util.function.Consumer;

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN...): their command runs again when one of
 * the keys gets data, oldest client first; the deadline or CLIENT UNBLOCK answers it otherwise.
 * The Dispatcher resumes such a client with its own reply buffer. Keyspace thread only.
 */
public final class BlockedClients {
    private final ServerContext server;
    private final Keyspace keyspace;
    private final BlockingRegistry registry;
    private final Dispatcher dispatcher;
    /** The client whose blocked command is being run again, or null. */
    private Client retrying;
    /** The key whose readiness the retry is for. */
    private byte[] retryingKey;
    /** Set when the retried command found nothing and blocked again. */
    private boolean blockedAgain;
    private boolean serving;

    BlockedClients(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.keyspace = server.keyspace();
        this.registry = server.blocking();
        this.dispatcher = dispatcher;
    }

    /** True while client's blocked command is run again because one of its keys got data. */
    boolean isRetry(Client client) {
        return retrying == client;
    }

    /** During a retry: true once the command blocked again (its key was emptied first). */
    boolean blockedAgain() {
        return blockedAgain;
    }

    /** During a retry: the key that got data (Redis serves a blocked stream read from that key only). */
    byte[] retryKey() {
        return retryingKey;
    }

    /**
     * Blocks client's command (spec, args) on keys until one gets data (the command is then run
     * again), the clock is past the deadline (timeoutReply answers) or CLIENT UNBLOCK. deadlineMs 0 = never.
     */
    void block(Client client, CommandSpec spec, byte[][] args, byte[][] keys, long deadlineMs, Consumer<Reply> timeoutReply,
               boolean wakeWhenGone) {
        if (retrying == client) {
            blockedAgain = true;
            return;
        }
        BlockedState state = new BlockedState(client.db, keys, spec, args, timeoutReply, wakeWhenGone);
        client.blocked = state;
        registry.add(client, state);
        if (deadlineMs > 0) state.timer = server.timers().past(deadlineMs, () -> timedOut(client));
    }

    /** CLIENT UNBLOCK: answers the blocked client as a timeout would, or with an error. */
    public boolean unblock(Client target, boolean withError) {
        if (target.blocked == null) return false;
        dispatcher.resume(target, out -> {
            BlockedState state = target.blocked;
            release(target);
            // As Redis's updateStatsOnUnblock(target, 0, 0, 1): an unblocked command counts as failed.
            state.spec.stats.failedCalls++;
            if (withError) {
                String error = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
                out.error(error);
                server.stats().errorReply(error);
            } else {
                state.timeoutReply.accept(out);
            }
        });
        return true;
    }

    /**
     * Redis's disconnectAllBlockedClients, as a master turns replica: its keys now change only as
     * its master says, so a client blocked on them gets an error and is closed.
     */
    public void disconnectAll() {
        java.util.List<Client> blocked = new java.util.ArrayList<>();
        for (Client c : server.clients()) if (c.blocked != null && !c.closing) blocked.add(c);
        for (Client c : blocked) {
            dispatcher.resume(c, out -> {
                release(c);
                String error = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";
                out.error(error);
                server.stats().errorReply(error);
                c.closeAfterReply = true;
            });
        }
    }

    /**
     * Answers a client blocked in command now with what reply writes (a WAIT whose replicas
     * acknowledged); false if it is not blocked in that command.
     */
    public boolean answer(Client target, String command, java.util.function.Consumer<io.cinnabar.protocol.Reply> reply) {
        if (target.blocked == null || !target.blocked.spec.name().equalsIgnoreCase(command)) return false;
        dispatcher.resume(target, out -> {
            release(target);
            reply.accept(out);
        });
        return true;
    }

    /**
     * Cluster mode (Redis's clusterRedirectBlockedClientIfNeeded): a client blocked on keys of a
     * slot this node neither serves nor imports any more is unblocked with -MOVED, or with
     * -CLUSTERDOWN when the slot has no node or the cluster is down.
     */
    public void redirectMovedSlots(io.cinnabar.command.cluster.ClusterMember cluster) {
        java.util.List<Client> moved = null;
        for (Client c : server.clients()) {
            if (c.blocked == null || c.closing || c.blocked.keys.length == 0) continue;
            if (moved == null) moved = new java.util.ArrayList<>();
            moved.add(c);
        }
        if (moved == null) return;
        for (Client c : moved) {
            String error = cluster.blockedRedirect(c.blocked.keys[0]);
            if (error == null) continue;
            dispatcher.resume(c, out -> {
                release(c);
                out.error(error);
                server.stats().errorReply(error);
            });
        }
    }

    private void timedOut(Client client) {
        if (client.blocked == null || client.closing) return;
        dispatcher.resume(client, out -> {
            BlockedState state = client.blocked;
            release(client);
            state.timeoutReply.accept(out);
        });
        serveReadyKeys();
    }

    /** Runs again the commands of clients blocked on keys that got data, oldest client first. */
    void serveReadyKeys() {
        if (serving || !registry.hasReady()) return;
        serving = true;
        try {
            while (registry.hasReady()) {
                BlockingRegistry.BlockKey k = registry.pollReady();
                for (Client c : registry.waitingOn(k)) {
                    if (c.blocked == null || c.closing) continue;
                    if (!keyspace.db(k.db).exists(k.key) && !c.blocked.wakeWhenGone) continue;
                    retryingKey = k.key;
                    retry(c);
                }
            }
        } finally {
            serving = false;
        }
    }

    private void retry(Client c) {
        BlockedState state = c.blocked;
        dispatcher.resume(c, out -> {
            int mark = out.size();
            retrying = c;
            blockedAgain = false;
            try {
                dispatcher.run(c, state.spec, state.args);
            } finally {
                retrying = null;
            }
            if (blockedAgain) {
                out.truncate(mark);
            } else {
                release(c);
            }
        });
    }

    /** Forgets what the client was blocked on (it was answered, or left). */
    void release(Client c) {
        BlockedState state = c.blocked;
        if (state == null) return;
        registry.remove(c, state);
        if (state.timer != null) state.timer.cancel();
        c.blocked = null;
    }
}
