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

    /** Approximate heap bytes of the value (MEMORY USAGE): a grown string's spare room counts, as sds free space does in Redis. */
    public final long valueMemory() {
        Object v = value;
        if (v instanceof byte[] b) return 16 + b.length;
        if (v instanceof GrowableString g) return 16 + g.capacity();
        return ((TypedValue) v).memoryUsage();
    }

    /** Absolute expiry in unix milliseconds, or -1. */
    public long expireAt() {
        return -1;
    }

    /** Last access in seconds of the 24-bit LRU clock. */
    public final int lru() {
        return lru & LRU_MASK;
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
