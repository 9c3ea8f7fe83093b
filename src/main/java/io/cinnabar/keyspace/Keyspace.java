package io.cinnabar.keyspace;

/**
 * All databases plus the keyspace-wide clock, statistics and active expiry. Owned by the keyspace
 * thread: nothing here is synchronised.
 */
public final class Keyspace {
    /** Redis's ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP and its "stop when few are stale" threshold. */
    private static final int KEYS_PER_LOOP = 20;
    private static final int ACCEPTABLE_STALE_PERCENT = 10;

    private Database[] databases;
    private final KeyspaceStats stats = new KeyspaceStats();
    private final LazyFree lazyFree = new LazyFree();
    private static final java.util.function.LongSupplier SYSTEM_CLOCK = System::currentTimeMillis;
    /** Unix ms; tests may drive it instead of the system clock. */
    private volatile java.util.function.LongSupplier clock = SYSTEM_CLOCK;
    /** Unix time in ns minus System.nanoTime(), as read at wallReadNanos (see {@link #beginCommand(long)}). */
    private long wallMinusNanos;
    /** Set 10 ms back at start: the first command reads the wall clock. */
    private long wallReadNanos = System.nanoTime() - 10_000_001L;
    private long now = System.currentTimeMillis();
    private boolean frozenClock;
    /** See {@link #keepArguments}. */
    private boolean keepingArguments;
    private boolean touchEnabled = true;
    private int expireCursorDb;
    private KeyListener keyAdded;
    private KeyListener streamGone;
    private KeyListener keyExpired;
    private KeyListener keyMissed;
    /** Redis's server.dirty: changes since start-up; save points and propagation read it. */
    private long dirty;
    /** While loading, nothing expires (Redis's keyIsExpired returns 0 while loading). */
    private boolean loading;
    private int snapshotMark;
    private KeyspaceSnapshot snapshot;
    private final PendingChanges pendingChanges = new PendingChanges();
    private final MemoryTally memoryTally = new MemoryTally();
    /**
     * Access tracking in each entry's 24 access bits, as Redis's robj.lru: the LRU clock, or under
     * an LFU maxmemory-policy a 16-bit minute stamp and an 8-bit logarithmic counter.
     */
    private boolean lfu;
    /** An LRU policy: snapshots keep idle times (see {@link #savedIdleSeconds}). */
    private boolean savesIdle;
    private int lfuLogFactor = 10;
    private int lfuDecayTime = 1;
    private KeyListener keyEvicted;
    private final Eviction eviction = new Eviction(this);
    /** CLIENT PAUSE: expired keys are not deleted (lazily or actively) while it lasts. */
    private boolean deletionsHeld;

    /** Told of something that happened to a key of database db. */
    @FunctionalInterface
    public interface KeyListener {
        void on(int db, byte[] key);
    }

    /** Told when a key is created (blocked clients wait for that; Redis's dbAdd fires "new"). */
    public void onKeyAdded(KeyListener listener) {
        keyAdded = listener;
    }

    void keyAdded(int db, byte[] key) {
        if (keyAdded != null) keyAdded.on(db, key);
    }

    /**
     * Told when a stream is deleted or replaced by another value (Redis's signalDeletedKeyAsReady:
     * clients blocked in XREADGROUP on it must learn their group is gone).
     */
    public void onStreamGone(KeyListener listener) {
        streamGone = listener;
    }

    void streamGone(int db, byte[] key) {
        if (streamGone != null) streamGone.on(db, key);
    }

    /** Told when a key is reclaimed because its TTL passed (lazily or by the active cycle). */
    public void onKeyExpired(KeyListener listener) {
        keyExpired = listener;
    }

    void keyExpired(int db, byte[] key) {
        if (keyExpired != null) keyExpired.on(db, key);
    }

    /** Told when a key is evicted for maxmemory (the "evicted" event, the DEL that goes out). */
    public void onKeyEvicted(KeyListener listener) {
        keyEvicted = listener;
    }

