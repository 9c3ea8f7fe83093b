package io.cinnabar.persistence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The one thread that touches persistence files: it appends the write feed to the AOF and fsyncs
 * it per appendfsync, rotates AOF files, and serialises snapshots (RDB files, AOF rewrites) a
 * slice at a time in between, so an fsync that replies wait for never queues behind a long save.
 * fsyncs nobody waits for, and closes of unlinked files, run on a helper thread it starts, as
 * Redis's run in bio threads ({@link #forceInBackground}, {@link #closeInBackground}).
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
    /** Runs the fsyncs and closes handed to the background; created on first use. */
    private ExecutorService syncHelper;

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
     * fsyncs channel on a helper thread (fdatasync unless metaData), then runs then on this
     * thread with the error, if any:
     * for fsyncs no reply waits for (a finished snapshot, appendfsync everysec), which would
     * otherwise hold up the AOF writes that replies do wait for. The helper ends with this
     * thread, after finishing what it was given.
     */
    public void forceInBackground(FileChannel channel, boolean metaData, Consumer<IOException> then) {
        helper().execute(() -> {
            IOException error = null;
            try {
                channel.force(metaData);
            } catch (IOException e) {
                error = e;
            }
            IOException result = error;
            execute(() -> then.accept(result));
        });
    }

    /** Closes file on the helper thread: the close that frees an unlinked file's blocks takes long. */
    public void closeInBackground(Closeable file) {
        helper().execute(() -> {
            try {
                file.close();
            } catch (IOException e) {
                log.debug("Closing an unlinked file failed: {}", e.toString());
            }
        });
    }

    private synchronized ExecutorService helper() {
        ExecutorService helper = syncHelper;
        if (helper == null) {
            helper = syncHelper = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, thread.getName() + "-bio");
                t.setDaemon(true);
                return t;
            });
        }
        return helper;
    }

    /** True when work arrived since this round of duties began: a long duty should yield to it. */
    public boolean hasNewWork() {
        return woken;
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
                runTasks();
                long next = runDuties();
                if (!tasks.isEmpty() || !running) continue;
                parked = true;
                // A wake() after the duties ran either sees parked and unparks, or is seen here.
                if (tasks.isEmpty() && running && !woken) {
                    long wait = next - System.nanoTime();
                    if (next == Long.MAX_VALUE) LockSupport.park(this);
                    else if (wait > 0) LockSupport.parkNanos(this, wait);
                }
                parked = false;
            }
            runTasks();
            runDuties();
            ExecutorService helper;
            synchronized (this) {
                helper = syncHelper;
            }
            if (helper != null) {
                helper.shutdown();
                if (helper.awaitTermination(10, TimeUnit.SECONDS)) runTasks();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
