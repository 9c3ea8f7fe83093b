package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * One numbered database: a {@link ChainedTable} of {@link Entry}s, plus an array of the entries
 * that carry a TTL for the active expire cycle to sample. Owned by the keyspace thread.
 */
public final class Database {
    private final int id;
    private final Keyspace keyspace;
    private ChainedTable<Entry> table = new ChainedTable<>();
    private VolatileEntry[] volatiles = new VolatileEntry[16];
    private int volatileCount;
    /** Estimated bytes of the stored keys and values: the sum of {@link Entry#memory()}, kept as they change. */
    long bytes;
    /** {@link #bytes()} of a database that has never held a key: its table's first bucket array. */
    static final long NEVER_USED_BYTES = tableBytes(ChainedTable.MIN_BUCKETS);
    /** Whether this database has ever held a key (or swapped contents): {@link Keyspace#dataBytes()} sums only these. */
    private boolean used;
    /** WATCHed keys; consulted only when non-empty so unwatched writes stay allocation-free. */
    private final WatchedKeys watched = new WatchedKeys();

    /** Whether the key table may grow its bucket array by that many bytes (maxmemory). */
    private final java.util.function.LongPredicate tableMayGrow;

    Database(int id, Keyspace keyspace) {
        this.id = id;
        this.keyspace = keyspace;
        this.tableMayGrow = keyspace::tableMayGrow;
    }

    public int id() {
        return id;
    }

    /** Keys stored, including expired ones not yet reclaimed (as Redis's DBSIZE). */
    public int size() {
        return table.size();
    }

    public int volatileCount() {
        return volatileCount;
    }

    /** DEBUG HTSTATS: the key table as Redis describes its dict, then the volatile keys' array as its expires dict. */
    public String tableStats() {
        TableStats expires = new TableStats(volatiles.length);
        for (int i = 0; i < volatiles.length; i++) expires.bucket(i < volatileCount ? 1 : 0);
        return "[Dictionary HT]\n" + table.stats() + "[Expires HT]\n" + expires.describe(0);
    }

    /**
     * Estimated bytes of this database: its entries ({@link Entry#memory()}, kept as a running
     * total) and its table's bucket array.
     */
    public long bytes() {
        return bytes + tableBytes();
    }

    /** The table's bucket array (MEMORY STATS' overhead.hashtable.main). */
    public long tableBytes() {
        return tableBytes(table.bucketCount());
    }

    private static long tableBytes(int buckets) {
        return 16 + 4L * buckets;
    }

    // ---- lookups ----

    /** The live entry for key, reclaiming it first if it has expired; touches its LRU clock. */
    public Entry lookup(byte[] key) {
        Entry e = table.find(key);
        if (e == null) return null;
        if (e instanceof VolatileEntry && keyspace.isExpired(((VolatileEntry) e).expireAt)) {
            expire(e);
            return null;
        }
        return e;
    }

    /** Lookup for a read command: also counts keyspace hits and misses and touches the key. */
    public Object read(byte[] key) {
        Entry e = readEntry(key);
        return e == null ? null : e.value();
    }

    /** As {@link #read}, the entry itself. */
    public Entry readEntry(byte[] key) {
        Entry e = lookup(key);
        if (e == null) {
            keyspace.stats().keyspaceMisses++;
            keyspace.keyMissed(id, key);
            return null;
        }
        keyspace.stats().keyspaceHits++;
        keyspace.touch(e);
        return e;
    }

    /**
     * As {@link #getString} for reads of a few bytes (GETBIT, STRLEN, GETRANGE, BITCOUNT...): a
     * string being grown is read where it is (a {@link GrowableString}), not trimmed, so the next
     * SETBIT or APPEND need not copy it. A byte[] otherwise; null if absent.
     */
    public Object getStringInPlace(byte[] key) {
        Entry e = readEntry(key);
        if (e == null) return null;
        if (e.isString()) return e.stringInPlace();
        throw WrongTypeException.INSTANCE;
    }

    /**
     * The string at key where it is (byte[] or {@link GrowableString}), null if absent, WRONGTYPE if
     * another type, for the checks an in-place edit makes before {@link #growable} (Redis checks the
     * type and the new length before it unshares the string). Changes and counts nothing.
     */
    public Object stringBeforeEdit(byte[] key) {
        Entry e = lookup(key);
        if (e == null) return null;
        if (e.isString()) return e.stringInPlace();
        throw WrongTypeException.INSTANCE;
    }