    void keyEvicted(int db, byte[] key) {
        stats.evictedKeys++;
        if (keyEvicted != null) keyEvicted.on(db, key);
    }

    /** Told when a read finds no key (Redis's "keymiss" event goes with the keyspace_misses count). */
    public void onKeyMissed(KeyListener listener) {
        keyMissed = listener;
    }

    void keyMissed(int db, byte[] key) {
        if (keyMissed != null) keyMissed.on(db, key);
    }

    /** Changes made since start-up (Redis's server.dirty). */
    public long dirty() {
        return dirty;
    }

    /** Counts n changes; the database counts its own, handlers add what it cannot see. */
    public void dirty(long n) {
        dirty += n;
    }

    public boolean isLoading() {
        return loading;
    }

    public void loading(boolean on) {
        loading = on;
    }

    // ---- snapshots ----

    /**
     * Begins a point-in-time snapshot that sink receives as the returned walk is stepped. Only
     * one runs at a time: an aborted one still walking is finished (silently) first.
     */
    public KeyspaceSnapshot beginSnapshot(KeyspaceSnapshot.Sink sink) {
        if (snapshot != null) {
            if (!snapshot.isAborted()) throw new IllegalStateException("a snapshot is already running");
            snapshot.finish();
        }
        snapshotMark ^= Entry.SNAPSHOT_MARK;
        KeyspaceSnapshot s = new KeyspaceSnapshot(this, sink);
        // With every database empty the walk is complete from the start and tracks nothing.
        snapshot = s.isDone() ? null : s;
        return s;
    }

    void snapshotFinished(KeyspaceSnapshot s) {
        if (snapshot == s) snapshot = null;
    }

    /** The running snapshot, or null. */
    KeyspaceSnapshot snapshot() {
        return snapshot;
    }

    int snapshotMark() {
        return snapshotMark;
    }

    /** True when a running snapshot has not yet been handed e. */
    boolean owedToSnapshot(Entry e) {
        return snapshot != null && (e.lru & Entry.SNAPSHOT_MARK) != snapshotMark;
    }

    /** The lru word of an entry created or rewritten now: clock plus the current snapshot mark. */
    int freshLru() {
        return freshAccess() | snapshotMark;
    }

    /** The access bits of a new key: the LRU clock, or LFU's stamp with LFU_INIT_VAL (Redis's createObject). */
    int freshAccess() {
        return lfu ? lfuMinutes() << 8 | LFU_INIT_VAL : lruClock();
    }

    private java.util.function.LongPredicate tableGrowth;

    /** Decides whether a database's key table may grow by some bytes (maxmemory); null allows all. */
    public void tableGrowth(java.util.function.LongPredicate allowed) {
        tableGrowth = allowed;
    }

    boolean tableMayGrow(long bytes) {
        return tableGrowth == null || tableGrowth.test(bytes);
    }

    MemoryTally memoryTally() {
        return memoryTally;
    }

    /**
     * Estimated bytes of the data in every database (keys, values, tables), kept as writes,
     * deletions, expiries and flushes happen: what maxmemory acts on. Every write asks (the heap
     * limit): a sum over the databases ever used, not all 16 (JMH CommandBenchmark SET, one
     * database used: 4.0-4.3M -> 4.6-4.7M ops/s).
     */
    public long dataBytes() {
        long n = (databases.length - usedCount) * Database.NEVER_USED_BYTES;
        for (int i = 0; i < usedCount; i++) n += used[i].bytes();
        return n;
    }

    private Database[] used = new Database[1];
    private int usedCount;

    /** db is about to hold its first key: from now on {@link #dataBytes()} sums its bytes. */
    void databaseUsed(Database db) {
        if (usedCount == used.length) used = java.util.Arrays.copyOf(used, usedCount * 2);
        used[usedCount++] = db;
    }

