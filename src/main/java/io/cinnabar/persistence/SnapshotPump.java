package io.cinnabar.persistence;

import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.KeyspaceSnapshot;

import java.util.concurrent.locks.LockSupport;

/**
 * Feeds a {@link SnapshotJob} from the keyspace thread. In the background a
 * {@link KeyspaceSnapshot} is stepped a small slice per task, so requests wait at most one
 * slice for it, and writes reaching a key the walk has not seen yet hand its old value over
 * first. Synchronously (SAVE, SHUTDOWN, DEBUG RELOAD: the keyspace thread waits anyway) the
 * databases are simply walked. Either way the producer slows down when the persistence thread
 * has many records still to write, which bounds the memory the snapshot holds.
 */
final class SnapshotPump implements KeyspaceSnapshot.Sink {
    private static final int SLICE = 256;
    /** Records the walk may run ahead of the writer: bounds the memory a snapshot holds. */
    private static final int MAX_BACKLOG = 2048;

    private final Keyspace keyspace;
    private final SnapshotJob job;
    private final OwnerThread owner;
    private KeyspaceSnapshot snapshot;
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
        if (snapshot.step(SLICE)) {
            if (!cancelled) job.producerDone();
            return;
        }
        owner.execute(this::slice);
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
