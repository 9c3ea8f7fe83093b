package io.cinnabar.command;

import io.cinnabar.keyspace.Keyspace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * CLIENT PAUSE / UNPAUSE with Redis 7.0's semantics (pauseClients, processCommand): while paused,
 * a command that may change the data (WRITE mode: writes, EXEC of a transaction with one, and
 * may-replicate commands such as EVAL or PUBLISH; ALL mode: every command) is not run and not
 * rejected: its client waits, and the waiting clients run again in arrival order when the pause
 * ends. Expiry and eviction stop meanwhile, so the data stays as it was.
 * The end is a deadline on the server's clock. Keyspace thread only.
 */
public final class ClientPause {
    public enum Mode { OFF, WRITE, ALL }

    /** Who else holds writes back, besides CLIENT PAUSE: Redis's PAUSE_DURING_FAILOVER and PAUSE_DURING_SHUTDOWN. */
    public enum WriteHold { FAILOVER, SHUTDOWN }

    private final ClockTimers timers;
    private final KeyspaceThread thread;
    private final Keyspace keyspace;
    private final ArrayDeque<Client> postponed = new ArrayDeque<>();
    private Consumer<Client> resumer = c -> { };
    private Mode mode = Mode.OFF;
    /** FAILOVER's and SHUTDOWN's pauses of writes, which CLIENT UNPAUSE does not lift. */
    private final java.util.EnumSet<WriteHold> holds = java.util.EnumSet.noneOf(WriteHold.class);
    private long endMs;
    private ClockTimers.Deadline timer;

    ClientPause(ClockTimers timers, KeyspaceThread thread, Keyspace keyspace) {
        this.timers = timers;
        this.thread = thread;
        this.keyspace = keyspace;
    }

    /** How a postponed client runs again (the Dispatcher re-submits its command). */
    void onResume(Consumer<Client> resumer) {
        this.resumer = resumer;
    }

    /**
     * CLIENT PAUSE: pauses until endMs (unix ms) in mode; a pause already running keeps the
     * later end and the stricter mode, as Redis merges them.
     */
    public void pause(long endMs, Mode mode) {
        if (this.mode != Mode.OFF) {
            mode = mode.compareTo(this.mode) > 0 ? mode : this.mode;
            endMs = Math.max(endMs, this.endMs);
        }
        this.mode = mode;
        this.endMs = endMs;
        keyspace.holdDeletions(true);
        if (timer != null) timer.cancel();
        // A pause whose end has passed (timeout 0) is over at once.
        if (endMs < keyspace.mstime()) end(); else timer = timers.past(endMs, this::timedOut);
    }

    /** CLIENT UNPAUSE. */
    public void unpause() {
        if (mode != Mode.OFF) end();
    }

    /** FAILOVER, a SHUTDOWN waiting for replicas: writes wait, whatever CLIENT PAUSE and UNPAUSE do, until it ends. */
    public void holdWrites(WriteHold hold, boolean on) {
        if (!(on ? holds.add(hold) : holds.remove(hold))) return;
        keyspace.holdDeletions(isActive());
        if (!isActive()) resumeAll();
    }

    private void timedOut() {
        timer = null;
        if (mode != Mode.OFF) end();
    }

    private void end() {
        mode = Mode.OFF;
        if (timer != null) timer.cancel();
        timer = null;
        keyspace.holdDeletions(!holds.isEmpty());
        resumeAll();
    }

    /**
     * Every waiting client runs again in arrival order, once the current command (CLIENT UNPAUSE,
     * say) has finished, as Redis reprocesses them before it sleeps; one paused again waits anew.
     */
    private void resumeAll() {
        if (postponed.isEmpty()) return;
        List<Client> waiting = new ArrayList<>(postponed);
        postponed.clear();
        thread.execute(() -> {
            for (Client c : waiting) {
                if (!c.closing && c.postponed != null) resumer.accept(c);
            }
        });
    }

    public boolean isActive() {
        return mode != Mode.OFF || !holds.isEmpty();
    }

    /**
     * True when the client's command must wait: mayReplicate says whether it (or the EXEC'd
     * transaction) writes or may propagate. MONITOR clients, replicas in Redis, never wait.
     */
    boolean postpones(Client c, boolean mayReplicate) {
        if (!isActive() || c.monitor) return false;
        return mode == Mode.ALL || mayReplicate;
    }

    /** The client waits with argv until the pause ends. */
    void postpone(Client c, byte[][] argv) {
        c.postponed = argv;
        postponed.add(c);
    }

    /** The client went away while waiting. */
    void forget(Client c) {
        if (c.postponed == null) return;
        c.postponed = null;
        postponed.remove(c);
    }

    /** Clients waiting for the pause to end (they count in INFO blocked_clients, as in Redis). */
    public int waitingClients() {
        return postponed.size();
    }
}
