package io.cinnabar.command;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that owns the keyspace and all mutable server state: either a thread of its own,
 * which event loops hand work to through a lock-free queue and wake only when it sleeps, or
 * (see {@link #runOn}) the single event loop itself. Timers (active expiry, blocking timeouts) run
 * on the same thread, so nothing it owns needs a lock.
 */
public final class KeyspaceThread implements Executor {
    private static final Logger log = LoggerFactory.getLogger(KeyspaceThread.class);

    /** A scheduled task; cancel() is only valid on the keyspace thread. */
    public static final class Timer implements Comparable<Timer> {
        final long dueNanos;
        final Runnable task;
        final long seq;
        boolean cancelled;
        /** Set when the timer runs on a borrowed event loop. */
        java.util.concurrent.Future<?> future;

        Timer(long dueNanos, Runnable task, long seq) {
            this.dueNanos = dueNanos;
            this.task = task;
            this.seq = seq;
        }

        public void cancel() {
            cancelled = true;
            if (future != null) future.cancel(false);
        }

        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(dueNanos, o.dueNanos);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /**
     * A task that may run while a script owns the keyspace past the threshold (it touches no
     * data): client batches, answered BUSY then, and the script's end. Others wait until then.
     */
    public interface BusySafe extends Runnable { }

    /** True while the keyspace is lent to a long-running script; keyspace thread only. */
    private boolean lent;
    private final java.util.ArrayList<Runnable> deferred = new java.util.ArrayList<>();

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean parked;
    private long timerSeq;
    private volatile Runnable afterWork = () -> { };
    /** Non-null when keyspace work runs on an event loop instead of this class's own thread. */
    private ScheduledExecutorService borrowed;
    private java.util.function.BooleanSupplier inBorrowed;
    /** The borrowed event loop's end-of-iteration queue (Netty's tail tasks); null on a thread of its own. */
    private Executor iterationEnd;
    /** Null until a hook is added: a thread without one queues nothing at the end of its turns. */
    private volatile Runnable endOfTurn;
    private boolean endOfTurnQueued;

    /**
     * The Java stack of every thread commands run on (this one, the event loop it may borrow, the
     * script helper): a script nests Lua calls as deep as Lua 5.1 lets it (20,000), and luaj
     * nests Java frames for each, about 800 bytes compiled and more while still interpreted; a
     * thread's default 1 MB overflowed at 1,500. Reserved address space: only what a deep script
     * touches becomes memory.
     */
    public static final long STACK_BYTES = 256L << 20;

    public KeyspaceThread(String name) {
        thread = new Thread(null, this::loop, name, STACK_BYTES);
        thread.setDaemon(false);
    }

    /**
     * Runs all keyspace work on the given event loop instead of a thread of its own. With a
     * single io thread on a small machine this removes every cross-thread hand-off, as Redis's
     * single thread does; the keyspace is still owned by exactly one thread. Call before start().
     */
    public void runOn(ScheduledExecutorService loop, java.util.function.BooleanSupplier inLoop, Executor iterationEnd) {
        borrowed = loop;
        inBorrowed = inLoop;
        this.iterationEnd = iterationEnd;
    }

    public void start() {
        if (borrowed == null) thread.start();
    }

    public boolean inThread() {
        return borrowed != null ? inBorrowed.getAsBoolean() : Thread.currentThread() == thread;
    }

    @Override
    public void execute(Runnable task) {
        if (borrowed != null) {
            try {
                borrowed.execute(() -> runThenAfterWork(task));
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // the event loop is shutting down with the server: nothing is left to run
            }
            return;
        }
        queue.offer(task);
        if (parked) LockSupport.unpark(thread);
    }

    /**
     * Runs task at once, then the after-work hooks, as a task of its own would run; call only on
     * the keyspace thread, outside any task of it (an event loop's own task, with io-threads 1).
     */
    public void runNow(Runnable task) {
        runThenAfterWork(task);
    }

    private void runThenAfterWork(Runnable task) {
        runOrDefer(task);
        run(afterWork);
    }

    /** A script owns the keyspace from now on: tasks that are not {@link BusySafe} wait. */
    void lend() {
        lent = true;
    }

    /** The script ended: runs what waited meanwhile, in order. */
    void reclaim() {
        lent = false;
        int i = 0;
        while (i < deferred.size() && !lent) run(deferred.get(i++));
        deferred.subList(0, i).clear();
    }

    /** Runs task after the script that owns the keyspace ends, with the other work that waited; keyspace thread, while lent. */
    void defer(Runnable task) {
        deferred.add(task);
    }

    /** True while a script owns the keyspace past the threshold (work touching data must wait). */
    public boolean lent() {
        return lent;
    }

    private void runOrDefer(Runnable task) {
        if (lent && !(task instanceof BusySafe)) deferred.add(task); else run(task);
    }

    /**
     * Runs hook on this thread after each round of tasks and timers, before the thread sleeps,
     * after the hooks added before it: persistence hands the round's writes to its thread, the
     * network side hands replies back to each event loop in one piece.
     */
    public synchronized void afterWork(Runnable hook) {
        Runnable before = afterWork;
        afterWork = () -> {
            before.run();
            hook.run();
        };
    }

    /**
     * Runs hook once per turn of this thread that ran work, after every task of the turn and its
     * after-work hooks, before the thread sleeps: on a borrowed event loop, once per iteration
     * however many connections' batches it ran (Redis's beforeSleep), instead of once per task.
     */
    public synchronized void atEndOfTurn(Runnable hook) {
        Runnable before = endOfTurn;
        if (before == null) {
            endOfTurn = hook;
            afterWork(this::endOfTurnDue);
        } else {
            endOfTurn = () -> {
                before.run();
                hook.run();
            };
        }
    }

    /** The end-of-turn task queued on a borrowed event loop, allocated once. */
    private final Runnable queuedEndOfTurn = () -> {
        endOfTurnQueued = false;
        run(endOfTurn);
    };

    private void endOfTurnDue() {
        if (iterationEnd == null) {
            run(endOfTurn);
        } else if (!endOfTurnQueued) {
            endOfTurnQueued = true;
            try {
                iterationEnd.execute(queuedEndOfTurn);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                endOfTurnQueued = false;
                run(endOfTurn);
            }
        }
    }

    /** Runs task after delayMs on this thread. Must be called on the keyspace thread. */
    public Timer schedule(long delayMs, Runnable task) {
        Timer t = new Timer(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs), task, timerSeq++);
        if (borrowed != null) {
            try {
                t.future = borrowed.schedule(() -> runThenAfterWork(task), delayMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                t.cancelled = true;
            }
            return t;
        }
        timers.add(t);
        return t;
    }

    /** Stops after the tasks already queued; waits for the thread to end. */
    public void shutdown() {
        if (borrowed != null) return; // the event loop stops with the network layer
        running = false;
        LockSupport.unpark(thread);
        if (!inThread()) {
            try {
                stopped.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        try {
            while (running) {
                Runnable task;
                int ran = 0;
                while ((task = queue.poll()) != null) {
                    runOrDefer(task);
                    if (++ran >= 1024) break; // let timers run under sustained load
                }
                long waitNanos = runDueTimers();
                run(afterWork);
                if (!queue.isEmpty() || !running) continue;
                parked = true;
                if (queue.isEmpty() && running) {
                    if (waitNanos < 0) LockSupport.park(this); else LockSupport.parkNanos(this, waitNanos);
                }
                parked = false;
            }
            Runnable task;
            while ((task = queue.poll()) != null) run(task);
            run(afterWork);
        } finally {
            stopped.countDown();
        }
    }

    /** Runs timers that are due; returns nanos until the next one, or -1 if none. */
    private long runDueTimers() {
        while (!timers.isEmpty()) {
            Timer t = timers.peek();
            long now = System.nanoTime();
            if (t.cancelled) {
                timers.poll();
                continue;
            }
            if (t.dueNanos > now) return t.dueNanos - now;
            timers.poll();
            runOrDefer(t.task);
        }
        return -1;
    }

    private static void run(Runnable task) {
        try {
            task.run();
        } catch (Throwable e) {
            log.error("Unexpected error on the keyspace thread", e);
        }
    }
}