    /**
     * Lookup for a write command: no hit/miss accounting. The caller may change the value in
     * place, so this counts as a change (dirty, WATCH) when the command succeeds, unless the
     * handler says {@link #unchanged} on a path that changed nothing (Redis's signalModifiedKey
     * is only called on real changes).
     */
    public Object write(byte[] key) {
        Entry e = writeEntry(key);
        return e == null ? null : e.value();
    }

    /** As {@link #write}, the entry itself: no copy of a packed string for a command that only needs to know of it. */
    public Entry writeEntry(byte[] key) {
        Entry e = lookup(key);
        if (e == null) return null;
        beforeChange(e);
        keyspace.touch(e);
        keyspace.memoryTally().measuring(this, e);
        keyspace.pendingChanges().add(this, key);
        return e;
    }

    /**
     * The string at key for a command that edits it in place (APPEND, SETRANGE, SETBIT,
     * BITFIELD): null if absent, WRONGTYPE if another type. A lookup for write, like
     * {@link #write}; from now on the string is "raw", as after Redis's dbUnshareStringValue.
     */
    public GrowableString growable(byte[] key) {
        Entry e = lookup(key);
        if (e == null) return null;
        if (!e.isString()) throw WrongTypeException.INSTANCE;
        beforeChange(e);
        keyspace.touch(e);
        keyspace.memoryTally().measuring(this, e);
        keyspace.pendingChanges().add(this, key);
        e.lru |= Entry.RAW;
        GrowableString growing = e.growing();
        if (growing != null) return growing;
        GrowableString g = new GrowableString((byte[]) e.value());
        e.setValue(g, false);
        return g;
    }

    /**
     * The buffer of the string at key, to write a whole new value of exactly length bytes into and
     * then store with {@link #setRaw} (BITOP): where the key holds a string in a buffer of its own
     * that long (an earlier setRaw's), so that the command need not allocate length bytes again, as
     * Redis's allocator reuses the freed ones. Null, nothing changed, otherwise: a plain array may
     * be held by replies and snapshots too. A snapshot still owed the old value takes it first.
     */
    public byte[] overwritable(byte[] key, int length) {
        Entry e = lookup(key);
        GrowableString g = e == null ? null : e.growing();
        if (g == null) return null;
        beforeChange(e);
        return g.ownsExactly(length) ? g.writable(length) : null;
    }

    /**
     * Stores value, a new string the caller gives up (or the buffer {@link #overwritable} gave it),
     * as BITOP stores its result: no TTL, and "raw" whatever its length. One too long to be packed
     * with its key is kept in a buffer of its own, for the next overwrite.
     */
    public void setRaw(byte[] key, byte[] value) {
        Entry e = table.find(key);
        GrowableString g = e == null ? null : e.growing();
        Object stored = g != null && g.array() == value ? g : Entry.packable(value.length) ? value : GrowableString.owning(value);
        put(key, stored, false);
        markRaw(key);
    }

    /** The running command looked key up with {@link #write} but left it as it was. */
    public void unchanged(byte[] key) {
        keyspace.pendingChanges().withdraw(this, key);
    }

    /** A value changed in place by a command that succeeded: one change, and WATCH is touched. */
    void changedInPlace(byte[] key) {
        keyspace.dirty(1);
        if (!watched.isEmpty()) watched.touched(key, containsPhysically(key));
    }

    /**
     * Lookup for commands that inspect a key without using it (EXISTS, TYPE, TTL, OBJECT): counts
     * keyspace hits and misses like a read but leaves the access time alone.
     */
    public Entry peek(byte[] key) {
        Entry e = inspect(key);
        if (e == null) keyspace.keyMissed(id, key);
        return e;
    }

    /** As {@link #peek} without the "keymiss" event: OBJECT's lookup (Redis's LOOKUP_NONOTIFY). */
    public Entry inspect(byte[] key) {
        Entry e = lookup(key);
        if (e == null) keyspace.stats().keyspaceMisses++; else keyspace.stats().keyspaceHits++;
        return e;
    }

    /**
     * Lookup for a write command that needs the entry itself (its TTL): touches, no accounting.
     * The caller may change the value in place and then says so with {@link #write} (Redis's
     * signalModifiedKey), which counts the change.
     */
    public Entry lookupForWrite(byte[] key) {
        Entry e = lookup(key);
        if (e != null) {
            beforeChange(e);
            keyspace.touch(e);
            keyspace.memoryTally().measuring(this, e);
        }
        return e;
    }

