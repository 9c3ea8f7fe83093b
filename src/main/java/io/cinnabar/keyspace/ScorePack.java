package io.cinnabar.keyspace;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The compact ("listpack") encoding of small sorted sets: one flat byte[] of entries in the set's
 * order, each a member as a {@link PairPack} entry (varint length, bytes) followed by its score's
 * 8 bytes. Like PairPack's, a pack is never modified in place: every write builds a new array,
 * sized to fit.
 */
final class ScorePack {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int SCORE_BYTES = 8;

    private ScorePack() {
    }

    static byte[] member(byte[] p, int off) {
        int len = PairPack.length(p, off), d = PairPack.data(off, len);
        return Arrays.copyOfRange(p, d, d + len);
    }

    static double score(byte[] p, int off) {
        int len = PairPack.length(p, off);
        return Double.longBitsToDouble((long) LONG.get(p, PairPack.data(off, len) + len));
    }

    /** The offset just past the entry at off. */
    static int next(byte[] p, int off) {
        int len = PairPack.length(p, off);
        return PairPack.data(off, len) + len + SCORE_BYTES;
    }

    /** The offset of the entry at index i (a walk from the start). */
    static int offsetOf(byte[] p, int i) {
        int off = 0;
        while (i-- > 0) off = next(p, off);
        return off;
    }

    /** The index of the entry at off (a walk from the start). */
    static int indexAt(byte[] p, int off) {
        int i = 0;
        for (int at = 0; at < off; at = next(p, at)) i++;
        return i;
    }

    /** The offsets of the n entries of p. */
    static int[] offsets(byte[] p, int n) {
        int[] out = new int[n];
        for (int i = 0, off = 0; i < n; i++, off = next(p, off)) out[i] = off;
        return out;
    }

    static boolean memberEquals(byte[] p, int off, byte[] member) {
        int len = PairPack.length(p, off);
        int d = PairPack.data(off, len);
        return len == member.length && Arrays.equals(p, d, d + len, member, 0, len);
    }

    /** The entry at off against (score, member) in the set's order (ZSkipList.compare). */
    static int compare(byte[] p, int off, double score, byte[] member) {
        int len = PairPack.length(p, off);
        int d = PairPack.data(off, len);
        double s = Double.longBitsToDouble((long) LONG.get(p, d + len));
        if (s < score) return -1;
        if (s > score) return 1;
        return Arrays.compareUnsigned(p, d, d + len, member, 0, member.length);
    }

    static int entrySize(byte[] member) {
        return PairPack.entrySize(member) + SCORE_BYTES;
    }

    /** Writes one entry at off; returns the offset after it. */
    static int put(byte[] out, int off, double score, byte[] member) {
        off = PairPack.put(out, off, member);
        LONG.set(out, off, Double.doubleToRawLongBits(score));
        return off + SCORE_BYTES;
    }

    /** A copy of p with (score, member) inserted at offset at. */
    static byte[] insert(byte[] p, int at, double score, byte[] member) {
        byte[] out = new byte[p.length + entrySize(member)];
        System.arraycopy(p, 0, out, 0, at);
        int end = put(out, at, score, member);
        System.arraycopy(p, at, out, end, p.length - at);
        return out;
    }

    /** A copy of p without the bytes from..to (whole entries). */
    static byte[] cut(byte[] p, int from, int to) {
        byte[] out = new byte[p.length - (to - from)];
        System.arraycopy(p, 0, out, 0, from);
        System.arraycopy(p, to, out, from, p.length - to);
        return out;
    }
}
