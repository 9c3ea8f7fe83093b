package io.cinnabar.keyspace;

import io.cinnabar.util.Numbers;
import java.util.Arrays;

/**
 * One key in a {@link Database}'s chained hash table. Kept to 32 bytes: keys without a TTL pay
 * nothing for expiry, which lives in {@link VolatileEntry}.
 * <p>
 * A short string is kept in one array with its key, the string after the key, as Redis keeps a
 * short string in one allocation with its object (embstr): one array header and its padding
 * less, 16 bytes a key for 16-byte keys and 32-byte values. The link's array is then longer than
 * the key, whose length the value field holds ({@link Packed}); {@link #key()} and
 * {@link #value()} hand out copies, {@link #stringArray()} the string where it lies.
 */
public class Entry extends ChainedTable.Link<Entry> {
    /** The value, or, for a string packed after the key, the key's length. */
    private Object value;
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

    /** The longest key and string packed into one array: copying them on every store stays cheap. */
    private static final int PACKED_KEY_MAX = 127, PACKED_STRING_MAX = 64;

    /** Whether a string value this long may be packed after its key. */
    static boolean packable(int length) {
        return length <= PACKED_STRING_MAX;
    }

    /** The value field of a packed string: the key's length, one shared instance per length. */
    private static final class Packed {
        private static final Packed[] BY_KEY_LENGTH = new Packed[PACKED_KEY_MAX + 1];
        static {
            for (int i = 0; i <= PACKED_KEY_MAX; i++) BY_KEY_LENGTH[i] = new Packed(i);
        }

        final int keyLength;

        private Packed(int keyLength) {
            this.keyLength = keyLength;
        }
    }

    Entry(byte[] key, int hash, Object value, int lru) {
        this(key, hash, value, lru, true);
    }

    /** pack: a short string may be packed after the key. */
    Entry(byte[] key, int hash, Object value, int lru, boolean pack) {
        super(key, hash);
        this.lru = lru;
        store(key, key.length, value, pack);
    }

    /** The same key, value and access time as from (packed or not), for a replacement entry. */
    Entry(Entry from) {
        super(from.key, from.hash);
        this.value = from.value;
        this.lru = from.lru;
    }

    /** The key; a copy when the string is packed after it. */
    public final byte[] key() {
        return value instanceof Packed p ? Arrays.copyOf(key, p.keyLength) : key;
    }

    /** Whether the key matches glob, read where it lies (key() copies a key packed with its string). */
    public final boolean keyMatches(GlobMatcher.Compiled glob) {
        return glob.matches(key, value instanceof Packed p ? p.keyLength : key.length);
    }

    /** True when this entry's key is k. */
    final boolean hasKey(byte[] k) {
        return value instanceof Packed p ? Arrays.equals(key, 0, p.keyLength, k, 0, k.length) : Arrays.equals(key, k);
    }

    /**
     * The value; a copy of a packed string. A string grown in place is trimmed to a plain array
     * here, once, for every reader but its editors.
     */
    public final Object value() {
        Object v = value;
        if (v instanceof Packed p) return packedString(p);
        if (v instanceof GrowableString g) value = v = g.toBytes();
        return v;
    }

    /** A copy of the string packed after the key. */
    private byte[] packedString(Packed p) {
        return Arrays.copyOfRange(key, p.keyLength, key.length);
    }

    /** Stores value, packing a short string after the key; keySource holds the key in its first keyLength bytes. */
    private void store(byte[] keySource, int keyLength, Object v, boolean pack) {
        if (pack && v instanceof byte[] s && keyLength <= PACKED_KEY_MAX && s.length > 0 && s.length <= PACKED_STRING_MAX) {
            byte[] both = Arrays.copyOf(keySource, keyLength + s.length);
            System.arraycopy(s, 0, both, keyLength, s.length);
            key = both;
            value = Packed.BY_KEY_LENGTH[keyLength];
        } else {
            if (keySource.length != keyLength) key = Arrays.copyOf(keySource, keyLength);
            value = v;
        }
    }

    /**
     * Replaces the value (the key stays); pack: a short string may be packed after the key. A
     * packed string of the same length is written over where it lies, as Redis's SET reuses the
     * key's allocation: no array per store, and the key stays where earlier lookups left it in
     * the caches (redis-benchmark SET -r 10000 -d 61: the lookup before each store took 30% less
     * of the event loop's CPU). Nothing else holds that array: key() and value() hand out copies,
     * and a snapshot copies an entry before it changes.
     */
    final void setValue(Object v, boolean pack) {
        if (pack && value instanceof Packed p && v instanceof byte[] s && s.length == key.length - p.keyLength) {
            System.arraycopy(s, 0, key, p.keyLength, s.length);
            return;
        }
        store(key, value instanceof Packed p ? p.keyLength : key.length, v, pack);
    }

    /** True when the value is a string (packed, plain or being grown). */
    public final boolean isString() {
        Object v = value;
        return v instanceof Packed || v instanceof byte[] || v instanceof GrowableString;
    }

    /** The value when it is not a string (a collection, a stream...), else null. */
    final TypedValue typed() {
        return value instanceof TypedValue t ? t : null;
    }

    /** A string being grown in place, else null. */
    final GrowableString growing() {
        return value instanceof GrowableString g ? g : null;
    }

    /**
     * A string value as it is, for reads of a few bytes: a copy of a packed string, a string
     * being grown where it is (not trimmed, so the next APPEND need not copy it), else the array.
     */
    final Object stringInPlace() {
        return value instanceof Packed p ? packedString(p) : value;
    }

    /** A string value frozen for a snapshot: a packed or growing string copied, without trimming the latter. */
    final byte[] frozenString() {
        Object v = value;
        if (v instanceof Packed p) return packedString(p);
        return v instanceof GrowableString g ? g.toBytes() : (byte[]) v;
    }

    /**
     * The array a string value lies in, from {@link #stringStart()} to its end: a packed string
     * is read where it is, without a copy (GET).
     */
    public final byte[] stringArray() {
        return value instanceof Packed ? key : (byte[]) value();
    }

    /**
     * Writes v's decimal form over a string packed after the key that has exactly as many bytes
     * (INCR's new value, in place as Redis changes its integer); false, nothing written, otherwise.
     */
    final boolean overwriteDecimal(long v) {
        if (!(value instanceof Packed p) || key.length - p.keyLength != Numbers.decimalLength(v)) return false;
        Numbers.writeDecimal(key, key.length, v);
        return true;
    }

    /** Where the string starts in {@link #stringArray()}. */
    public final int stringStart() {
        return value instanceof Packed p ? p.keyLength : 0;
    }

    /**
     * Approximate heap bytes of the key: entry, key and value (MEMORY USAGE, and what the
     * databases' running totals that maxmemory acts on add up). O(1) for every type.
     */
    public final long memory() {
        long entry = this instanceof VolatileEntry ? VOLATILE_ENTRY_BYTES : ENTRY_BYTES;
        return entry + arrayBytes(key.length) + (value instanceof Packed ? 0 : valueMemory());
    }

    /**
     * Approximate heap bytes of the value. A string being grown counts by its length, not its
     * buffer: readers trim it ({@link #value()}) without telling the running total.
     */
    long valueMemory() {
        Object v = value;
        if (v instanceof Packed p) return key.length - p.keyLength;
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
