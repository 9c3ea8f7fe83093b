package io.cinnabar.keyspace;

import java.util.Arrays;

/**
 * The compact encoding of small hashes, like Redis's listpack: one flat byte[] of entries, each a
 * varint length (7 bits a byte, low bits first) followed by that many bytes; entries alternate
 * field, value. An empty pack is a zero-length array. A value replaced by one of the same length
 * is written over in place, as Redis's listpack does; every other write builds a new array. So
 * slices of a pack are read at once (replies copy them), and a copy of a hash owns its pack.
 */
final class PairPack {
    static final byte[] EMPTY = new byte[0];

    private PairPack() {
    }

    /** Bytes the varint header of an entry of length len takes. */
    static int headerSize(int len) {
        int n = 1;
        while ((len >>>= 7) != 0) n++;
        return n;
    }

    /** The data length of the entry starting at off. */
    static int length(byte[] p, int off) {
        int b = p[off++];
        int len = b & 0x7f;
        for (int shift = 7; b < 0; shift += 7) {
            b = p[off++];
            len |= (b & 0x7f) << shift;
        }
        return len;
    }

    /** Where the data of the entry of length len starting at off begins. */
    static int data(int off, int len) {
        return off + headerSize(len);
    }

    /** The offset just past the entry starting at off. */
    static int next(byte[] p, int off) {
        int len = length(p, off);
        return off + headerSize(len) + len;
    }

    /** Offset of the value entry of field, or -1. */
    static int find(byte[] p, byte[] field) {
        return find(p, p.length, field);
    }

    /** Offset of the value entry of field among the entries in p's first n bytes, or -1. */
    private static int find(byte[] p, int n, byte[] field) {
        int off = 0;
        while (off < n) {
            int len = length(p, off);
            int d = data(off, len);
            int valueOff = d + len;
            // The last byte first: fields often share a prefix ("f1", "f2"), and a call into
            // Arrays.equals costs more than the comparison of a short field itself.
            if (len == field.length && (len == 0 || p[valueOff - 1] == field[len - 1])
                    && Arrays.equals(p, d, valueOff, field, 0, len)) {
                return valueOff;
            }
            off = next(p, valueOff);
        }
        return -1;
    }

    /** Offset of the field entry whose value entry starts at valueOff (scans from the start). */
    static int fieldBefore(byte[] p, int valueOff) {
        int off = 0;
        while (true) {
            int v = next(p, off);
            if (v == valueOff) return off;
            off = next(p, v);
        }
    }

    static int entrySize(byte[] b) {
        return headerSize(b.length) + b.length;
    }

    /** Writes one entry at off; returns the offset after it. */
    static int put(byte[] out, int off, byte[] b, int from, int len) {
        int v = len;
        while (v >= 0x80) {
            out[off++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        out[off++] = (byte) v;
        System.arraycopy(b, from, out, off, len);
        return off + len;
    }

    static int put(byte[] out, int off, byte[] b) {
        return put(out, off, b, 0, b.length);
    }

    /** Writes value over the value entry at valueOff if it has the same length; false if not. */
    static boolean replaceValueInPlace(byte[] p, int valueOff, byte[] value) {
        int len = length(p, valueOff);
        if (len != value.length) return false;
        System.arraycopy(value, 0, p, data(valueOff, len), len);
        return true;
    }

    /** A copy of p with the value entry at valueOff replaced by value. */
    static byte[] replaceValue(byte[] p, int valueOff, byte[] value) {
        int end = next(p, valueOff);
        byte[] out = new byte[valueOff + entrySize(value) + (p.length - end)];
        System.arraycopy(p, 0, out, 0, valueOff);
        int off = put(out, valueOff, value);
        System.arraycopy(p, end, out, off, p.length - end);
        return out;
    }

    /** A copy of p with field, value appended. */
    static byte[] append(byte[] p, byte[] field, byte[] value) {
        byte[] out = Arrays.copyOf(p, p.length + entrySize(field) + entrySize(value));
        put(out, put(out, p.length, field), value);
        return out;
    }

    /**
     * The writes of one call made on one copy of a pack, with room for all of them, as Redis
     * edits its listpack in place: each pair is searched for and its value replaced (the entries
     * after it moved) or appended, where a write of its own would copy the whole pack.
     */
    static final class Editor {
        private final byte[] buf;
        private int length;

        /** A copy of p with room for the pairs args[from..] as new entries. */
        Editor(byte[] p, byte[][] args, int from) {
            int room = 0;
            for (int i = from; i < args.length; i++) room += entrySize(args[i]);
            buf = Arrays.copyOf(p, p.length + room);
            length = p.length;
        }

        /** Sets field to value; true if the field was added. */
        boolean set(byte[] field, byte[] value) {
            int valueOff = find(buf, length, field);
            if (valueOff < 0) {
                length = put(buf, put(buf, length, field), value);
                return true;
            }
            if (replaceValueInPlace(buf, valueOff, value)) return false;
            int end = next(buf, valueOff);
            int newEnd = valueOff + entrySize(value);
            System.arraycopy(buf, end, buf, newEnd, length - end);
            put(buf, valueOff, value);
            length += newEnd - end;
            return false;
        }

        byte[] pack() {
            return Arrays.copyOf(buf, length);
        }
    }

    /** Packs the first n entries of items (field, value, field, value...). */
    static byte[] build(byte[][] items, int n) {
        int size = 0;
        for (int i = 0; i < n; i++) size += entrySize(items[i]);
        byte[] out = new byte[size];
        int off = 0;
        for (int i = 0; i < n; i++) off = put(out, off, items[i]);
        return out;
    }

    /** The entries of p as separate arrays (field, value, field, value...). */
    static byte[][] unpack(byte[] p, int pairs) {
        byte[][] out = new byte[pairs * 2][];
        int off = 0;
        for (int i = 0; i < out.length; i++) {
            int len = length(p, off);
            int d = data(off, len);
            out[i] = Arrays.copyOfRange(p, d, d + len);
            off = d + len;
        }
        return out;
    }
}