    /**
     * How entries record accesses from now on: LFU counters (an -lfu policy) or the LRU clock.
     * Keys keep their bits across a switch, as in Redis: they take time to adjust.
     */
    public void accessTracking(EvictionPolicy policy, int logFactor, int decayMinutes) {
        this.lfu = policy.lfu();
        this.savesIdle = policy.lru();
        this.lfuLogFactor = logFactor;
        this.lfuDecayTime = decayMinutes;
    }

    public boolean lfu() {
        return lfu;
    }

    /** maxmemory's victim selection over these databases. */
    public Eviction eviction() {
        return eviction;
    }

    public Keyspace(int databaseCount) {
        databases = new Database[databaseCount];
        for (int i = 0; i < databaseCount; i++) databases[i] = new Database(i, this);
    }

    public Database db(int index) {
        return databases[index];
    }

    public int databaseCount() {
        return databases.length;
    }

    /** Lazy freeing's policy and counters. */
    public LazyFree lazyFree() {
        return lazyFree;
    }

    public KeyspaceStats stats() {
        return stats;
    }

    /** The time commands see, in unix ms; fixed for the duration of one command. */
    public long now() {
        return frozenClock ? now : clock.getAsLong();
    }

    /**
     * The time at this instant, not the command's (Redis 7.0's mstime()): EXPIRE, SET EX and
     * RESTORE add it to relative times, so inside EXEC or a script two of them see time pass.
     */
    public long mstime() {
        return clock.getAsLong();
    }

    /** Replaces the system clock (tests drive time instead of sleeping); any thread. */
    public void clock(java.util.function.LongSupplier source) {
        clock = source;
    }

    /** Fixes the clock for one command so all its keys expire against the same instant. */
    public void beginCommand() {
        now = clock.getAsLong();
        frozenClock = true;
    }

    /**
     * {@link #beginCommand()} for a command whose System.nanoTime() at start was read already (its
     * duration's): under the system clock, its time comes from that reading, the wall clock being
     * read once per 10 ms only. A clock read cost ~2.5% of a pipelined GET; Redis's call() also
     * reads the clock once for both.
     */
    public void beginCommand(long startNanos) {
        java.util.function.LongSupplier c = clock;
        now = c == SYSTEM_CLOCK ? systemMillis(startNanos) : c.getAsLong();
        frozenClock = true;
    }

    private long systemMillis(long nanos) {
        if (nanos - wallReadNanos > 10_000_000L || nanos - wallReadNanos < 0) readWallClock();
        return Math.floorDiv(nanos + wallMinusNanos, 1_000_000L);
    }

    /**
     * The wall clock's offset from System.nanoTime(). Apart from systemMillis, which runs in
     * every command: a call made once per 10 ms stays out of line there, and so does the rare
     * retry, which the JIT had compiled as a trap back to the interpreter for all of Dispatcher.run.
     */
    private void readWallClock() {
        // The wall clock first: the offset may lag by the gap between the two reads, never lead.
        // A thread preempted between them would lag by the preemption, so that reading is retried.
        for (int tries = 0; tries < 4; tries++) {
            long before = System.nanoTime();
            java.time.Instant wall = java.time.Instant.now();
            wallReadNanos = System.nanoTime();
            wallMinusNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - wallReadNanos;
            if (wallReadNanos - before < 20_000L) break;
        }
    }

    public void endCommand() {
        frozenClock = false;
    }

    /** Between beginCommand and endCommand. */
    boolean inCommand() {
        return frozenClock;
    }

    /**
     * While EXEC runs, strings are stored as the argument arrays they came in, never packed with
     * their keys: OBJECT REFCOUNT tells a value that is still one of EXEC's queued arguments
     * (Redis stores the argument object itself) by its identity.
     */
    public void keepArguments(boolean keep) {
        keepingArguments = keep;
    }

    /** False while strings are stored as their argument arrays ({@link #keepArguments}). */
    boolean packsStrings() {
        return !keepingArguments;
    }

    /**
     * While held (CLIENT PAUSE), expired keys stay stored, so the data set does not change, but
     * lookups still report them gone, as Redis's expireIfNeeded does during a pause.
     */
    public void holdDeletions(boolean hold) {
        deletionsHeld = hold;
    }