    /** The string at key, null if absent; WRONGTYPE if another type. */
    public byte[] getString(byte[] key) {
        Entry e = getStringEntry(key);
        return e == null ? null : (byte[]) e.value();
    }

    /**
     * As {@link #getString}, the entry itself, for a reader that takes the string where it lies
     * ({@link Entry#stringArray()}) rather than a copy of a packed one.
     */
    public Entry getStringEntry(byte[] key) {
        Entry e = readEntry(key);
        if (e == null || e.isString()) return e;
        throw WrongTypeException.INSTANCE;
    }

    public boolean exists(byte[] key) {
        return lookup(key) != null;
    }

    // ---- writes ----

    /** Stores value at key, dropping any TTL (SET semantics). */
    public void set(byte[] key, Object value) {
        put(key, value, false);
    }

    /**
     * Stores value at key, keeping the key's TTL if it has one (KEEPTTL, SETRANGE, APPEND...). The
     * store is the change: a {@link #write} lookup of key by the same command is not counted again.
     */
    public void setKeepTtl(byte[] key, Object value) {
        keyspace.pendingChanges().withdraw(this, key);
        put(key, value, true);
    }

    /**
     * Stores v at e, a string {@link #writeEntry} just returned, by writing its digits over the
     * old ones where the string lies packed with its key and is as long (INCR and DECR, as Redis
     * changes an integer in place): the TTL stays and the change is counted as the lookup's.
     * False, nothing changed, where it is not.
     */
    public boolean overwriteInteger(Entry e, long v) {
        if (!e.overwriteDecimal(v)) return false;
        // As a new value stored: the integer encoding, whatever the old string's was.
        e.lru &= ~(Entry.RAW | Entry.NOT_INT | Entry.PRIVATE_COPY);
        return true;
    }

    /** Stores value with an absolute expiry time in unix ms. */
    public void set(byte[] key, Object value, long expireAtMs) {
        put(key, value, false);
        setExpire(key, expireAtMs);
    }

    private void put(byte[] key, Object value, boolean keepTtl) {
        int h = ChainedTable.hash(key);
        Entry e = table.find(key, h);
        // As Redis's lookupKeyWrite before setKey: a stale key expires first, and the key is new.
        if (e != null && isExpired(e)) {
            reclaim(e);
            e = null;
        }
        keyspace.dirty(1);
        if (e != null) {
            TypedValue old = e.typed();
            if (old != value) keyspace.lazyFree().overwritten(old);
            if (old instanceof StreamValue && old != value) keyspace.streamGone(id, key);
            // Under LFU an overwritten key keeps its counter, as Redis's dbSetValue.
            int access = keyspace.lfu() ? e.lru & Entry.LRU_MASK : keyspace.freshAccess();
            if (e instanceof VolatileEntry && !keepTtl) {
                replace(e, new Entry(key, h, value, access | keyspace.snapshotMark(), keyspace.packsStrings()));
            } else {
                replaceValue(e, value);
                e.lru = access | keyspace.snapshotMark() | (e.lru & Entry.MEASURING);
            }
            if (!watched.isEmpty()) watched.touched(key, true);
            return;
        }
        Entry added = new Entry(key, h, value, keyspace.freshLru(), keyspace.packsStrings());
        markUsed();
        table.insert(added, tableMayGrow);
        added(added);
        if (!watched.isEmpty()) watched.touched(key, true);
        keyspace.keyAdded(id, key);
    }

    /**
     * Stores a string modified in place by APPEND, SETRANGE or SETBIT: the TTL stays and OBJECT
     * ENCODING reports "raw" whatever the length, as Redis does for strings it edits in place.
     */
    public void setRawKeepTtl(byte[] key, byte[] value) {
        setKeepTtl(key, value);
        table.find(key).lru |= Entry.RAW;
    }

    /**
     * Stores another form of the value at key (which exists), its TTL and flags kept: one change, but
     * WATCH is not touched, as Redis's dbOverwrite without signalModifiedKey (PFDEBUG's conversion of
     * a sparse HyperLogLog to dense).
     */
    public void reencode(byte[] key, Object value) {
        replaceValue(table.find(key), value);
        keyspace.dirty(1);
    }

