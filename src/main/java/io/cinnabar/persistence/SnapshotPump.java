package io.cinnabar.persistence;

import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.KeyspaceSnapshot;

import java.util.concurrent.locks.LockSupport;

/**
 * Feeds a {@link SnapshotJob} from the keyspace thread. In the background a
 * {@link KeyspaceSnapshot} is stepped a small slice per millisecond, so requests wait at most one
 * slice for it, and writes reaching a key the walk has not seen yet hand its old value over
 * first. Synchronously (SAVE, SHUTDOWN, DEBUG RELOAD: the keyspace thread waits anyway) the
 * databases are simply walked. Either way the producer slows down when the persistence thread
 * has many records still to write, which bounds the memory the snapshot holds.
 */
final class SnapshotPump implements KeyspaceSnapshot.Sink {
    private static final int SLICE = 256;
    /**
     * Walking costs the keyspace thread about half a microsecond per key (a cache miss or two per
     * bucket and entry), as much as serialising the key costs the persistence thread. Walked flat
     * out, a BGSAVE of 1M keys took most of the thread's time and requests waited behind it; so
     * each background slice walks for about this long, then the keyspace thread serves requests
     * for a millisecond: about a fifth of it goes to the walk.
     */
    private static final long SLICE_NANOS = 250_000;
    /** Records the walk may run ahead of the writer: bounds the memory a snapshot holds. */
    private static final int MAX_BACKLOG = 2048;

    private final Keyspace keyspace;
    private final SnapshotJob job;
    private final OwnerThread owner;
    private KeyspaceSnapshot snapshot;
    /** Keys per background slice, adapted to take about SLICE_NANOS. */
    private int sliceKeys = SLICE;
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
        snapshot = keyspace.beginSnapshot(this);
        job.start();
        slice();
    }

    private void slice() {
        if (!cancelled && job.backlog() > MAX_BACKLOG) {
            owner.schedule(1, this::slice);
            return;
        }
        long start = System.nanoTime();
        if (snapshot.step(sliceKeys)) {
            if (!cancelled) job.producerDone();
            return;
        }
        long spent = Math.max(1, System.nanoTime() - start);
        sliceKeys = (int) Math.max(64, Math.min(MAX_BACKLOG, sliceKeys * SLICE_NANOS / spent));
        owner.schedule(1, this::slice);
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
                job.offer(index, e.key(), e.value(), e.expireAt(), (int) keyspace.idleSeconds(e));
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
    public void entry(int db, byte[] key, Object value, long expireAtMs, int lruIdleSeconds) {
        job.offer(db, key, value, expireAtMs, lruIdleSeconds);
    }
}
