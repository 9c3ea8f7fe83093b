package io.cinnabar.util;

/**
 * INCRBYFLOAT's step (two strtold, one long double addition, "%.17Lf" trimmed) in long
 * arithmetic, for the numbers it mostly sees: plain decimals of up to 38 significant digits and
 * 18 decimals (its own replies have 17 at most), below 2^63. {@link LongDouble} does the
 * same exactly with BigIntegers, at ten times the cost; this answers null wherever it would have
 * to round beyond what a long holds, and the caller asks LongDouble.
 */
public final class ShortDecimalSum {
    /** D < 10^38 < 2^127, and 5^18 < 2^42 for the long division. */
    private static final int MAX_DIGITS = 38, MAX_DECIMALS = 18;
    /** Longer strings are left to LongDouble, which also knows Redis's limit on them. */
    private static final int MAX_LENGTH = 40;
    private static final long[] FIVES = new long[MAX_DECIMALS + 1];

    static {
        FIVES[0] = 1;
        for (int k = 1; k <= MAX_DECIMALS; k++) FIVES[k] = FIVES[k - 1] * 5;
    }

    /** A long double: (-1)^negative * mantissa * 2^exponent, mantissa read unsigned. */
    private record Value(boolean negative, long mantissa, int exponent) {
        static final Value ZERO = new Value(false, 0, 0);
    }

    private ShortDecimalSum() {}

    /** The text INCRBYFLOAT stores for value (null: 0) plus increment, or null to ask {@link LongDouble}. */
    public static String human(byte[] value, byte[] increment) {
        Value a = value == null ? Value.ZERO : parse(value);
        if (a == null) return null;
        Value b = parse(increment);
        if (b == null) return null;
        Value sum = a.mantissa == 0 ? b : b.mantissa == 0 ? a : add(a, b);
        return sum == null ? null : format(sum);
    }

    /** Whether s is a decimal {@link #human} takes: one that strtold reads as a finite number. */
    public static boolean isShortDecimal(byte[] s) {
        return parse(s) != null;
    }

    /**
     * strtold of [+-]digits[.digits] (either side may be empty, not both), correctly rounded: the
     * decimal D * 10^-k is D * 2^t / 5^k * 2^-(t+k), divided out to at least 65 bits of quotient
     * and rounded on them and the remainder. Null for anything else.
     */
    static Value parse(byte[] s) {
        int n = s.length;
        if (n == 0 || n > MAX_LENGTH) return null;
        int i = 0;
        boolean negative = s[0] == '-';
        if (negative || s[0] == '+') i++;
        long hi = 0, lo = 0; // D, 128 bits
        int significant = 0, decimals = 0;
        boolean point = false, sawDigit = false;
        for (; i < n; i++) {
            int c = s[i];
            if (c >= '0' && c <= '9') {
                sawDigit = true;
                if (point) decimals++;
                if (significant == 0 && c == '0') continue;
                if (++significant > MAX_DIGITS) return null;
                long tenLo = lo * 10;
                hi = hi * 10 + Math.multiplyHigh(lo, 10) + ((lo >> 63) & 10);
                lo = tenLo + (c - '0');
                if (Long.compareUnsigned(lo, tenLo) < 0) hi++;
            } else if (c == '.' && !point) {
                point = true;
            } else {
                return null;
            }
        }
        if (!sawDigit) return null;
        if (hi == 0 && lo == 0) return new Value(negative, 0, 0);
        if (decimals == 0 && hi == 0) { // exact; the mantissa's top bit set, as add() would align a quotient
            int z = Long.numberOfLeadingZeros(lo);
            return new Value(negative, lo << z, -z);
        }
        if (decimals > MAX_DECIMALS) return null;
        long five = FIVES[decimals];
        int dividendBits = bitLength(hi, lo), fiveBits = 64 - Long.numberOfLeadingZeros(five);
        // At least 65 bits of quotient, so that the remainder only ever breaks ties.
        int t = Math.max(0, 66 - dividendBits + fiveBits);
        if (t > 0) {
            hi = t >= 64 ? lo << (t - 64) : (hi << t) | (lo >>> (64 - t));
            lo = t >= 64 ? 0 : lo << t;
        }
        // Long division by 5^k < 2^42, 21 bits of the dividend at a time: rest << 21 stays in a long.
        long qHi = 0, qLo = 0, rest = 0;
        for (int from = 126; from >= 0; from -= 21) {
            long x = (rest << 21) | bits21(hi, lo, from);
            long digit = x / five;
            rest = x - digit * five;
            qHi = (qHi << 21) | (qLo >>> 43);
            qLo = (qLo << 21) | digit;
        }
        return rounded(negative, qHi, qLo, rest != 0, -(t + decimals));
    }