    /** Puts value in the entry in place, the data set's byte count (or the entry's pending measurement) kept right. */
    private void replaceValue(Entry e, Object value) {
        beforeChange(e);
        boolean counted = (e.lru & Entry.MEASURING) == 0;
        if (counted && deferMeasuring()) {
            keyspace.memoryTally().measuring(this, e);
            counted = false;
        }
        if (counted) bytes -= e.memory();
        e.setValue(value, keyspace.packsStrings());
        if (counted) bytes += e.memory();
    }

    /** The string at key (which exists) is "raw" from now on, unchanged otherwise (SETBIT of an unchanged bit). */
    public void markRaw(byte[] key) {
        table.find(key).lru |= Entry.RAW;
    }

    /** The string at key (which exists) was just stored by COPY: a private object, never a shared integer. */
    public void markPrivateCopy(byte[] key) {
        table.find(key).lru |= Entry.PRIVATE_COPY;
    }

    /** Stores INCRBYFLOAT's result, keeping the TTL: Redis never integer-encodes it (OBJECT ENCODING). */
    public void setNotIntKeepTtl(byte[] key, byte[] value) {
        setKeepTtl(key, value);
        table.find(key).lru |= Entry.NOT_INT;
    }

    /**
     * Stores value at key (replacing whatever is there) with source's TTL and encoding flags:
     * RENAME and MOVE pass the same value and keep its access time, COPY passes a copy.
     * source may belong to another database.
     */
    public void putFrom(byte[] key, Object value, Entry source, boolean keepAccessTime) {
        Entry old = table.find(key);
        if (old != null && isExpired(old)) reclaim(old);
        else if (old != null) {
            unlink(old);
            if (old.typed() != value) keyspace.lazyFree().overwritten(old.typed());
        }
        int lru = keepAccessTime ? source.lru : (source.lru & ~Entry.LRU_MASK) | keyspace.freshAccess();
        // The new entry did not exist when a running snapshot began: it owes it nothing.
        lru = (lru & ~(Entry.SNAPSHOT_MARK | Entry.MEASURING)) | keyspace.snapshotMark();
        keyspace.dirty(1);
        long expireAt = source.expireAt();
        int h = ChainedTable.hash(key);
        boolean pack = keyspace.packsStrings();
        Entry added = expireAt < 0 ? new Entry(key, h, value, lru, pack) : new VolatileEntry(key, h, value, lru, expireAt, pack);
        markUsed();
        table.insert(added, tableMayGrow);
        added(added);
        if (added instanceof VolatileEntry) {
            addVolatile((VolatileEntry) added);
            rememberReplicaTtl(key);
        }
        if (!watched.isEmpty()) watched.touched(key, true);
        keyspace.keyAdded(id, key);
    }

    /** Adds key only if absent; true if added. Expired keys count as absent. */
    public boolean setIfAbsent(byte[] key, Object value) {
        if (lookup(key) != null) return false;
        set(key, value);
        return true;
    }

    public boolean delete(byte[] key) {
        return deleteValue(key) != null;
    }

    /** Deletes key; its value, or null when there was none (an expired key expires instead). */
    public Object deleteValue(byte[] key) {
        Entry e = table.find(key);
        if (e == null) return null;
        boolean live = !(e instanceof VolatileEntry && keyspace.isExpired(((VolatileEntry) e).expireAt));
        if (!live) {
            expire(e);
            return null;
        }
        unlink(e);
        keyspace.dirty(1);
        if (!watched.isEmpty()) watched.touched(key, false);
        return e.value();
    }

    /**
     * Removes an expired entry, counting it as Redis counts expired_keys. While deletions are held
     * (CLIENT PAUSE) the entry stays, and lookups still treat it as gone.
     */
    private void expire(Entry e) {
        if (keyspace.deletionsHeld()) return;
        reclaim(e);
    }

    /** Deletes an expired entry even while deletions are held: a write replaces it (Redis's EXPIRE_FORCE_DELETE_EXPIRED). */
    private void reclaim(Entry e) {
        unlink(e);
        keyspace.lazyFree().expired(e.typed());
        keyspace.stats().expiredKeys++;
        byte[] key = e.key();
        if (!watched.isEmpty()) watched.touched(key, false);
        keyspace.keyExpired(id, key);
    }

    // ---- expiry ----

    /** Absolute expiry in unix ms; -1 no TTL, -2 no such key. */
    public long expireAt(byte[] key) {
        Entry e = lookup(key);
        if (e == null) return -2;
        return e.expireAt();
    }

