package io.cinnabar.keyspace;

/**
 * One key in a {@link Database}'s chained hash table. Kept to 32 bytes: keys without a TTL pay
 * nothing for expiry, which lives in {@link VolatileEntry}.
 */
public class Entry extends ChainedTable.Link<Entry> {
    Object value;
    /**
     * Bits 0-23: last access in seconds of the server's 24-bit LRU clock (OBJECT IDLETIME), as
     * Redis's robj.lru; the bits above hold flags ({@link #RAW}), so entries stay 32 bytes.
     */
    int lru;

    static final int LRU_MASK = (1 << 24) - 1;
    /** The string was last written by APPEND/SETRANGE/SETBIT: OBJECT ENCODING says "raw". */
    static final int RAW = 1 << 24;
    /**
     * Which snapshot generation has seen this entry: while a snapshot runs, an entry whose mark
     * differs from {@link Keyspace#snapshotMark()} has not been handed to it yet (see
     * {@link KeyspaceSnapshot}).
     */
    static final int SNAPSHOT_MARK = 1 << 25;
    /**
     * The string was stored as Redis stores INCRBYFLOAT's result, without trying the integer
     * encoding: OBJECT ENCODING says "embstr" (or "raw" by length) even for "10".
     */
    static final int NOT_INT = 1 << 26;
    /**
     * The command running now looked the entry up to change its value in place: its size is out
     * of its database's running total until the command ends and it is measured again
     * ({@link MemoryTally}).
     */
    static final int MEASURING = 1 << 27;
    /**
     * The string is COPY's duplicate (Redis's dupStringObject), a private object: a small integer
     * here has OBJECT REFCOUNT 1, not the shared integer's. Any later store clears it.
     */
    static final int PRIVATE_COPY = 1 << 28;
    /** Object header and fields of an Entry, and of a {@link VolatileEntry} (TTL and index, plus its slot in the volatile array). */
    private static final int ENTRY_BYTES = 32, VOLATILE_ENTRY_BYTES = 48 + 4;
    /** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
    private static final int EMBSTR_SIZE_LIMIT = 44;

    Entry(byte[] key, int hash, Object value, int lru) {
        super(key, hash);
        this.value = value;
        this.lru = lru;
    }

    public final byte[] key() {
        return key;
    }

    /** The value; a string grown in place is trimmed to a plain array here, once, for every reader but its editors. */
    public final Object value() {
        if (value instanceof GrowableString g) value = g.toBytes();
        return value;
    }

    /**
     * Approximate heap bytes of the key: entry, key and value (MEMORY USAGE, and what the
     * databases' running totals that maxmemory acts on add up). O(1) for every type.
     */
    public final long memory() {
        return (this instanceof VolatileEntry ? VOLATILE_ENTRY_BYTES : ENTRY_BYTES) + arrayBytes(key.length) + valueMemory();
    }

    /**
     * Approximate heap bytes of the value. A string being grown counts by its length, not its
     * buffer: readers trim it ({@link #value()}) without telling the running total.
     */
    long valueMemory() {
        Object v = value;
        if (v instanceof byte[] b) return arrayBytes(b.length);
        if (v instanceof GrowableString g) return arrayBytes(g.length());
        return ((TypedValue) v).memoryUsage();
    }

    /** A byte[] of n: 16-byte header, rounded up to 8 as the JVM allocates. */
    static long arrayBytes(int n) {
        return (16L + n + 7) & ~7L;
    }

    /** Absolute expiry in unix milliseconds, or -1. */
    public long expireAt() {
        return -1;
    }

    /** Last access in seconds of the 24-bit LRU clock. */
    public final int lru() {
        return lru & LRU_MASK;
    }

    /** True when the string is COPY's private duplicate, never one of Redis's shared integers. */
    public final boolean privateCopy() {
        return (lru & PRIVATE_COPY) != 0;
    }

    /** True when the string value is held the way Redis holds a modified string (encoding "raw"). */
    public final boolean rawEncoding() {
        return (lru & RAW) != 0;
    }

    /**
     * OBJECT ENCODING of a string value, as Redis's tryObjectEncoding leaves it: canonical longs
     * "int", short strings "embstr", others "raw"; strings edited in place (APPEND...) are "raw"
     * and INCRBYFLOAT's results are never "int".
     */
    public final String stringEncoding() {
        if ((lru & RAW) != 0) return "raw";
        byte[] s = (byte[]) value();
        if ((lru & NOT_INT) == 0 && s.length <= 20 && io.cinnabar.util.Numbers.isLong(s)) return "int";
        return s.length <= EMBSTR_SIZE_LIMIT ? "embstr" : "raw";
    }
}
