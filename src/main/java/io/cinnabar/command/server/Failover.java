package io.cinnabar.command.server;

import io.cinnabar.command.ClientPause;
import io.cinnabar.command.ClockTimers;
import io.cinnabar.command.MasterLink;
import io.cinnabar.command.ServerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FAILOVER, as Redis 7.0 coordinates it from a master: writes are paused, and once a replica
 * (the one named, or any) has acknowledged the whole stream, this server becomes its replica and
 * asks it with PSYNC ... FAILOVER to take over as master; the replica, promoted, continues this
 * server's stream (+CONTINUE), so nothing is lost and nothing is synchronised again. A TIMEOUT
 * without FORCE gives up (the master stays master); with FORCE the failover goes ahead. The
 * target refusing the PSYNC, or FAILOVER ABORT, makes this server a master again. Keyspace thread.
 */
final class Failover implements MasterLink.FailoverOutcome {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);
    /** How often the waiting failover looks at its replicas' acknowledgements and its timeout. */
    private static final long CHECK_MS = 100;

    private enum State {
        NONE("no-failover"), WAITING_FOR_SYNC("waiting-for-sync"), IN_PROGRESS("failover-in-progress");

        final String info;

        State(String info) {
            this.info = info;
        }
    }

    private final ServerContext server;
    private State state = State.NONE;
    /** The replica named (or, once one caught up, chosen); null while any will do. */
    private String host;
    private int port;
    private boolean force;
    /** When a TIMEOUT ends the wait (server clock), 0 without one. */
    private long endMs;
    private ClockTimers.Deadline check;

    private Failover(ServerContext server) {
        this.server = server;
    }

    static Failover of(ServerContext server) {
        return server.component(Failover.class, () -> new Failover(server));
    }

    /** INFO's master_failover_state. */
    static String infoState(ServerContext server) {
        Failover f = server.component(Failover.class, null);
        return f == null ? State.NONE.info : f.state.info;
    }

    /** Whether a failover runs (REPLICAOF, SYNC and PSYNC are refused meanwhile). */
    static boolean running(ServerContext server) {
        Failover f = server.component(Failover.class, null);
        return f != null && f.state != State.NONE;
    }

    boolean waiting() {
        return state == State.WAITING_FOR_SYNC;
    }

    /** FAILOVER with its arguments checked: the wait begins, writes paused. */
    void start(String host, int port, boolean force, long timeoutMs) {
        this.host = host;
        this.port = port;
        this.force = force;
        endMs = timeoutMs > 0 ? now() + timeoutMs : 0;
        if (host != null) log.info("FAILOVER requested to {}:{}.", host, port);
        else log.info("FAILOVER requested to any replica.");
        state = State.WAITING_FOR_SYNC;
        server.pause().holdWrites(ClientPause.WriteHold.FAILOVER, true);
        scheduleCheck();
    }

    /** FAILOVER ABORT, a timeout, a refused PSYNC: this server stays, or becomes again, a master. */
    void abort(String why) {
        if (state == State.NONE) return;
        if (host != null) log.info("FAILOVER to {}:{} aborted: {}", host, port, why);
        else log.info("FAILOVER to any replica aborted: {}", why);
        State was = state;
        clear();
        if (was == State.IN_PROGRESS) server.masterLink().drop();
    }

    @Override
    public void accepted() {
        clear();
    }

    @Override
    public void refused() {
        abort("Failover target rejected psync request");
    }

    private void clear() {
        state = State.NONE;
        host = null;
        port = 0;
        force = false;
        endMs = 0;
        if (check != null) check.cancel();
        check = null;
        server.pause().holdWrites(ClientPause.WriteHold.FAILOVER, false);
    }

    private void scheduleCheck() {
        check = server.timers().at(now() + CHECK_MS, () -> {
            check = null;
            update();
            if (state == State.WAITING_FOR_SYNC) scheduleCheck();
        });
    }

    /**
     * updateFailoverStatus: past the timeout, go ahead (FORCE) or give up; else fail over to the
     * target, or the first replica, once it acknowledged every byte of the stream.
     */
    void update() {
        if (state != State.WAITING_FOR_SYNC) return;
        if (endMs != 0 && endMs <= now()) {
            if (force) {
                log.info("FAILOVER to {}:{} time out exceeded, failing over.", host, port);
                failOver();
            } else {
                abort("Replica never caught up before timeout");
            }
            return;
        }
        Replicas replicas = Replicas.ifAny(server);
        if (replicas == null) return;
        Replicas.Target caughtUp = host != null ? replicas.at(host, port) : replicas.caughtUp();
        if (caughtUp == null || caughtUp.ackOffset() != replicas.offsetNow()) return;
        host = caughtUp.host();
        port = caughtUp.port();
        log.info("Failover target {}:{} is synced, failing over.", host, port);
        failOver();
    }

    private void failOver() {
        state = State.IN_PROGRESS;
        if (check != null) check.cancel();
        check = null;
        server.masterLink().failoverTo(host, port, this);
    }

    private long now() {
        return server.keyspace().mstime();
    }
}