    /** Sets the absolute expiry (unix ms) of an existing key; false if the key is absent. */
    public boolean setExpire(byte[] key, long whenMs) {
        Entry e = lookup(key);
        if (e == null) return false;
        keyspace.dirty(1);
        if (e instanceof VolatileEntry) {
            beforeChange(e);
            ((VolatileEntry) e).expireAt = whenMs;
        } else {
            VolatileEntry v = new VolatileEntry(e, whenMs);
            replace(e, v);
        }
        rememberReplicaTtl(key);
        if (!watched.isEmpty()) watched.touched(key, true);
        return true;
    }

    /**
     * Keys a client of a writable replica gave a TTL: the master never expires them, so the
     * replica does, from its cron (Redis's rememberSlaveKeyWithExpire and expireSlaveKeys).
     */
    private java.util.Set<java.nio.ByteBuffer> replicaTtls;

    private void rememberReplicaTtl(byte[] key) {
        if (!keyspace.writesOfItsOwn()) return;
        if (replicaTtls == null) replicaTtls = new java.util.HashSet<>();
        replicaTtls.add(java.nio.ByteBuffer.wrap(key));
    }

    /** expireSlaveKeys for this database: reclaims the remembered keys past their TTL, forgets those without one. */
    void expireReplicaKeys() {
        if (replicaTtls == null) return;
        for (java.util.Iterator<java.nio.ByteBuffer> it = replicaTtls.iterator(); it.hasNext(); ) {
            Entry e = table.find(it.next().array());
            if (!(e instanceof VolatileEntry)) {
                it.remove();
            } else if (isExpired(e)) {
                reclaim(e);
                it.remove();
            }
        }
        if (replicaTtls.isEmpty()) replicaTtls = null;
    }

    /** Drops the TTL of key; true if it had one. */
    public boolean persist(byte[] key) {
        Entry e = lookup(key);
        if (!(e instanceof VolatileEntry)) return false;
        keyspace.dirty(1);
        replace(e, new Entry(e));
        if (!watched.isEmpty()) watched.touched(key, true);
        return true;
    }