    private static int bitLength(long hi, long lo) {
        return hi != 0 ? 128 - Long.numberOfLeadingZeros(hi) : 64 - Long.numberOfLeadingZeros(lo);
    }

    /** Bits from..from+20 of the 128-bit hi:lo (those past bit 127 are 0). */
    private static long bits21(long hi, long lo, int from) {
        long v = from >= 64 ? hi >>> (from - 64) : from == 0 ? lo : (lo >>> from) | (hi << (64 - from));
        return v & 0x1F_FFFFL;
    }

    /**
     * hi:lo * 2^exponent, and a non-zero remainder below it if sticky, rounded to 64 bits, ties to
     * even. A sticky value has more than 64 bits (the caller's quotients have at least 65).
     */
    private static Value rounded(boolean negative, long hi, long lo, boolean sticky, int exponent) {
        if (hi == 0) return new Value(negative, lo, exponent);
        int drop = 64 - Long.numberOfLeadingZeros(hi);
        long m = drop == 64 ? hi : (hi << (64 - drop)) | (lo >>> drop);
        long rest = drop == 64 ? lo : lo & ((1L << drop) - 1), half = 1L << (drop - 1);
        int cmp = Long.compareUnsigned(rest, half);
        if ((cmp > 0 || (cmp == 0 && (sticky || (m & 1) == 1))) && ++m == 0) {
            m = Long.MIN_VALUE; // 2^64: 2^63 at the next exponent
            drop++;
        }
        return new Value(negative, m, exponent + drop);
    }

    /** a + b rounded once to 64 bits, ties to even; null where the exponents lie 64 or more apart. */
    static Value add(Value a, Value b) {
        if (a.exponent < b.exponent) {
            Value t = a;
            a = b;
            b = t;
        }
        int d = a.exponent - b.exponent;
        if (d >= 64) return null;
        // a's mantissa shifted onto b's exponent, 128 bits.
        long aHi = d == 0 ? 0 : a.mantissa >>> (64 - d), aLo = a.mantissa << d;
        long hi, lo;
        boolean negative;
        if (a.negative == b.negative) {
            lo = aLo + b.mantissa;
            hi = aHi + (Long.compareUnsigned(lo, aLo) < 0 ? 1 : 0);
            negative = a.negative;
        } else {
            boolean aLarger = aHi != 0 || Long.compareUnsigned(aLo, b.mantissa) >= 0;
            if (aLarger) {
                lo = aLo - b.mantissa;
                hi = aHi - (Long.compareUnsigned(aLo, b.mantissa) < 0 ? 1 : 0);
            } else {
                lo = b.mantissa - aLo;
                hi = 0;
            }
            negative = aLarger ? a.negative : b.negative;
        }
        return rounded(negative, hi, lo, false, b.exponent);
    }

    /** "%.17Lf" trimmed, or null where the whole part passes 2^63. */
    static String format(Value v) {
        long m = v.mantissa;
        if (m == 0) return "0";
        int zeros = Long.numberOfTrailingZeros(m);
        m >>>= zeros;
        int e = v.exponent + zeros;
        if (e >= 0) {
            if (64 - Long.numberOfLeadingZeros(m) + e > 63) return null;
            return DoubleFormat.human(v.negative, m << e, 0, 0);
        }
        int bits = -e;
        if (bits >= 64) return DoubleFormat.human(v.negative, 0, m, bits);
        return DoubleFormat.human(v.negative, m >>> bits, m & ((1L << bits) - 1), bits);
    }
}
