package io.cinnabar.persistence;

import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.KeyspaceSnapshot;

import java.util.concurrent.locks.LockSupport;

/**
 * Feeds a {@link SnapshotJob} from the keyspace thread. In the background a
 * {@link KeyspaceSnapshot} is stepped a short slice per millisecond while clients are being
 * served, so requests wait at most one short slice for it, and in long slices back to back while
 * none are; writes reaching a key the walk has not seen yet hand its old value over first.
 * Synchronously (SAVE, SHUTDOWN, DEBUG RELOAD: the keyspace thread waits anyway) the databases
 * are simply walked. Either way the producer slows down when the persistence thread
 * has many records still to write, which bounds the memory the snapshot holds.
 */
final class SnapshotPump implements KeyspaceSnapshot.Sink {
    private static final int SLICE = 256;
    /**
     * Walking costs the keyspace thread about 0.35 µs per key idle, more under load (a cache miss
     * per entry). Walked flat out, a BGSAVE of 1M keys took most of the thread's time and requests
     * waited behind it; so while commands run, each slice walks for about this long, then the
     * keyspace thread serves requests for a millisecond. Measured with 1M keys under
     * redis-benchmark -c 50 (scripts/bgsave-latency.sh), p99 with / without BGSAVE when walking
     * cost twice as much: 250 µs slices 3.5x (SET) and 3.4x (GET), 150 µs 2.8x and 1.9x, 60 µs
     * 2.0x and 1.7x; now 1.25x and 1.13x, the snapshot taking 8-11 s. Idle, the long slices save
     * 1M keys in under a second.
     */
    private static final long BUSY_SLICE_NANOS = 60_000;
    /** While no command ran since the last slice, slices this long follow each other at once. */
    private static final long IDLE_SLICE_NANOS = 1_000_000;
    /** Records the walk may run ahead of the writer: bounds the memory a snapshot holds. */
    private static final int MAX_BACKLOG = 2048;

    private final Keyspace keyspace;
    private final SnapshotJob job;
    private final OwnerThread owner;
    private KeyspaceSnapshot snapshot;
    /** Keys per background slice, adapted to take about the slice's time. */
    private int sliceKeys = SLICE;
    /** The owner's command count at the last slice. */
    private long commandsAtLastSlice = -1;
    private boolean cancelled;

    SnapshotPump(Keyspace keyspace, SnapshotJob job, OwnerThread owner) {
        this.keyspace = keyspace;
        this.job = job;
        this.owner = owner;
    }

    /** Keys present at the point in time being saved. */
    long totalKeys() {
        return snapshot == null ? 0 : snapshot.totalKeys();
    }

    /** Keys written to the file so far. */
    long keysWritten() {
        return job.keysWritten();
    }

    /** Bytes held for the snapshot because writes changed keys before it saw them. */
    long copiedBytes() {
        return snapshot == null ? 0 : snapshot.copiedBytes();
    }

    /** Takes the point-in-time view now and feeds the job from it in slices. Keyspace thread. */
    void startInBackground() {
        long start = System.nanoTime();
        snapshot = keyspace.beginSnapshot(this);
        job.start();
        owner.backgroundSaveStarted((System.nanoTime() - start) / 1000);
        slice();
    }

    private void slice() {
        if (!cancelled && job.backlog() > MAX_BACKLOG) {
            owner.schedule(1, this::slice);
            return;
        }
        long commands = owner.commandsRun();
        boolean idle = commands == commandsAtLastSlice;
        commandsAtLastSlice = commands;
        long start = System.nanoTime();
        int keys = idle ? (int) Math.min(MAX_BACKLOG, (long) sliceKeys * IDLE_SLICE_NANOS / BUSY_SLICE_NANOS) : sliceKeys;
        if (snapshot.step(keys)) {
            if (!cancelled) job.producerDone();
            return;
        }
        job.flush();
        long spent = Math.max(1, System.nanoTime() - start);
        if (!idle) sliceKeys = (int) Math.max(64, Math.min(MAX_BACKLOG, sliceKeys * BUSY_SLICE_NANOS / spent));
        // Scheduled, even with no delay: pending I/O is polled before scheduled tasks are taken up.
        owner.schedule(idle ? 0 : 1, this::slice);
    }

    /** Feeds the whole keyspace as it is now and returns when every record was offered. */
    void runToEnd() {
        job.start();
        for (int i = 0; i < keyspace.databaseCount(); i++) {
            Database db = keyspace.db(i);
            if (db.size() == 0) continue;
            job.beginDatabase(i, db.size(), db.volatileCount());
            int index = i;
            // Nothing changes while the keyspace thread waits here: values need no copies.
            db.forEach(e -> {
                while (job.backlog() > MAX_BACKLOG) LockSupport.parkNanos(100_000);
                job.offer(index, e.key(), e.value(), e.expireAt(), keyspace.savedIdleSeconds(e), keyspace.savedFrequency(e));
            });
        }
        job.producerDone();
    }

    /** Drops the snapshot; the walk goes on in the background only to settle the keyspace's marks. */
    void cancel() {
        cancelled = true;
        if (snapshot != null) snapshot.abort();
        job.cancel();
    }

    @Override
    public void beginDatabase(int db, long keys, long expires) {
        job.beginDatabase(db, keys, expires);
    }

    @Override
    public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) {
        job.offer(db, key, value, expireAtMs, idleSeconds, freq);
    }
}
