package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A hash: a {@link PairPack} ("listpack") while small, a {@link BytesMap} ("hashtable") once it
 * passes hash-max-listpack-entries fields or holds a field or value longer than
 * hash-max-listpack-value bytes. The conversion is one-way, as in Redis. The thresholds are
 * passed to each write so CONFIG SET applies to later writes. The hashtable's arrays are never
 * mutated, so readers may hand them to replies directly; a listpack's value of unchanged length is
 * written over in place ({@link PairPack}).
 */
public final class HashValue implements TypedValue {
    /** Receives one byte range (a field or a value) without copying it. */
    @FunctionalInterface
    public interface BytesSink {
        void accept(byte[] b, int off, int len);
    }

    /** Receives one field/value pair as byte ranges, without copying them. */
    @FunctionalInterface
    public interface PairSink {
        void accept(byte[] f, int fOff, int fLen, byte[] v, int vOff, int vLen);
    }

    /** Header and fields of a HashValue; of a BytesMap; of one of its nodes, with its bucket slot. */
    private static final int OBJECT_BYTES = 24, TABLE_BYTES = 48, TABLE_FIELD_BYTES = 40;

    /** The compact encoding; null once converted. */
    private byte[] pack = PairPack.EMPTY;
    /** Pairs in pack. */
    private int count;
    /** The hashtable encoding; null while compact. */
    private BytesMap<byte[]> table;
    /** Heap bytes of the hashtable's field and value arrays, kept as they change ({@link #memoryUsage}). */
    private long tableBytes;

    public HashValue() {
    }

    /**
     * A hash built in one go from loaded pairs (RDB, RESTORE): items[0, n) alternate field and
     * value. compact keeps the listpack encoding whatever the sizes, as Redis keeps a loaded
     * listpack. Fields are expected distinct; a repeated one leaves the hashtable smaller than
     * n / 2, which is how the loader detects it.
     */
    public static HashValue loaded(byte[][] items, int n, boolean compact) {
        HashValue h = new HashValue();
        if (compact) {
            h.pack = PairPack.build(items, n);
            h.count = n / 2;
        } else {
            h.pack = null;
            h.table = new BytesMap<>(n / 2);
            for (int i = 0; i + 1 < n; i += 2) h.put(items[i], items[i + 1]);
        }
        return h;
    }

    @Override
    public ValueType type() {
        return ValueType.HASH;
    }

    @Override
    public String encoding() {
        return table == null ? "listpack" : "hashtable";
    }

    @Override
    public HashValue copy() {
        HashValue h = new HashValue();
        // A pack's values may be written over in place; the hashtable's arrays never are.
        h.pack = pack == null || pack.length == 0 ? pack : pack.clone();
        h.count = count;
        h.table = table == null ? null : table.copy(v -> v);
        h.tableBytes = tableBytes;
        return h;
    }

