package io.cinnabar.util;

/** Strict number parsing with Redis's rules (string2ll, strtod checks), no String allocation. */
public final class Numbers {
    private Numbers() {}

    /** Sentinel-free parse: returns true and sets {@code out[0]} when {@code b} is a canonical long. */
    public static boolean parseLong(byte[] b, long[] out) {
        return parseLong(b, 0, b.length, out);
    }

    /**
     * Redis's string2ll: optional '-', digits, no leading zeros (except "0"), no '+', no spaces,
     * within range of a signed 64-bit integer.
     */
    public static boolean parseLong(byte[] b, int off, int n, long[] out) {
        if (n == 0 || n > 20) return false;
        int i = off, end = off + n;
        if (n == 1 && b[i] == '0') {
            out[0] = 0;
            return true;
        }
        boolean negative = false;
        if (b[i] == '-') {
            negative = true;
            if (++i == end) return false;
        }
        if (b[i] < '1' || b[i] > '9') return false;
        if (end - i <= 18) {
            // Eighteen digits cannot overflow: no bound to check per digit.
            long v = 0;
            for (; i < end; i++) {
                int d = b[i] - '0';
                if (d < 0 || d > 9) return false;
                v = v * 10 + d;
            }
            out[0] = negative ? -v : v;
            return true;
        }
        long v = 0; // accumulate negatively so Long.MIN_VALUE fits
        for (; i < end; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) return false;
            if (v < (Long.MIN_VALUE + d) / 10) return false;
            if (v * 10 < Long.MIN_VALUE + d) return false;
            v = v * 10 - d;
        }
        if (!negative) {
            if (v == Long.MIN_VALUE) return false;
            v = -v;
        }
        out[0] = v;
        return true;
    }

    /** Parses a long or returns {@code fallback} when {@code b} is not one. */
    public static long parseLongOr(byte[] b, long fallback) {
        long[] out = new long[1];
        return parseLong(b, out) ? out[0] : fallback;
    }

    public static boolean isLong(byte[] b) {
        return parseLong(b, new long[1]);
    }

    /**
     * Redis's string2d / strtod checks: no leading space, whole string consumed, not NaN.
     * Accepts "inf", "+inf", "-inf", "infinity" in any case like strtod.
     * Returns NaN when the input is not a valid double.
     */
    public static double parseDouble(byte[] b) {
        double d = strtod(b);
        // Redis also rejects what strtod flags ERANGE: overflow to infinity, underflow to zero.
        if (Double.isInfinite(d)) {
            for (byte c : b) if (c == 'n' || c == 'N') return d; // spelled "inf"/"infinity"
            return Double.NaN;
        }
        if (d == 0 && !isHex(b)) {
            for (byte c : b) {
                if (c == 'e' || c == 'E') break;
                if (c >= '1' && c <= '9') return Double.NaN;
            }
        }
        return d;
    }

    private static boolean isHex(byte[] b) {
        for (byte c : b) if (c == 'x' || c == 'X') return true;
        return false;
    }

    /**
     * Plain strtod with the whole-string check but without the ERANGE check: out-of-range input
     * gives infinity or zero (what zslParseRange accepts). NaN when not a valid double.
     */
    public static double strtod(byte[] b) {
        double fast = plainDecimal(b);
        if (!Double.isNaN(fast)) return fast;
        int n = b.length;
        if (n == 0 || n > 5000) return Double.NaN;
        if (isSpace(b[0]) || isSpace(b[n - 1])) return Double.NaN;
        String s = new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
        String lower = s.toLowerCase(java.util.Locale.ROOT);
        String unsigned = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        for (int i = 0; i < n; i++) {
            char c = lower.charAt(i);
            boolean ok = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == '-' || c == '+' || c == 'x'
                    || (c >= 'a' && c <= 'f') || c == 'p';
            if (!ok) return Double.NaN;
        }
        try {
            if (unsigned.startsWith("0x")) {
                // strtod accepts hex floats; Java needs a binary exponent to parse them.
                String hex = lower.contains("p") ? s : s + "p0";
                return Double.parseDouble(hex);
            }
            if (lower.indexOf('f') >= 0 || lower.indexOf('d') >= 0) return Double.NaN; // Java suffixes
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static final double[] POW10 = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    };

    /**
     * Scores like "12", "-3.25" or "0.5" without building a String: with at most 15 significant
     * digits the digits are exact in a double and one division by an exact power of ten is
     * correctly rounded, so this equals strtod. NaN when the text is of any other form.
     */
    private static double plainDecimal(byte[] b) {
        int n = b.length, i = 0;
        if (n == 0 || n > 24) return Double.NaN;
        boolean negative = b[0] == '-';
        if (negative || b[0] == '+') i++;
        long mantissa = 0;
        int digits = 0, fraction = -1;
        for (; i < n; i++) {
            int c = b[i];
            if (c == '.' && fraction < 0) {
                fraction = 0;
                continue;
            }
            if (c < '0' || c > '9') return Double.NaN;
            if (mantissa != 0 || c != '0') digits++;
            if (digits > 15) return Double.NaN;
            mantissa = mantissa * 10 + (c - '0');
            if (fraction >= 0) fraction++;
        }
        boolean anyDigit = n - (negative || b[0] == '+' ? 1 : 0) - (fraction >= 0 ? 1 : 0) > 0;
        if (!anyDigit || fraction > 22) return Double.NaN;
        double v = fraction > 0 ? mantissa / POW10[fraction] : mantissa;
        return negative ? -v : v;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** "00" to "99": digits are written two per division. */
    private static final byte[] DIGIT_PAIRS = new byte[200];
    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    /** Long.toString(v)'s bytes, written straight into them (no String on the way). */
    public static byte[] toBytes(long v) {
        byte[] b = new byte[decimalLength(v)];
        writeDecimal(b, b.length, v);
        return b;
    }

    /** How many bytes Long.toString(v) has, its sign included. */
    public static int decimalLength(long v) {
        if (v >= 0) return digitCount(v);
        return v == Long.MIN_VALUE ? MIN_LONG.length : 1 + digitCount(-v);
    }

    private static int digitCount(long v) {
        int n = 1;
        for (long limit = 10; n < 19 && v >= limit; limit *= 10) n++;
        return n;
    }

    /** Writes Long.toString(v)'s bytes to b, ending just before end; returns where they start. */
    public static int writeDecimal(byte[] b, int end, long v) {
        if (v >= 0) return writeDigits(b, end, v);
        if (v == Long.MIN_VALUE) {
            System.arraycopy(MIN_LONG, 0, b, end - MIN_LONG.length, MIN_LONG.length);
            return end - MIN_LONG.length;
        }
        int start = writeDigits(b, end, -v) - 1;
        b[start] = '-';
        return start;
    }

    /** Writes the digits of v (not negative) to b, ending just before end; returns where they start. */
    public static int writeDigits(byte[] b, int end, long v) {
        int i = end;
        while (v >= 100) {
            long q = v / 100;
            int pair = 2 * (int) (v - q * 100);
            b[--i] = DIGIT_PAIRS[pair + 1];
            b[--i] = DIGIT_PAIRS[pair];
            v = q;
        }
        if (v >= 10) {
            int pair = 2 * (int) v;
            b[--i] = DIGIT_PAIRS[pair + 1];
            b[--i] = DIGIT_PAIRS[pair];
        } else {
            b[--i] = (byte) ('0' + v);
        }
        return i;
    }
}
