package io.cinnabar.persistence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Loading a data set (an RDB file, or an AOF with its base) without the keyspace thread ever
 * touching a file: a loader thread reads and decodes, the keyspace thread applies what it
 * decoded — a slice at a time between other work at start-up (clients meanwhile get LOADING
 * replies, as from Redis), or all at once while it waits (DEBUG RELOAD, DEBUG LOADAOF). Also the
 * loading:* state INFO reports.
 */
public final class Loading {
    private static final Logger log = LoggerFactory.getLogger(Loading.class);
    private static final long SLICE_NANOS = 2_000_000;
    private static final long FIRST_ITEM_WAIT_NANOS = 1_000_000;

    /** What a loader thread produces, applied on the keyspace thread in order. */
    public interface Sink {
        /** A key from an RDB (or an AOF's RDB base). */
        void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq);

        /** A command from an AOF, replayed. */
        void command(byte[][] argv);

        /** The server's time in unix ms (a test may drive it): keys of a dump older than it are dropped. Any thread. */
        default long now() {
            return System.currentTimeMillis();
        }

        /** A function library's code from an RDB (or an AOF's RDB base); throws to fail the load. */
        void function(byte[] code);

        /**
         * Called on the loader thread before a command is queued, so that a command that cannot
         * be replayed fails the load where the file and offset are known; throws to refuse it.
         */
        default void check(byte[][] argv) {
        }
    }

    /** Reads a source on the loader thread, handing what it decodes to the sink. */
    @FunctionalInterface
    public interface Source {
        /** Returns null when everything loaded, else the reason (already logged as Redis logs it). */
        String produce(Sink sink, Progress progress) throws Exception;
    }

    /** Byte counts for INFO's loading_* fields; updated from the loader thread. */
    public final class Progress {
        public void total(long bytes) {
            totalBytes = bytes;
        }

        public void loaded(long bytes) {
            loadedBytes = bytes;
        }
    }

    private record Item(int db, byte[] key, Object value, long expireAt, long idle, int freq, byte[][] argv, byte[] library) { }

    private static final Item END = new Item(-1, null, null, 0, -1, -1, null, null);

    private volatile boolean inProgress;
    private volatile long startSeconds, totalBytes, loadedBytes;

    public boolean inProgress() {
        return inProgress;
    }

    public long startSeconds() {
        return startSeconds;
    }

    public long totalBytes() {
        return totalBytes;
    }

    public long loadedBytes() {
        return loadedBytes;
    }

    /**
     * Loads source while the keyspace thread waits, applying each item to target on it. Returns
     * null on success, else the reason. Keyspace thread.
     */
    public String loadNow(Source source, Sink target) {
        Run run = start(source, target);
        try {
            while (true) {
                Item item = run.queue.take();
                if (item == END) return run.finish();
                apply(item, target);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (RuntimeException e) {
            run.abort();
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
    }

    /**
     * Loads source in the background: the keyspace thread applies a slice at a time through
     * owner, between serving clients; done gets null or the reason, on the keyspace thread.
     */
    public void loadInBackground(Source source, Sink target, OwnerThread owner, Consumer<String> done) {
        Run run = start(source, target);
        owner.execute(new Runnable() {
            private boolean waitedForFirst;

            @Override
            public void run() {
                long deadline = System.nanoTime() + SLICE_NANOS;
                try {
                    Item item;
                    while ((item = next()) != null) {
                        if (item == END) {
                            done.accept(run.finish());
                            return;
                        }
                        apply(item, target);
                        if (System.nanoTime() > deadline) break;
                    }
                } catch (RuntimeException e) {
                    run.abort();
                    done.accept(e.getMessage() == null ? e.toString() : e.getMessage());
                    return;
                }
                if (run.queue.isEmpty()) owner.schedule(1, this); else owner.execute(this);
            }

            /**
             * The first item is waited for, blocking the keyspace thread once per load for at most
             * FIRST_ITEM_WAIT_NANOS (as long as the next look would be): the loader thread has only
             * just started, and without a file to read its end follows at once. An embedded
             * server's loadData() with no files, medians of 300 starts in one JVM: 1.66-1.70 ->
             * 0.93-0.97 ms.
             */
            private Item next() {
                if (waitedForFirst) return run.queue.poll();
                waitedForFirst = true;
                try {
                    return run.queue.poll(FIRST_ITEM_WAIT_NANOS, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        });
    }

    private static void apply(Item item, Sink target) {
        if (item.argv != null) target.command(item.argv);
        else if (item.library != null) target.function(item.library);
        else target.entry(item.db, item.key, item.value, item.expireAt, item.idle, item.freq);
    }

    private Run start(Source source, Sink target) {
        inProgress = true;
        startSeconds = System.currentTimeMillis() / 1000;
        totalBytes = 0;
        loadedBytes = 0;
        Run run = new Run(source, target);
        run.thread.start();
        return run;
    }

    /** One load: its loader thread and the queue it fills. */
    private final class Run {
        final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(8192);
        final Thread thread;
        volatile String outcome;
        volatile boolean aborted;

        private final Sink target;

        Run(Source source, Sink target) {
            this.target = target;
            thread = new Thread(() -> produce(source), "cinnabar-loader");
            thread.setDaemon(true);
        }

        private void produce(Source source) {
            Sink sink = new Sink() {
                @Override
                public long now() {
                    return target.now();
                }

                @Override
                public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) {
                    put(new Item(db, key, value, expireAtMs, idleSeconds, freq, null, null));
                }

                @Override
                public void command(byte[][] argv) {
                    target.check(argv);
                    put(new Item(0, null, null, 0, -1, -1, argv, null));
                }

                @Override
                public void function(byte[] code) {
                    put(new Item(0, null, null, 0, -1, -1, null, code));
                }
            };
            try {
                outcome = source.produce(sink, new Progress());
            } catch (AbortedException e) {
                outcome = "aborted";
            } catch (Exception | OutOfMemoryError e) {
                log.warn("Error loading the data set: {}", e.toString());
                outcome = e.getMessage() == null ? e.toString() : e.getMessage();
            } finally {
                putEnd();
            }
        }

        private void put(Item item) {
            try {
                while (!queue.offer(item, 100, TimeUnit.MILLISECONDS)) {
                    if (aborted) throw new AbortedException();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AbortedException();
            }
        }

        private void putEnd() {
            try {
                while (!aborted && !queue.offer(END, 100, TimeUnit.MILLISECONDS)) {
                    // the keyspace thread is still applying: wait for room
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        String finish() {
            inProgress = false;
            return outcome;
        }

        void abort() {
            aborted = true;
            inProgress = false;
            queue.clear();
        }
    }

    /** Unwinds the loader thread when the keyspace thread gave up on the load. */
    private static final class AbortedException extends RuntimeException {
        AbortedException() {
            super("aborted", null, false, false);
        }
    }
}