    boolean deletionsHeld() {
        return deletionsHeld || replica;
    }

    /**
     * A replica leaves expiring to its master, whose DELs follow: lookups report an expired key
     * gone but keep it (writes replace it), and the active cycle stops, as in Redis's expireIfNeeded.
     */
    public void replica(boolean on) {
        replica = on;
    }

    /**
     * While the master's stream runs on a replica, keys past their TTL are still there: the
     * master has not expired them yet, and its commands must find what it found.
     */
    public void obeyingMaster(boolean on) {
        obeyingMaster = on;
    }

    private boolean replica, obeyingMaster;

    /** On a replica, a command not from the master is running: what it writes the master does not know. */
    boolean writesOfItsOwn() {
        return replica && !obeyingMaster && !loading;
    }

    /** A replica's cron, in place of the active expire cycle: the keys its own clients gave a TTL. */
    public void expireReplicaKeys() {
        beginCommand();
        try {
            for (Database db : databases) db.expireReplicaKeys();
        } finally {
            endCommand();
        }
    }

    PendingChanges pendingChanges() {
        return pendingChanges;
    }

    /**
     * The running command returned normally: values it looked up to modify in place count as
     * changed (dirty, WATCH), except those its handler declared unchanged.
     */
    public void commandSucceeded() {
        pendingChanges.settle();
        memoryTally.settle();
    }

    /** The running command failed with an error: it changed nothing it merely looked up. */
    public void commandFailed() {
        pendingChanges.clear();
        memoryTally.settle();
    }

    /**
     * Redis's keyIsExpired: a key lives through its expiry's own millisecond (PTTL 0 then) and is
     * gone once the clock is past it.
     */
    boolean isExpired(long expireAt) {
        return !loading && !obeyingMaster && expireAt < now();
    }

    /** Redis's 24-bit LRU clock in seconds; wraps every 194 days, which idleSeconds allows for. */
    int lruClock() {
        return (int) (now() / 1000) & Entry.LRU_MASK;
    }

    /** Under an LRU policy, the idle time a snapshot keeps for e (Redis's RDB_OPCODE_IDLE); else -1. */
    public long savedIdleSeconds(Entry e) {
        return savesIdle ? idleSeconds(e) : -1;
    }

    /** Under an LFU policy, the counter a snapshot keeps for e (Redis's RDB_OPCODE_FREQ); else -1. */
    public int savedFrequency(Entry e) {
        return lfu ? lfuFrequency(e) : -1;
    }

    /** Seconds since the entry was last accessed (OBJECT IDLETIME). */
    public long idleSeconds(Entry e) {
        int clock = lruClock(), last = e.lru();
        return clock >= last ? clock - last : clock + (Entry.LRU_MASK - last);
    }

    /** DEBUG OBJECT looks its key up without updating its LRU; the Dispatcher turns this back on after each command. */
    public void touchEnabled(boolean enabled) {
        touchEnabled = enabled;
    }

    void touch(Entry e) {
        if (!touchEnabled) return;
        int access = lfu ? lfuMinutes() << 8 | lfuIncrement(lfuFrequency(e)) : lruClock();
        e.lru = (e.lru & ~Entry.LRU_MASK) | access;
    }

    /** Redis's LFU_INIT_VAL: a new key's counter, so it is not evicted before it has had a chance. */
    public static final int LFU_INIT_VAL = 5;

    /** Redis's LFUGetTimeInMinutes: 16 bits of minutes of the keyspace's clock. */
    private int lfuMinutes() {
        return (int) (now() / 60_000) & 0xFFFF;
    }

