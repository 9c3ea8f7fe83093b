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
        private final ClockTimers owner;
        boolean cancelled;

        Deadline(ClockTimers owner, long dueMs, long seq, Runnable task) {
            this.owner = owner;
            this.dueMs = dueMs;
            this.seq = seq;
            this.task = task;
        }

        public void cancel() {
            if (cancelled) return;
            cancelled = true;
            owner.cancelled();
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
    /** Cancelled deadlines still queued (blocked clients served long before their timeout). */
    private int cancelledCount;

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
        Deadline d = new Deadline(this, dueMs, seq++, task);
        due.add(d);
        arm();
        return d;
    }

    /**
     * Runs task once the server's clock is past deadlineMs, as Redis times out a blocked client
     * (timeout < now, WAIT's too) and ends a CLIENT PAUSE (client_pause_end_time < mstime): a
     * BLPOP 5 is answered 5001 ms after it arrived at the earliest, never at 5000 ms, which
     * Redisson's BlockingDeque tests check.
     */
    public Deadline past(long deadlineMs, Runnable task) {
        return at(deadlineMs == Long.MAX_VALUE ? deadlineMs : deadlineMs + 1, task);
    }

    /** Clients served before their timeout leave cancelled deadlines behind: drop them once they are most of the queue. */
    private void cancelled() {
        if (++cancelledCount > 64 && cancelledCount * 2 > due.size()) {
            due.removeIf(d -> d.cancelled);
            cancelledCount = 0;
        }
    }

    private Deadline pollHead() {
        Deadline d = due.poll();
        if (d != null && d.cancelled) cancelledCount--;
        return d;
    }

    /** Runs every deadline the clock has reached, earliest first, including ones they add that are due. */
    public void runDue() {
        while (!due.isEmpty()) {
            Deadline d = due.peek();
            if (d.cancelled) {
                pollHead();
                continue;
            }
            if (d.dueMs > keyspace.mstime()) break;
            pollHead();
            // Done: a later cancel() (the task releasing its own client) must not count it as queued.
            d.cancelled = true;
            d.task.run();
        }
        arm();
    }

    /** A wall-clock wake-up for the earliest deadline, unless the clock says when it moves. */
    private void arm() {
        while (!due.isEmpty() && due.peek().cancelled) pollHead();
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
