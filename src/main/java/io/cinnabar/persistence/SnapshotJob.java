package io.cinnabar.persistence;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Writing one snapshot to a temp file on the persistence thread, a slice at a time: records
 * arrive from the keyspace thread in batches through a lock-free queue ({@link #offer},
 * {@link #flush}), are serialised by a {@link SnapshotFormat}, and once the producer says it is
 * done the file is flushed, fsynced (in the background) and handed to a {@link Completion}
 * (rename over dump.rdb, or install as the new AOF base).
 * A per-key delay (rdb-key-save-delay, for tests) is honoured by scheduling, never by sleeping,
 * so AOF work goes on meanwhile.
 */
public final class SnapshotJob implements PersistenceThread.Duty {
    /** Finishes a written, fsynced temp file; runs on the persistence thread. */
    @FunctionalInterface
    public interface Completion {
        void complete(Path temp) throws IOException;
    }

    /** How the job ended; delivered on the persistence thread. */
    public record Outcome(boolean ok, boolean cancelled, String error, long keys, long bytes) { }

    private record Record(int db, byte[] key, Object value, long expireAt, long idle, int freq, long keys, long expires) { }

    /**
     * Serialising yields to the thread's other work this often: AOF writes that replies wait for
     * queue behind a slice. 2 ms slices tripled SET's p99 during BGREWRITEAOF (appendonly yes,
     * 1M keys, scripts/bgsave-latency.sh) while GET's was unchanged.
     */
    private static final long SLICE_NANOS = 200_000;
    /** Records a batch holds before it is handed over without waiting for {@link #flush}. */
    private static final int BATCH = 512;
    /** Redis's REDIS_AUTOSYNC_BYTES. */
    private static final long INCREMENTAL_FSYNC_BYTES = 4L << 20;

    private final Path temp;
    private final SnapshotFormat format;
    private final Completion completion;
    private final LongSupplier keyDelayMicros;
    private final BooleanSupplier incrementalFsync;
    private final Consumer<Outcome> onDone;
    private final PersistenceThread thread;
    private final ConcurrentLinkedQueue<ArrayList<Record>> batches = new ConcurrentLinkedQueue<>();
    /** Records handed over and not yet written. */
    private final AtomicInteger backlog = new AtomicInteger();
    /** Keyspace thread: records offered since the last flush. */
    private ArrayList<Record> pending = new ArrayList<>();
    /** Persistence thread: the batch being written and the next record's index in it. */
    private ArrayList<Record> writing;
    private int writingAt;
    private volatile boolean producerDone;
    private volatile boolean cancelled;
    private FileChannel channel;
    private CountingOutputStream out;
    private long notBefore;
    private volatile long keys;
    private boolean finished;
    /** The temp file is being fsynced in the background. */
    private boolean syncing;
    /** Bytes written when the last incremental fsync began; whether one is running. */
    private long syncedAt;
    private boolean incrementalSyncRunning;

    public SnapshotJob(PersistenceThread thread, Path temp, SnapshotFormat format, Completion completion,
                       LongSupplier keyDelayMicros, BooleanSupplier incrementalFsync, Consumer<Outcome> onDone) {
        this.thread = thread;
        this.incrementalFsync = incrementalFsync;
        this.temp = temp;
        this.format = format;
        this.completion = completion;
        this.keyDelayMicros = keyDelayMicros;
        this.onDone = onDone;
    }

    /** Starts writing; any thread. */
    public void start() {
        thread.addDuty(this);
    }

    // ---- producer side (keyspace thread) ----

    public void beginDatabase(int db, long keys, long expires) {
        add(new Record(db, null, null, 0, -1, -1, keys, expires));
    }

    public void offer(int db, byte[] key, Object value, long expireAt, long idle, int freq) {
        add(new Record(db, key, value, expireAt, idle, freq, 0, 0));
    }

    private void add(Record r) {
        pending.add(r);
        if (pending.size() >= BATCH) flush();
    }

    /**
     * Hands the records offered so far to the persistence thread. Handing over each record by
     * itself cost the keyspace thread a contended queue node, a contended counter and, as the
     * writer kept up and slept between records, an unpark per key: under redis-benchmark that
     * was most of the walk's time. Every batch wakes the writer: it may have found the queue
     * empty and be about to sleep.
     */
    public void flush() {
        if (pending.isEmpty()) return;
        ArrayList<Record> batch = pending;
        pending = new ArrayList<>(Math.min(BATCH, batch.size() * 2));
        backlog.addAndGet(batch.size());
        batches.offer(batch);
        thread.wake();
    }

    /** Keys written so far; any thread (INFO). */
    public long keysWritten() {
        return keys;
    }

    /** Records offered but not yet written: the producer slows down when this grows. */
    public int backlog() {
        return backlog.get();
    }

    /** Every record was offered; the job finishes once they are written. */
    public void producerDone() {
        flush();
        producerDone = true;
        thread.wake();
    }

    /** Stops the job and deletes its temp file (FLUSHALL, SHUTDOWN, a failed producer). */
    public void cancel() {
        cancelled = true;
        thread.wake();
    }

    // ---- persistence thread ----

    @Override
    public long run(long now) {
        if (finished || syncing) return Long.MAX_VALUE;
        if (cancelled) {
            end(new Outcome(false, true, "cancelled", keys, 0));
            return Long.MAX_VALUE;
        }
        try {
            if (out == null) open();
            if (now < notBefore) return notBefore;
            long deadline = now + SLICE_NANOS;
            long delay = keyDelayMicros.getAsLong();
            while (true) {
                boolean lastBatch = producerDone;
                Record r = next();
                if (r == null) {
                    if (!lastBatch) return Long.MAX_VALUE;
                    finish();
                    return Long.MAX_VALUE;
                }
                write(r);
                if (out.count - syncedAt >= INCREMENTAL_FSYNC_BYTES) syncSoFar();
                if (r.key != null && delay > 0) {
                    notBefore = System.nanoTime() + delay * 1000;
                    return notBefore;
                }
                // AOF writes that replies wait for go first.
                if (System.nanoTime() > deadline || thread.hasNewWork()) return 0;
            }
        } catch (IOException | RuntimeException e) {
            end(failure(e));
            return Long.MAX_VALUE;
        }
    }

    /**
     * rdb-save-incremental-fsync / aof-rewrite-incremental-fsync: what is written so far is
     * fsynced every 4 MB, in the background, so the page cache never holds enough of the
     * snapshot's dirty pages to throttle the AOF writes that replies wait for.
     */
    private void syncSoFar() throws IOException {
        syncedAt = out.count;
        if (incrementalSyncRunning || !incrementalFsync.getAsBoolean()) return;
        out.flush();
        incrementalSyncRunning = true;
        thread.forceInBackground(channel, false, error -> incrementalSyncRunning = false);
    }

    /** The next record to write, or null when none is waiting. */
    private Record next() {
        if (writing == null || writingAt == writing.size()) {
            if (writing != null) backlog.addAndGet(-writing.size());
            writing = batches.poll();
            writingAt = 0;
            if (writing == null) return null;
        }
        return writing.get(writingAt++);
    }

    private void open() throws IOException {
        channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        out = new CountingOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel), 64 * 1024));
        format.begin(out);
    }

    private void write(Record r) throws IOException {
        if (r.key == null) {
            format.beginDatabase(r.db, r.keys, r.expires);
        } else {
            format.entry(r.key, r.value, r.expireAt, r.idle, r.freq);
            keys++;
        }
    }

    /**
     * The temp file is fsynced off this thread: a snapshot's fsync takes tens of milliseconds
     * (46 MB: 50-70 ms here), and AOF writes that replies wait for would queue behind it.
     */
    private void finish() throws IOException {
        format.end();
        out.flush();
        syncing = true;
        thread.forceInBackground(channel, true, this::synced);
    }

    private void synced(IOException error) {
        syncing = false;
        if (cancelled) {
            end(new Outcome(false, true, "cancelled", keys, 0));
            return;
        }
        try {
            if (error != null) throw error;
            channel.close();
            channel = null;
            completion.complete(temp);
            end(new Outcome(true, false, null, keys, out.count));
        } catch (IOException | RuntimeException e) {
            end(failure(e));
        }
    }

    private Outcome failure(Exception e) {
        return new Outcome(false, false, e.getMessage() == null ? e.toString() : e.getMessage(), keys, 0);
    }

    private void end(Outcome outcome) {
        finished = true;
        thread.removeDuty(this);
        batches.clear();
        writing = null;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // the temp file is deleted below either way
            }
        }
        if (!outcome.ok()) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // nothing more to do about a temp file we cannot delete
            }
        }
        onDone.accept(outcome);
    }

    /** Counts what the format wrote (INFO's sizes, the log line). */
    private static final class CountingOutputStream extends java.io.FilterOutputStream {
        long count;

        CountingOutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
