package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.IntSet;

/**
 * The intset blob of RDB type SET_INTSET: width in bytes (u32 LE: 2, 4 or 8), count (u32 LE),
 * then the values ascending, each little endian at that width.
 */
public final class IntsetBlob {
    private static final int HEADER_SIZE = 8;

    private IntsetBlob() {
    }

    public static byte[] encode(IntSet set) {
        int width = set.width(), n = set.size();
        byte[] out = new byte[HEADER_SIZE + n * width];
        LittleEndian.put(out, 0, width, 4);
        LittleEndian.put(out, 4, n, 4);
        for (int i = 0, p = HEADER_SIZE; i < n; i++, p += width) LittleEndian.put(out, p, set.get(i), width);
        return out;
    }

    /**
     * The set in blob, or null when it is invalid as intsetValidateIntegrity sees it: a bad width,
     * a size that disagrees with the count, no values at all, and with deep also values that are
     * not strictly ascending. Without deep, values out of order are kept as they are, as Redis does.
     */
    public static IntSet decode(byte[] blob, boolean deep) {
        if (blob.length < HEADER_SIZE) return null;
        long width = LittleEndian.get(blob, 0, 4);
        if (width != 2 && width != 4 && width != 8) return null;
        long count = LittleEndian.get(blob, 4, 4);
        if (count == 0 || HEADER_SIZE + count * width != blob.length) return null;
        int w = (int) width, n = (int) count;
        if (deep) {
            for (int i = 1; i < n; i++) {
                if (value(blob, w, i) <= value(blob, w, i - 1)) return null;
            }
        }
        return IntSet.fromLittleEndian(w, n, blob, HEADER_SIZE);
    }

    private static long value(byte[] blob, int width, int i) {
        return LittleEndian.getSigned(blob, HEADER_SIZE + i * width, width);
    }
}