    /**
     * The entry's LFU counter decayed by one per lfu-decay-time minutes since its last access
     * (Redis's LFUDecrAndReturn; OBJECT FREQ); only meaningful under an LFU policy.
     */
    public int lfuFrequency(Entry e) {
        int ldt = (e.lru & Entry.LRU_MASK) >>> 8;
        int counter = e.lru & 0xFF;
        int now = lfuMinutes();
        long elapsed = now >= ldt ? now - ldt : 0xFFFF - ldt + now;
        long periods = lfuDecayTime == 0 ? 0 : elapsed / lfuDecayTime;
        return periods > counter ? 0 : (int) (counter - periods);
    }

    /** Redis's LFULogIncr: the higher the counter, the less likely an access increments it. */
    private int lfuIncrement(int counter) {
        if (counter == 255) return 255;
        double baseval = Math.max(0, counter - LFU_INIT_VAL);
        double p = 1.0 / (baseval * lfuLogFactor + 1);
        return java.util.concurrent.ThreadLocalRandom.current().nextDouble() < p ? counter + 1 : counter;
    }

    /** The access bits for a counter set now (RESTORE FREQ, Redis's objectSetLRUOrLFU). */
    int lfuAccess(int freq) {
        return lfuMinutes() << 8 | freq;
    }

    public long totalKeys() {
        long n = 0;
        for (Database db : databases) n += db.size();
        return n;
    }

    /** Empties every database; returns how many keys were dropped. */
    public long flushAll() {
        long dropped = 0;
        for (Database db : databases) dropped += db.clear();
        return dropped;
    }

    public void swap(int a, int b) {
        databases[a].swapContents(databases[b]);
        if (snapshot != null) snapshot.onSwap(a, b);
    }

    /** Average TTL of a database's volatile keys, for INFO keyspace. */
    public long averageTtl(int db) {
        return databases[db].averageTtl();
    }

    /**
     * Moves buckets of the first database whose table is being resized, for about budgetMicros
     * (Redis's activerehashing: 1 ms per cron tick), so resizes end even without lookups.
     */
    public void rehashSome(long budgetMicros) {
        for (Database db : databases) {
            if (db.resizing()) {
                db.rehashFor(budgetMicros * 1000);
                return;
            }
        }
    }

    /**
     * Expires every key whose TTL has passed, in every database (a clock moved by hand: what
     * became due is gone before the move returns). Nothing expires while deletions are held.
     */
    public void expireAllDue() {
        if (deletionsHeld()) return;
        beginCommand();
        try {
            for (Database db : databases) {
                if (db.volatileCount() > 0 && db.expireAllDue() > 0) db.maybeShrink();
            }
        } finally {
            endCommand();
        }
    }

    /**
     * Redis's adaptive active expire cycle: sample volatile keys per database and keep going
     * while more than 10% of a sample was stale, within a time budget. Also shrinks tables that
     * deletions left sparse.
     */
    public void activeExpireCycle(long budgetMicros) {
        if (deletionsHeld()) return;
        long start = System.nanoTime();
        long deadline = start + budgetMicros * 1000;
        long sampled = 0, stale = 0;
        beginCommand();
        try {
            for (int n = 0; n < databases.length; n++) {
                Database db = databases[expireCursorDb];
                expireCursorDb = (expireCursorDb + 1) % databases.length;
                int expired;
                do {
                    if (db.volatileCount() == 0) break;
                    int sample = Math.min(KEYS_PER_LOOP, db.volatileCount());
                    expired = db.expireSample(sample);
                    sampled += sample;
                    stale += expired;
                    if (System.nanoTime() > deadline) {
                        stats.expiredStalePercentTimes++;
                        return;
                    }
                    if (expired * 100 <= sample * ACCEPTABLE_STALE_PERCENT) break;
                    beginCommand();
                } while (true);
                db.maybeShrink();
            }
        } finally {
            endCommand();
            // As Redis's activeExpireCycle: the moving average weighs each cycle 5%.
            double current = sampled == 0 ? 0 : (double) stale / sampled;
            stats.expiredStalePerc = current * 0.05 + stats.expiredStalePerc * 0.95;
            stats.expireCycleMicros += (System.nanoTime() - start) / 1000;
        }
    }
}
