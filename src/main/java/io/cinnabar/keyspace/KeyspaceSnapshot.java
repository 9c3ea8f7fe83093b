package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.List;

/**
 * A point-in-time view of every database, taken without stopping the world and without fork():
 * the keyspace thread walks the tables a slice at a time ({@link #step}), handing each entry that
 * existed when the snapshot began to a {@link Sink} exactly once; an entry about to change or
 * disappear before the walk reached it is handed over first (copy-on-write per key). Which
 * entries are still owed is one bit per entry ({@link Entry#SNAPSHOT_MARK}) compared with the
 * keyspace's current mark, flipped when a snapshot begins. The walk goes through each table in
 * index order (sequential reads; Redis's reverse-binary SCAN order cost a cache miss per bucket):
 * a resize moves unvisited entries only to buckets after the cursor, and its end sends the walk
 * back to its start ({@link ChainedTable#bucketCount}); the bit makes each entry count once.
 * <p>
 * Values reach the sink frozen: strings are immutable arrays, other values are copies the sink
 * owns, so the sink may serialise them on another thread. Records arrive grouped by database, in
 * database order, each group announced by {@link Sink#beginDatabase} with the sizes the
 * database had when the snapshot began.
 * <p>
 * Keyspace thread only. An aborted snapshot keeps walking, discarding what it finds, until every
 * owed entry is marked: a later snapshot flips the bit again and relies on that.
 */
public final class KeyspaceSnapshot {
    /** Receives the snapshot; called on the keyspace thread. */
    public interface Sink {
        void beginDatabase(int db, long keys, long expires);

