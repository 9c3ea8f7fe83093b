package io.cinnabar.command.strings;

import java.util.Arrays;

/**
 * The table LCS fills (Redis's LCS(i, j): the longest common subsequence of a's first i bytes and
 * b's first j), computed 64 cells at a time (Allison and Dix, Hyyrö's formulation). Column j is
 * kept as one bit per i: bit i-1 is clear where LCS(i, j) = LCS(i-1, j) + 1, so LCS(i, j) counts
 * the clear bits below i. Stepping from column j-1 to j for the byte c = b[j-1] is
 * V' = (V + (V & M[c])) | (V & ~M[c]), M[c] having a bit set where a holds c. That is an addition
 * per 64 cells where Redis computes each cell on its own, and 1/32 of its table's memory.
 */
final class LcsTable {
    private final int words;
    /** Column j at j * words; bits past alen stay set. Null when only the length was asked for. */
    private final long[] columns;
    private final int length;

    private LcsTable(int words, long[] columns, int length) {
        this.words = words;
        this.columns = columns;
        this.length = length;
    }

    /** The whole table, for walking back through it. */
    static LcsTable of(byte[] a, byte[] b) {
        return compute(a, b, true);
    }

    /** LCS(a.length, b.length) alone: one column in memory. */
    static int length(byte[] a, byte[] b) {
        return compute(a, b, false).length;
    }

    private static LcsTable compute(byte[] a, byte[] b, boolean keep) {
        int alen = a.length, blen = b.length, words = Math.max(1, (alen + 63) >>> 6);
        long[][] masks = new long[256][];
        for (int i = 0; i < alen; i++) {
            int c = a[i] & 0xFF;
            if (masks[c] == null) masks[c] = new long[words];
            masks[c][i >>> 6] |= 1L << i;
        }
        long cells = (long) (keep ? blen + 1 : 1) * words;
        if (cells > Integer.MAX_VALUE - 8) throw new OutOfMemoryError();
        long[] columns = new long[(int) cells];
        Arrays.fill(columns, 0, words, -1L);
        int at = 0;
        for (int j = 0; j < blen; j++) {
            int next = keep ? at + words : at;
            long[] m = masks[b[j] & 0xFF];
            if (m == null) { // no match in a: the column is unchanged
                if (keep) System.arraycopy(columns, at, columns, next, words);
            } else {
                long carry = 0;
                for (int w = 0; w < words; w++) {
                    long v = columns[at + w], u = v & m[w];
                    long sum = v + u, total = sum + carry;
                    carry = (Long.compareUnsigned(sum, v) < 0 || Long.compareUnsigned(total, sum) < 0) ? 1 : 0;
                    columns[next + w] = total | (v & ~m[w]);
                }
            }
            at = next;
        }
        int length = alen - setBelow(columns, at, alen);
        return new LcsTable(words, keep ? columns : null, length);
    }

    /** Set bits among the first n bits of the column at off. */
    private static int setBelow(long[] columns, int off, int n) {
        int count = 0, full = n >>> 6;
        for (int w = 0; w < full; w++) count += Long.bitCount(columns[off + w]);
        if ((n & 63) != 0) count += Long.bitCount(columns[off + full] & ((1L << n) - 1));
        return count;
    }

    int length() {
        return length;
    }

    /** LCS(i, j), 0 <= i <= a.length, 0 <= j <= b.length. */
    int at(int i, int j) {
        return i - setBelow(columns, j * words, i);
    }

    /** Memory Redis's table would take: (a.length + 1) * (b.length + 1) 32-bit cells. */
    static long redisTableBytes(byte[] a, byte[] b) {
        return (long) (a.length + 1) * (b.length + 1) * 4;
    }
}
