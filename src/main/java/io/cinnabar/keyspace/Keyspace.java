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
    private long now = System.currentTimeMillis();
    private boolean frozenClock;
    private boolean touchEnabled = true;
    private int expireCursorDb;
    private KeyAddedListener keyAdded;

    /** Told when a key is created (blocked clients wait for that). */
    @FunctionalInterface
    public interface KeyAddedListener {
        void keyAdded(int db, byte[] key);
    }

    public void onKeyAdded(KeyAddedListener listener) {
        keyAdded = listener;
    }

    void keyAdded(int db, byte[] key) {
        if (keyAdded != null) keyAdded.keyAdded(db, key);
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

    public KeyspaceStats stats() {
        return stats;
    }

    /** The time commands see, in unix ms; fixed for the duration of one command. */
    public long now() {
        return frozenClock ? now : System.currentTimeMillis();
    }

    /** Fixes the clock for one command so all its keys expire against the same instant. */
    public void beginCommand() {
        now = System.currentTimeMillis();
        frozenClock = true;
    }

    public void endCommand() {
        frozenClock = false;
    }

    boolean isExpired(long expireAt) {
        return expireAt <= now();
    }

    /** Redis's 24-bit LRU clock in seconds; wraps every 194 days, which idleSeconds allows for. */
    int lruClock() {
        return (int) (now() / 1000) & Entry.LRU_MASK;
    }

    /** Seconds since the entry was last accessed (OBJECT IDLETIME). */
    public long idleSeconds(Entry e) {
        int clock = lruClock(), last = e.lru();
        return clock >= last ? clock - last : clock + (Entry.LRU_MASK - last);
    }

    /** CLIENT NO-TOUCH and OBJECT suspend LRU updates for their lookups. */
    public void touchEnabled(boolean enabled) {
        touchEnabled = enabled;
    }

    void touch(Entry e) {
        if (touchEnabled) e.lru = (e.lru & ~Entry.LRU_MASK) | lruClock();
    }

    public long totalKeys() {
        long n = 0;
        for (Database db : databases) n += db.size();
        return n;
    }

    public void flushAll() {
        for (Database db : databases) db.clear();
    }

    public void swap(int a, int b) {
        databases[a].swapContents(databases[b]);
    }

    /** Average TTL of a database's volatile keys, for INFO keyspace. */
    public long averageTtl(int db) {
        return databases[db].averageTtl();
    }

    /**
     * Redis's adaptive active expire cycle: sample volatile keys per database and keep going
     * while more than 10% of a sample was stale, within a time budget. Also shrinks tables that
     * deletions left sparse.
     */
    public void activeExpireCycle(long budgetMicros) {
        long deadline = System.nanoTime() + budgetMicros * 1000;
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
        }
    }
}