    /**
     * One step of the active expire cycle: samples up to {@code samples} keys with a TTL and
     * reclaims the expired ones. Returns how many were expired.
     */
    int expireSample(int samples) {
        int expired = 0;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int i = 0; i < samples && volatileCount > 0; i++) {
            VolatileEntry v = volatiles[rnd.nextInt(volatileCount)];
            if (keyspace.isExpired(v.expireAt)) {
                expire(v);
                expired++;
            }
        }
        return expired;
    }

    /**
     * Reclaims every key whose TTL has passed, not a sample: after a test moved the clock by
     * hand, all that became due expires before the move returns. Returns how many expired.
     */
    int expireAllDue() {
        int expired = 0;
        // Downwards: expiring index i moves the last entry, already visited, into its place.
        for (int i = volatileCount - 1; i >= 0; i--) {
            if (i >= volatileCount) continue;
            VolatileEntry v = volatiles[i];
            if (keyspace.isExpired(v.expireAt)) {
                expire(v);
                expired++;
            }
        }
        return expired;
    }

    /** Average remaining TTL in ms over a sample, for INFO keyspace's avg_ttl. */
    long averageTtl() {
        if (volatileCount == 0) return 0;
        long now = keyspace.now();
        int n = Math.min(volatileCount, 100);
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Math.max(0, volatiles[i].expireAt - now);
        return sum / n;
    }

    // ---- whole-database operations ----

    /** Drops every key; returns how many there were. */
    public long clear() {
        long dropped = table.size();
        if (!watched.isEmpty()) watched.touchedAll(this, null);
        KeyspaceSnapshot s = keyspace.snapshot();
        if (s != null && dropped > 0) s.beforeClear(this, table);
        keyspace.dirty(dropped);
        bytes = 0;
        table = new ChainedTable<>();
        volatiles = new VolatileEntry[16];
        volatileCount = 0;
        return dropped;
    }

    /** Swaps contents with other (SWAPDB); ids stay. */
    void swapContents(Database other) {
        markUsed();
        other.markUsed();
        if (!watched.isEmpty()) watched.touchedAll(this, other);
        if (!other.watched.isEmpty()) other.watched.touchedAll(other, this);
        ChainedTable<Entry> t = table; table = other.table; other.table = t;
        VolatileEntry[] v = volatiles; volatiles = other.volatiles; other.volatiles = v;
        int c = volatileCount; volatileCount = other.volatileCount; other.volatileCount = c;
        long b = bytes; bytes = other.bytes; other.bytes = b;
    }

    private void markUsed() {
        if (!used) {
            used = true;
            keyspace.databaseUsed(this);
        }
    }

    /** Shrinks the table when it is mostly empty (Redis does this from its cron). */
    void maybeShrink() {
        table.shrinkIfSparse();
    }

    boolean resizing() {
        return table.resizing();
    }

    /** The cron's share of a running resize (Redis's activerehashing): buckets moved for about budgetNanos. */
    void rehashFor(long budgetNanos) {
        table.rehashFor(budgetNanos);
    }

    /** A random live key, or null when the database is empty; expired keys met on the way are reclaimed. */
    public byte[] randomKey() {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int misses = 0;
        while (table.size() > 0) {
            Entry e = table.anyElement(rnd);
            if (e instanceof VolatileEntry && keyspace.isExpired(((VolatileEntry) e).expireAt)) {
                // Each miss reclaims a key, so this ends (Redis's give-up-after-100 is for replicas only);
                // while deletions are held nothing is reclaimed, so it gives up the same way.
                expire(e);
                if (keyspace.deletionsHeld() && ++misses >= 100) return e.key();
                continue;
            }
            return e.key();
        }
        return null;
    }

    /**
     * One step of SCAN: visits the bucket the cursor names and returns the next cursor (0 when
     * done), with Redis's reverse-binary increment so a full scan sees every key present
     * throughout, across resizes.
     */
    public long scanStep(long cursor, Consumer<Entry> visitor) {
        // Expired entries are skipped by callers, who may delete them as they go.
        return table.scan(cursor, visitor);
    }

    /** Visits every entry, expired or not; the visitor must not modify the database. */
    public void forEach(Consumer<Entry> visitor) {
        table.forEach(visitor);
    }

    WatchedKeys watchedKeys() {
        return watched;
    }

    /** True when the table holds key, expired or not (WATCH bookkeeping, blocked clients' SWAPDB; no reclaiming). */
    public boolean containsPhysically(byte[] key) {
        return stored(key) != null;
    }

    /** The entry as stored, even past its TTL and without reclaiming it (DEBUG OBJECT, Redis's dictFind). */
    public Entry stored(byte[] key) {
        return table.find(key);
    }

    /** True when e is this database's entry for its key, expired or not. */
    boolean holds(Entry e) {
        return table.holds(e);
    }

    /** True when key is stored but its TTL has passed (Redis's keyIsExpired). */
    boolean isExpiredPhysically(byte[] key) {
        Entry e = table.find(key);
        return e != null && isExpired(e);
    }

    public boolean isExpired(Entry e) {
        return e instanceof VolatileEntry && keyspace.isExpired(((VolatileEntry) e).expireAt);
    }

    /** Makes key look idle for that many seconds (RESTORE IDLETIME, OBJECT IDLETIME reads it). */
    public void setIdleSeconds(byte[] key, long seconds) {
        Entry e = table.find(key);
        if (e == null) return;
        long clock = keyspace.lruClock();
        long at = clock - Math.min(seconds, Entry.LRU_MASK);
        if (at < 0) at += Entry.LRU_MASK + 1;
        e.lru = (e.lru & ~Entry.LRU_MASK) | (int) at;
    }

    /**
     * Sets what RESTORE's IDLETIME or FREQ asks for, as Redis's objectSetLRUOrLFU: FREQ under an
     * LFU policy, IDLETIME under any other; -1 for none.
     */
    public void setAccess(byte[] key, long idleSeconds, int freq) {
        if (keyspace.lfu()) {
            Entry e = table.find(key);
            if (e != null && freq >= 0) e.lru = (e.lru & ~Entry.LRU_MASK) | keyspace.lfuAccess(freq);
        } else if (idleSeconds >= 0) {
            setIdleSeconds(key, idleSeconds);
        }
    }

    // ---- eviction ----

    /**
     * Up to count distinct entries picked at random, from all keys or only from those with a TTL
     * (Redis's dictGetSomeKeys on db->dict or db->expires); returns how many were stored in out.
     */
    int sample(Entry[] out, int count, boolean volatileOnly) {
        if (!volatileOnly) {
            int n = table.someElements(out, count);
            // A table left sparse by deletions (not yet shrunk) may yield nothing in its steps.
            if (n == 0 && table.size() > 0 && count > 0) out[n++] = table.anyElement(ThreadLocalRandom.current());
            return n;
        }
        int want = Math.min(count, volatileCount);
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int stored = 0;
        for (int tries = want * 4; stored < want && tries > 0; tries--) {
            VolatileEntry v = volatiles[rnd.nextInt(volatileCount)];
            boolean seen = false;
            for (int j = 0; j < stored && !seen; j++) seen = out[j] == v;
            if (!seen) out[stored++] = v;
        }
        return stored;
    }

    /** A random entry, from all keys or from those with a TTL; null when there is none. */
    Entry randomEntry(boolean volatileOnly) {
        if (!volatileOnly) return table.anyElement(ThreadLocalRandom.current());
        return volatileCount == 0 ? null : volatiles[ThreadLocalRandom.current().nextInt(volatileCount)];
    }

    /** The stored entry for key if it is still there (and has a TTL, when volatileOnly). */
    Entry evictionCandidate(byte[] key, boolean volatileOnly) {
        Entry e = table.find(key);
        return volatileOnly && !(e instanceof VolatileEntry) ? null : e;
    }

    /** Deletes e for maxmemory: a change (WATCH, dirty) that the keyspace reports as an eviction. */
    void evict(Entry e) {
        unlink(e);
        keyspace.lazyFree().evicted(e.typed());
        keyspace.dirty(1);
        byte[] key = e.key();
        if (!watched.isEmpty()) watched.touched(key, false);
        keyspace.keyEvicted(id, key);
    }

    /** Removes the entry for key if it is expired; true if it was. */
    public boolean reclaimIfExpired(Entry e) {
        if (!isExpired(e)) return false;
        if (table.holds(e)) expire(e);
        return true;
    }

    // ---- table internals ----

    /**
     * A command may go on changing a value it has just stored (SADD creates the set, stores it,
     * then adds the members): inside a command, a stored or replaced entry is measured when the
     * command ends. Outside commands (loading) at once, so nothing piles up to be measured.
     */
    private boolean deferMeasuring() {
        return keyspace.inCommand() && !keyspace.isLoading();
    }

    /** e was linked into the table: into the running total now or when the command ends. */
    private void added(Entry e) {
        if (deferMeasuring()) keyspace.memoryTally().outOfTotal(this, e); else bytes += e.memory();
    }

    /** Puts {@code replacement} where {@code old} is in its chain and in the volatile index. */
    private void replace(Entry old, Entry replacement) {
        beforeChange(old);
        replacement.lru = (replacement.lru & ~(Entry.SNAPSHOT_MARK | Entry.MEASURING)) | keyspace.snapshotMark();
        table.replace(old, replacement);
        if ((old.lru & Entry.MEASURING) == 0) bytes -= old.memory();
        added(replacement);
        if (old instanceof VolatileEntry) removeVolatile((VolatileEntry) old);
        if (replacement instanceof VolatileEntry) addVolatile((VolatileEntry) replacement);
    }

    private void unlink(Entry e) {
        beforeChange(e);
        if (e.typed() instanceof StreamValue) keyspace.streamGone(id, e.key());
        table.unlink(e);
        if ((e.lru & Entry.MEASURING) == 0) bytes -= e.memory(); else e.lru &= ~Entry.MEASURING;
        if (e instanceof VolatileEntry) removeVolatile((VolatileEntry) e);
    }

    /** Hands e to a running snapshot before it changes or goes, if the snapshot still owes it. */
    private void beforeChange(Entry e) {
        KeyspaceSnapshot s = keyspace.snapshot();
        if (s != null) s.beforeChange(this, e);
    }

    /** The table, for a snapshot's walk. */
    ChainedTable<Entry> table() {
        return table;
    }

    private void addVolatile(VolatileEntry v) {
        if (volatileCount == volatiles.length) volatiles = Arrays.copyOf(volatiles, volatileCount * 2);
        v.volatileIndex = volatileCount;
        volatiles[volatileCount++] = v;
    }

    private void removeVolatile(VolatileEntry v) {
        int i = v.volatileIndex;
        VolatileEntry last = volatiles[--volatileCount];
        volatiles[i] = last;
        last.volatileIndex = i;
        volatiles[volatileCount] = null;
        if (volatiles.length > 64 && volatileCount * 4 < volatiles.length) {
            volatiles = Arrays.copyOf(volatiles, volatiles.length / 2);
        }
    }
}
