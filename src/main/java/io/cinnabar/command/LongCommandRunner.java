package io.cinnabar.command;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a command that may run long (a script) on a helper thread while the keyspace thread waits
 * for it, so that the keyspace keeps exactly one owner at a time: the helper while it runs, the
 * keyspace thread otherwise. Past busy-reply-threshold the keyspace thread stops waiting and goes
 * back to its sockets (with one io thread it is the event loop: running the script inline would
 * freeze every connection), answering BUSY and deferring whatever touches data until the helper
 * hands the keyspace back.
 */
final class LongCommandRunner implements AutoCloseable {
    private static final int IDLE = 0, RUNNING = 1, DONE = 2, ABANDONED = 3;
    /**
     * How long either side keeps polling (yielding its core, which the other side may need on a
     * small machine) before parking: back-to-back short scripts then cost no thread wake-ups.
     */
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(1000);

    private final KeyspaceThread keyspace;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private volatile Runnable work;
    private volatile Runnable lateEnd;
    private volatile Thread waiter;
    private volatile Thread helper;
    private volatile boolean closed;
    /** {@link #runHeld}'s hand-over: NOT_HELD, HOLD_ASKED, then HELD while the task's thread stands still. */
    private static final int NOT_HELD = 0, HOLD_ASKED = 1, HELD = 2;
    private volatile int hold = NOT_HELD;
    private volatile Thread held;

    LongCommandRunner(KeyspaceThread keyspace) {
        this.keyspace = keyspace;
    }

    /** The helper thread starts with the first script, so servers that run none never have it. */
    private void startHelper() {
        if (helper != null) return;
        helper = new Thread(null, this::loop, "cinnabar-script", KeyspaceThread.STACK_BYTES);
        helper.setDaemon(true);
        helper.start();
    }

    /**
     * Keyspace thread: runs task on the helper; true if it ended within thresholdMs. Otherwise
     * false, and onLateEnd runs on the keyspace thread once the task ends.
     */
    boolean run(Runnable task, long thresholdMs, Runnable onLateEnd) {
        startHelper();
        lateEnd = onLateEnd;
        waiter = Thread.currentThread();
        state.set(RUNNING);
        work = task;
        LockSupport.unpark(helper);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(thresholdMs);
        while (true) {
            int s = state.get();
            if (s == DONE) {
                state.set(IDLE);
                return true;
            }
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                if (state.compareAndSet(RUNNING, ABANDONED)) return false;
                continue;
            }
            if (now - start < SPIN_NANOS) Thread.yield(); else LockSupport.parkNanos(this, deadline - now);
        }
    }

    /**
     * Keyspace thread, while a task it gave up waiting for runs on: runs work once that task
     * stands still at its next {@link #holdPoint} (or has ended), as Redis runs the commands it
     * allows while busy from inside the script's hook, between two of its instructions. The
     * keyspace thread waits meanwhile, as Redis's one thread does while the script runs.
     */
    void runHeld(Runnable work) {
        hold = HOLD_ASKED;
        try {
            long start = System.nanoTime();
            while (hold == HOLD_ASKED && state.get() == ABANDONED) {
                if (System.nanoTime() - start < SPIN_NANOS) Thread.yield(); else LockSupport.parkNanos(this, 100_000);
            }
            work.run();
        } finally {
            hold = NOT_HELD;
            Thread h = held;
            if (h != null) LockSupport.unpark(h);
        }
    }

    /** {@link #runHeld} waits for the long task to reach its next {@link #holdPoint}. */
    boolean holdAsked() {
        return hold == HOLD_ASKED;
    }

    /**
     * The long task's own checks (a script's, every few instructions): stands still while the
     * keyspace thread runs what {@link #runHeld} was given. One volatile read otherwise.
     */
    void holdPoint() {
        if (hold != HOLD_ASKED) return;
        held = Thread.currentThread();
        hold = HELD;
        while (hold == HELD) LockSupport.park(this);
        held = null;
    }

    /**
     * Ends the helper thread once its task, if any, has ended; the server stops. Left running, it
     * kept the stopped server reachable, with its whole data set (an embedded server's, or each of
     * the JIT warm-up's two throwaway servers').
     */
    @Override
    public void close() {
        closed = true;
        Thread h = helper;
        if (h != null) LockSupport.unpark(h);
    }

    private void loop() {
        while (true) {
            Runnable task = awaitWork();
            if (task == null) return;
            work = null;
            try {
                task.run();
            } catch (Throwable e) {
                org.slf4j.LoggerFactory.getLogger(LongCommandRunner.class).error("Unexpected error in a script", e);
            }
            if (state.compareAndSet(RUNNING, DONE)) {
                LockSupport.unpark(waiter);
            } else {
                // The keyspace thread gave up waiting: it resumes the batch when it gets this task.
                state.set(IDLE);
                Runnable end = lateEnd;
                keyspace.execute((KeyspaceThread.BusySafe) end::run);
            }
        }
    }

    private Runnable awaitWork() {
        long start = System.nanoTime();
        while (true) {
            Runnable task = work;
            if (task != null) return task;
            if (closed) return null;
            if (System.nanoTime() - start < SPIN_NANOS) Thread.yield(); else LockSupport.park(this);
        }
    }
}