        void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq);
    }

    private static final Sink DISCARD = new Sink() {
        @Override
        public void beginDatabase(int db, long keys, long expires) {
        }

        @Override
        public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) {
        }
    };

    /** The walk over one database as it was when the snapshot began. */
    private static final class Walk {
        final long keys, expires;
        /** The database now holding this walk's entries (SWAPDB moves them). */
        Database target;
        /** The table FLUSHDB/FLUSHALL dropped while entries were still owed; walked as it is. */
        ChainedTable<Entry> detached;
        long cursor;
        /** The table's resizes ended when the cursor was last set: another one renumbers its buckets. */
        int reshapes;
        boolean started, done;
        /** Entries changed before the walk reached their database, kept for when it does. */
        List<Object[]> early;

        Walk(Database target) {
            this.target = target;
            this.keys = target.size();
            this.expires = target.volatileCount();
            this.done = keys == 0;
        }
    }

    private final Keyspace keyspace;
    private final Walk[] walks;
    /** walkOf[i]: the walk whose entries database i holds now. */
    private final int[] walkOf;
    private Sink sink;
    private int current;
    private long handed;
    /** Bytes of values handed over early because a write was about to change them (INFO's COW size). */
    private long copiedBytes;

    KeyspaceSnapshot(Keyspace keyspace, Sink sink) {
        this.keyspace = keyspace;
        this.sink = sink;
        int n = keyspace.databaseCount();
        walks = new Walk[n];
        walkOf = new int[n];
        for (int i = 0; i < n; i++) {
            walks[i] = new Walk(keyspace.db(i));
            walkOf[i] = i;
        }
        skipFinishedDatabases();
    }

    /** Keys the snapshot holds in all: every key present when it began. */
    public long totalKeys() {
        long n = 0;
        for (Walk w : walks) n += w.keys;
        return n;
    }

    /** Entries handed to the sink so far. */
    public long handed() {
        return handed;
    }

    /**
     * Bytes the snapshot holds only because writes changed their keys before the walk reached
     * them: Redis's copy-on-write size, for a snapshot taken without fork().
     */
    public long copiedBytes() {
        return copiedBytes;
    }

    public boolean isDone() {
        return current >= walks.length;
    }

    public boolean isAborted() {
        return sink == DISCARD;
    }

    /**
     * Walks on until about {@code budget} entries were handed over or the snapshot is complete;
     * returns true when it is complete (the keyspace then no longer tracks it).
     */
    public boolean step(int budget) {
        long target = handed + budget;
        int buckets = 0;
        while (current < walks.length && handed < target && buckets < budget * 4) {
            Walk w = walks[current];
            if (!w.started) begin(w);
            if (w.detached != null) {
                buckets += walkDetached(w, target);
            } else {
                ChainedTable<Entry> table = w.target.table();
                if (table.reshapes() != w.reshapes) {
                    // Entries not yet visited may now sit in buckets before the cursor: start
                    // over (entries already handed over carry the current mark and are skipped).
                    w.reshapes = table.reshapes();
                    w.cursor = 0;
                }
                for (Entry e = table.bucket((int) w.cursor); e != null; e = e.next) hand(current, e);
                buckets++;
                if (++w.cursor >= table.bucketCount()) w.done = true;
            }
            if (w.done) {
                current++;
                skipFinishedDatabases();
            }
        }
        if (isDone()) keyspace.snapshotFinished(this);
        return isDone();
    }

    /** Walks the snapshot to its end at once (SAVE, DEBUG RELOAD, SHUTDOWN). */
    public void finish() {
        while (!step(Integer.MAX_VALUE / 8)) {
            // each step covers a bounded number of buckets; loop until every database is walked
        }
    }

    /** Drops the snapshot's output: the walk goes on only to settle every entry's mark. */
    public void abort() {
        sink = DISCARD;
        for (Walk w : walks) w.early = null;
    }

    private void begin(Walk w) {
        w.started = true;
        sink.beginDatabase(current, w.keys, w.expires);
        if (w.early != null) {
            for (Object[] r : w.early) {
                handed++;
                sink.entry(current, (byte[]) r[0], r[1], (Long) r[2], (Long) r[3], (Integer) r[4]);
            }
            w.early = null;
        }
    }

    private int walkDetached(Walk w, long target) {
        ChainedTable<Entry> table = w.detached;
        int buckets = 0;
        while (w.cursor < table.bucketCount() && handed < target) {
            for (Entry e = table.bucket((int) w.cursor); e != null; e = e.next) hand(current, e);
            w.cursor++;
            buckets++;
        }
        if (w.cursor >= table.bucketCount()) {
            w.done = true;
            w.detached = null;
        }
        return buckets;
    }

    private void skipFinishedDatabases() {
        while (current < walks.length && walks[current].done && walks[current].early == null) {
            current++;
        }
    }

    /** Hands e over if the snapshot still owes it. */
    private void hand(int walk, Entry e) {
        if (!keyspace.owedToSnapshot(e)) return;
        e.lru = (e.lru & ~Entry.SNAPSHOT_MARK) | keyspace.snapshotMark();
        // A discarded walk only marks: nothing is copied for it.
        TypedValue typed = e.typed();
        Object frozen = sink == DISCARD ? null : typed == null ? e.frozenString() : typed.copy();
        byte[] key = sink == DISCARD ? null : e.key();
        long idle = keyspace.savedIdleSeconds(e);
        int freq = keyspace.savedFrequency(e);
        Walk w = walks[walk];
        if (walk == current || sink == DISCARD) {
            if (!w.started) begin(w);
            handed++;
            sink.entry(walk, key, frozen, e.expireAt(), idle, freq);
        } else {
            if (w.early == null) w.early = new ArrayList<>();
            w.early.add(new Object[] {key, frozen, e.expireAt(), idle, freq});
        }
    }

    // ---- hooks from the keyspace: called before an entry changes ----

    /** db is about to change or drop e: hand it over first if it is still owed. */
    void beforeChange(Database db, Entry e) {
        if (!keyspace.owedToSnapshot(e)) return;
        copiedBytes += e.valueMemory();
        hand(walkOf[db.id()], e);
    }

    /** db is being emptied (FLUSHDB/FLUSHALL): its dropped table is walked as it stands. */
    void beforeClear(Database db, ChainedTable<Entry> table) {
        Walk w = walks[walkOf[db.id()]];
        if (w.done || w.detached != null) return;
        // Walked bucket by bucket from the start: entries already handed over carry the current
        // mark and are skipped.
        w.detached = table;
        w.cursor = 0;
    }

    /** Databases a and b swap contents (SWAPDB): their walks follow the contents. */
    void onSwap(int a, int b) {
        int wa = walkOf[a], wb = walkOf[b];
        walkOf[a] = wb;
        walkOf[b] = wa;
        walks[wa].target = keyspace.db(b);
        walks[wb].target = keyspace.db(a);
    }
}
