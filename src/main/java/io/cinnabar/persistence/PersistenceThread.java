package io.cinnabar.persistence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that touches persistence files: it appends the write feed to the AOF and fsyncs
 * it per appendfsync, rotates AOF files, and serialises snapshots (RDB files, AOF rewrites) a
 * slice at a time in between, so an fsync that replies wait for never queues behind a long save.
 * Work arrives as ordered tasks from any thread; between tasks it runs the registered
 * {@link Duty duties} (fsync timing, the snapshot being written) and sleeps until the earliest
 * time one of them asks for.
 */
public final class PersistenceThread {
    private static final Logger log = LoggerFactory.getLogger(PersistenceThread.class);

    /** Recurring work between tasks. */
    public interface Duty {
        /**
         * Does a bounded amount of work; returns the System.nanoTime() at which it wants to run
         * again, or Long.MAX_VALUE when it has nothing to do until a task or wake-up arrives.
         */
        long run(long nowNanos);
    }

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Duty> duties = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean parked;
    /** Set by wake(); cleared before each round of duties, checked again before sleeping. */
    private volatile boolean woken;
    /** Set by wakeLazily(); keeps the thread from sleeping past LAZY_WAKE_NANOS from now. */
    private volatile boolean lazilyWoken;
    /** The System.nanoTime() the thread sleeps until (MAX_VALUE: no deadline), or RUNNING. */
    private volatile long parkedUntil = RUNNING;
    private static final long RUNNING = Long.MIN_VALUE;
    /** How long work handed over with {@link #wakeLazily()} may wait for the thread. */
    public static final long LAZY_WAKE_NANOS = 1_000_000;

    public PersistenceThread(String name) {
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public boolean inThread() {
        return Thread.currentThread() == thread;
    }

    /** Runs task on this thread, after the tasks submitted before it. */
    public void execute(Runnable task) {
        tasks.offer(task);
        wake();
    }

    /** Lets the duties run again soon (new snapshot records, a changed setting). */
    public void wake() {
        woken = true;
        if (parked) LockSupport.unpark(thread);
    }

    /**
     * New work that may wait up to {@link #LAZY_WAKE_NANOS}: wakes the thread only when it sleeps
     * longer than that. Saves a wake-up per call while the thread is busy.
     */
    public void wakeLazily() {
        lazilyWoken = true;
        long until = parkedUntil;
        if (until != RUNNING && sleepsTooLong(until)) wake();
    }

    private static boolean sleepsTooLong(long until) {
        return until == Long.MAX_VALUE || until - System.nanoTime() > LAZY_WAKE_NANOS;
    }

    public void addDuty(Duty duty) {
        duties.add(duty);
        wake();
    }

    public void removeDuty(Duty duty) {
        duties.remove(duty);
    }

    /** Runs the tasks already submitted, then stops; waits up to timeoutMs for that. */
    public void shutdown(long timeoutMs) {
        running = false;
        LockSupport.unpark(thread);
        if (inThread()) return;
        try {
            if (!stopped.await(timeoutMs, TimeUnit.MILLISECONDS)) log.warn("Persistence thread did not stop in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        try {
            while (running) {
                woken = false;
                lazilyWoken = false;
                runTasks();
                long next = runDuties();
                if (!tasks.isEmpty() || !running) continue;
                parked = true;
                parkedUntil = next;
                // A wake() after the duties ran either sees parked and unparks, or is seen here;
                // likewise a wakeLazily() either sees parkedUntil or is seen here.
                if (tasks.isEmpty() && running && !woken && !(lazilyWoken && sleepsTooLong(next))) {
                    long wait = next - System.nanoTime();
                    if (next == Long.MAX_VALUE) LockSupport.park(this);
                    else if (wait > 0) LockSupport.parkNanos(this, wait);
                }
                parkedUntil = RUNNING;
                parked = false;
            }
            runTasks();
            runDuties();
        } finally {
            stopped.countDown();
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (Throwable e) {
                log.error("Unexpected error on the persistence thread", e);
            }
        }
    }

    private long runDuties() {
        long next = Long.MAX_VALUE;
        for (Duty d : duties) {
            try {
                next = Math.min(next, d.run(System.nanoTime()));
            } catch (Throwable e) {
                log.error("Unexpected error on the persistence thread", e);
            }
        }
        return next;
    }
}
