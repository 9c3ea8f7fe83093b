package io.cinnabar.keyspace;

import java.util.Arrays;

/**
 * A member interval as ZRANGEBYLEX takes it: "[a" inclusive, "(a" exclusive, "-" and "+" the
 * smallest and largest possible strings (Redis's zlexrangespec with shared.minstring/maxstring).
 */
public final class LexRange {
    /** Markers compared by identity, like Redis's shared min/max strings. */
    public static final byte[] MIN = new byte[0];
    public static final byte[] MAX = new byte[0];

    public final byte[] min, max;
    public final boolean minExclusive, maxExclusive;

    public LexRange(byte[] min, boolean minExclusive, byte[] max, boolean maxExclusive) {
        this.min = min;
        this.max = max;
        this.minExclusive = minExclusive;
        this.maxExclusive = maxExclusive;
    }

    /** Redis's sdscmplex: the markers sort below/above every string. */
    public static int compare(byte[] a, byte[] b) {
        if (a == b) return 0;
        if (a == MIN || b == MAX) return -1;
        if (a == MAX || b == MIN) return 1;
        return Arrays.compareUnsigned(a, b);
    }

    public boolean gteMin(byte[] v) {
        return minExclusive ? compare(v, min) > 0 : compare(v, min) >= 0;
    }

    public boolean lteMax(byte[] v) {
        return maxExclusive ? compare(v, max) < 0 : compare(v, max) <= 0;
    }

    public boolean isEmpty() {
        int c = compare(min, max);
        return c > 0 || (c == 0 && (minExclusive || maxExclusive));
    }
}