    public int size() {
        return table == null ? count : table.size();
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    public boolean isCompact() {
        return table == null;
    }

    /** DEBUG HTSTATS-KEY's text of the hashtable encoding; null for a listpack. */
    public String tableStats() {
        return table == null ? null : table.tableStats();
    }

    // ---- reads ----

    /** Passes field's value to sink; false (sink not called) when field is absent. */
    public boolean get(byte[] field, BytesSink sink) {
        if (table != null) {
            byte[] v = table.get(field);
            if (v == null) return false;
            sink.accept(v, 0, v.length);
            return true;
        }
        int off = PairPack.find(pack, field);
        if (off < 0) return false;
        int len = PairPack.length(pack, off);
        sink.accept(pack, PairPack.data(off, len), len);
        return true;
    }

    /** field's value, or null; the array must not be modified. */
    public byte[] get(byte[] field) {
        if (table != null) return table.get(field);
        int off = PairPack.find(pack, field);
        if (off < 0) return null;
        int len = PairPack.length(pack, off);
        int d = PairPack.data(off, len);
        return Arrays.copyOfRange(pack, d, d + len);
    }

    /** Length of field's value, or -1 when absent. */
    public int valueLength(byte[] field) {
        if (table != null) {
            byte[] v = table.get(field);
            return v == null ? -1 : v.length;
        }
        int off = PairPack.find(pack, field);
        return off < 0 ? -1 : PairPack.length(pack, off);
    }

    public boolean contains(byte[] field) {
        return table != null ? table.containsKey(field) : PairPack.find(pack, field) >= 0;
    }

    /** Visits every pair in storage order; the sink must not modify this hash. */
    public void forEach(PairSink sink) {
        if (table != null) {
            table.forEach((f, v) -> sink.accept(f, 0, f.length, v, 0, v.length));
            return;
        }
        byte[] p = pack;
        for (int off = 0; off < p.length; ) off = visit(p, off, sink);
    }

    /** Hands the pair starting at off to sink; returns where the next pair starts. */
    private static int visit(byte[] p, int off, PairSink sink) {
        int fl = PairPack.length(p, off);
        int fd = PairPack.data(off, fl);
        int vOff = fd + fl;
        int vl = PairPack.length(p, vOff);
        int vd = PairPack.data(vOff, vl);
        sink.accept(p, fd, fl, p, vd, vl);
        return vd + vl;
    }

    /**
     * Where each pair of the compact encoding starts, read in one walk, so that pairs can be
     * visited by position ({@link #visitPairAt}) without unpacking them. Compact only.
     */
    public int[] pairStarts() {
        int[] starts = new int[count];
        byte[] p = pack;
        for (int i = 0, off = 0; i < count; i++) {
            starts[i] = off;
            off = PairPack.next(p, PairPack.next(p, off));
        }
        return starts;
    }

    /** Visits the pair at start, one of {@link #pairStarts}; the sink must not modify this hash. */
    public void visitPairAt(int start, PairSink sink) {
        visit(pack, start, sink);
    }

    /**
     * One HSCAN step over the hashtable encoding (reverse-binary cursor); returns the next cursor.
     * The visitor gets the stored arrays, which must not be modified. Only valid when not compact
     * (Redis returns a compact hash whole, with cursor 0).
     */
    public long scanStep(long cursor, java.util.function.BiConsumer<byte[], byte[]> visitor) {
        return table.scan(cursor, visitor);
    }

    /**
     * Every pair as separate arrays (field, value, field, value...), in storage order. Compact
     * entries are copied; hashtable arrays are the stored ones and must not be modified.
     */
    public byte[][] toPairs() {
        if (table == null) return PairPack.unpack(pack, count);
        byte[][] out = new byte[table.size() * 2][];
        int[] i = {0};
        table.forEach((f, v) -> {
            out[i[0]++] = f;
            out[i[0]++] = v;
        });
        return out;
    }

    /**
     * A random pair into out[0] (field) and out[1] (value). For the hashtable encoding these are
     * the stored arrays (so the same field is always the same array instance).
     */
    public void randomPair(byte[][] out) {
        if (table != null) {
            BytesMap.Node<byte[]> n = table.randomNode();
            out[0] = n.key();
            out[1] = n.value();
            return;
        }
        int pick = ThreadLocalRandom.current().nextInt(count);
        int off = 0;
        for (int i = 0; i < pick; i++) off = PairPack.next(pack, PairPack.next(pack, off));
        int fl = PairPack.length(pack, off);
        int fd = PairPack.data(off, fl);
        out[0] = Arrays.copyOfRange(pack, fd, fd + fl);
        int vOff = fd + fl;
        int vl = PairPack.length(pack, vOff);
        int vd = PairPack.data(vOff, vl);
        out[1] = Arrays.copyOfRange(pack, vd, vd + vl);
    }

    // ---- writes ----

    /** Sets field to value (both stored as given); true when field was created. */
    public boolean set(byte[] field, byte[] value, long maxEntries, long maxValue) {
        if (table == null && (field.length > maxValue || value.length > maxValue)) convert();
        if (table != null) return put(field, value);
        int off = PairPack.find(pack, field);
        if (off >= 0) {
            if (!PairPack.replaceValueInPlace(pack, off, value)) pack = PairPack.replaceValue(pack, off, value);
        } else {
            pack = PairPack.append(pack, field, value);
            count++;
        }
        if (count > maxEntries) convert();
        return off < 0;
    }

    /**
     * Sets the pairs args[from], args[from+1], ... (later pairs win); returns how many fields were
     * created. In a compact hash, values that keep their length are written over in place; from
     * the first pair that cannot be, the pairs edit one working copy of the pack, each found and
     * set in it as Redis's hashTypeSet does in its listpack, and past the entries limit the rest
     * go to the hashtable it converts to then.
     */
    public int setAll(byte[][] args, int from, long maxEntries, long maxValue) {
        if (args.length - from == 2) return set(args[from], args[from + 1], maxEntries, maxValue) ? 1 : 0;
        if (table == null) {
            for (int i = from; i < args.length; i++) {
                if (args[i].length > maxValue) {
                    convert();
                    break;
                }
            }
        }
        int created = 0;
        int i = from;
        if (table == null) {
            while (i + 1 < args.length && count <= maxEntries && setInPlace(args[i], args[i + 1])) i += 2;
        }
        if (table == null && i + 1 < args.length) {
            PairPack.Editor editor = new PairPack.Editor(pack, args, i);
            for (; i + 1 < args.length && count <= maxEntries; i += 2) {
                if (editor.set(args[i], args[i + 1])) {
                    count++;
                    created++;
                }
            }
            pack = editor.pack();
            if (count > maxEntries) convert();
        }
        for (; i + 1 < args.length; i += 2) {
            if (put(args[i], args[i + 1])) created++;
        }
        return created;
    }

    /** Writes value over field's in a compact hash if field is there with a value of that length. */
    private boolean setInPlace(byte[] field, byte[] value) {
        int off = PairPack.find(pack, field);
        return off >= 0 && PairPack.replaceValueInPlace(pack, off, value);
    }

    /** Deletes the fields args[from..]; returns how many existed. */
    public int delete(byte[][] args, int from) {
        if (table != null) {
            int removed = 0;
            for (int i = from; i < args.length; i++) {
                BytesMap.Node<byte[]> gone = table.remove(args[i]);
                if (gone != null) {
                    tableBytes -= pairBytes(gone.key(), gone.value());
                    removed++;
                }
            }
            return removed;
        }
        byte[] p = pack;
        byte[] out = null;
        int outLen = 0, removed = 0, off = 0;
        while (off < p.length) {
            int fl = PairPack.length(p, off);
            int fd = PairPack.data(off, fl);
            int end = PairPack.next(p, fd + fl);
            boolean drop = false;
            for (int i = from; i < args.length; i++) {
                if (args[i].length == fl && Arrays.equals(p, fd, fd + fl, args[i], 0, fl)) {
                    drop = true;
                    break;
                }
            }
            if (drop) {
                if (out == null) {
                    out = new byte[p.length];
                    System.arraycopy(p, 0, out, 0, off);
                    outLen = off;
                }
                removed++;
            } else if (out != null) {
                System.arraycopy(p, off, out, outLen, end - off);
                outLen += end - off;
            }
            off = end;
        }
        if (removed > 0) {
            pack = outLen == 0 ? PairPack.EMPTY : Arrays.copyOf(out, outLen);
            count -= removed;
        }
        return removed;
    }

    /** Converts the compact encoding to a hashtable (Redis's hashTypeConvert). */
    private void convert() {
        byte[][] items = PairPack.unpack(pack, count);
        table = new BytesMap<>(count);
        pack = null;
        count = 0;
        for (int i = 0; i < items.length; i += 2) put(items[i], items[i + 1]);
    }

    /** Stores a pair in the hashtable, counting its bytes; true when field was created. */
    private boolean put(byte[] field, byte[] value) {
        byte[] old = table.put(field, value);
        tableBytes += old == null ? pairBytes(field, value) : Entry.arrayBytes(value.length) - Entry.arrayBytes(old.length);
        return old == null;
    }

    private static long pairBytes(byte[] field, byte[] value) {
        return Entry.arrayBytes(field.length) + Entry.arrayBytes(value.length);
    }

    /**
     * Heap bytes, O(1): this object and its listpack array; or the hashtable's nodes and bucket
     * slots (~40 bytes a field) and the field and value arrays it holds.
     */
    @Override
    public long memoryUsage() {
        if (table == null) return OBJECT_BYTES + Entry.arrayBytes(pack.length);
        return OBJECT_BYTES + TABLE_BYTES + TABLE_FIELD_BYTES * (long) table.size() + tableBytes;
    }
}
