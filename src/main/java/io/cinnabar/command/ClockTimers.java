package io.cinnabar.command;

import io.cinnabar.keyspace.Keyspace;

import java.util.PriorityQueue;

/**
 * Deadlines on the server's clock (the keyspace's, which a test may drive): blocking-command
 * timeouts and the end of a CLIENT PAUSE. They run when that clock passes them, as Redis checks
 * its timeout table against mstime(): on a clock moved by hand when it moves (see
 * {@link ServerContext#clockMoved()}), else when a wall-clock timer armed for the earliest one
 * fires, with the cron as a backstop for clocks that move on their own. Keyspace thread only.
 */
public final class ClockTimers {
    /** A task due at a time of the server's clock; cancel() it when it is no longer wanted. */
    public static final class Deadline implements Comparable<Deadline> {
        final long dueMs;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Deadline(long dueMs, long seq, Runnable task) {
            this.dueMs = dueMs;
            this.seq = seq;
            this.task = task;
        }

        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Deadline o) {
            int c = Long.compare(dueMs, o.dueMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final Keyspace keyspace;
    private final KeyspaceThread thread;
    private final PriorityQueue<Deadline> due = new PriorityQueue<>();
    private long seq;
    /** True when the clock is moved by hand and says so: no wall-clock timers then. */
    private boolean manual;
    private KeyspaceThread.Timer wake;
    private long wakeDueMs = Long.MAX_VALUE;

    ClockTimers(Keyspace keyspace, KeyspaceThread thread) {
        this.keyspace = keyspace;
        this.thread = thread;
    }

    /** The clock is moved by hand from now on (it tells {@link #runDue()} when it moves). */
    void manual(boolean on) {
        manual = on;
        if (on) disarm(); else arm();
    }

    /** Runs task once the server's clock reaches dueMs (unix ms). */
    public Deadline at(long dueMs, Runnable task) {
        Deadline d = new Deadline(dueMs, seq++, task);
        due.add(d);
        arm();
        return d;
    }

    /** Runs every deadline the clock has reached, earliest first, including ones they add that are due. */
    public void runDue() {
        while (!due.isEmpty()) {
            Deadline d = due.peek();
            if (d.cancelled) {
                due.poll();
                continue;
            }
            if (d.dueMs > keyspace.mstime()) break;
            due.poll();
            d.task.run();
        }
        arm();
    }

    /** A wall-clock wake-up for the earliest deadline, unless the clock says when it moves. */
    private void arm() {
        while (!due.isEmpty() && due.peek().cancelled) due.poll();
        if (manual || due.isEmpty()) {
            disarm();
            return;
        }
        long first = due.peek().dueMs;
        if (wake != null && wakeDueMs <= first) return;
        disarm();
        wakeDueMs = first;
        wake = thread.schedule(Math.max(0, first - keyspace.mstime()), () -> {
            wake = null;
            wakeDueMs = Long.MAX_VALUE;
            runDue();
        });
    }

    private void disarm() {
        if (wake != null) wake.cancel();
        wake = null;
        wakeDueMs = Long.MAX_VALUE;
    }
}
