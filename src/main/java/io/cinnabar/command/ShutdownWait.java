package io.cinnabar.command;

import java.util.ArrayList;
import java.util.List;

/**
 * A shutdown that waits for lagging replicas, as Redis 7.0's prepareForShutdown: with replicas
 * behind the stream and shutdown-timeout set, writes are held and the replicas asked for their
 * offsets (GETACK); the cron finishes the shutdown once they all caught up, or at the timeout.
 * The SHUTDOWN clients wait meanwhile; SHUTDOWN ABORT, or a final save that fails, lets them go
 * with an error, and writes resume. SHUTDOWN NOW, and a shutdown-timeout of 0, do not wait.
 * Keyspace thread.
 */
final class ShutdownWait {
    private final ServerContext server;
    /** When the wait ends whatever the replicas say (Redis's shutdown_mstime), 0 while none runs. */
    private long deadlineMs;
    private boolean save, nosave, force;
    private final List<Client> waiters = new ArrayList<>();

    ShutdownWait(ServerContext server) {
        this.server = server;
    }

    boolean waiting() {
        return deadlineMs != 0;
    }

    long remainingMs() {
        return Math.max(0, deadlineMs - server.keyspace().mstime());
    }

    /** Starts the wait if a replica lags; false when the shutdown may go ahead now. */
    boolean begin(boolean save, boolean nosave, boolean force) {
        ReplicaLinks replicas = server.component(ReplicaLinks.class, null);
        long timeoutSeconds = server.config().getLong(io.cinnabar.config.ConfigOptions.SHUTDOWN_TIMEOUT);
        if (replicas == null || timeoutSeconds == 0 || replicas.inSync()) return false;
        this.save = save;
        this.nosave = nosave;
        this.force = force;
        deadlineMs = server.keyspace().mstime() + timeoutSeconds * 1000;
        if (!server.pause().isActive()) replicas.askForAcks();
        server.pause().holdWrites(ClientPause.WriteHold.SHUTDOWN, true);
        return true;
    }

    /** A SHUTDOWN client that waits with the shutdown (blocked; answered only if it fails). */
    void addWaiter(Client client) {
        waiters.add(client);
    }

    /** serverCron's part: the shutdown goes ahead once every replica caught up, or the time is up. */
    void check() {
        if (deadlineMs == 0) return;
        ReplicaLinks replicas = server.component(ReplicaLinks.class, null);
        if (server.keyspace().mstime() < deadlineMs && replicas != null && !replicas.inSync()) return;
        String error = server.finishShutdown(save, nosave, force);
        if (error == null) return;
        server.forgetShutdownSignal();
        cancel("ERR " + error);
    }

    /** SHUTDOWN ABORT; false when no shutdown waits. */
    boolean abort() {
        if (deadlineMs == 0) return false;
        cancel("ERR Errors trying to SHUTDOWN. Check logs.");
        return true;
    }

    /** Redis's cancelShutdown: the waiting clients get error, writes resume. */
    private void cancel(String error) {
        deadlineMs = 0;
        server.pause().holdWrites(ClientPause.WriteHold.SHUTDOWN, false);
        for (Client c : waiters) server.blocked().answer(c, "shutdown", out -> out.error(error));
        waiters.clear();
    }
}
