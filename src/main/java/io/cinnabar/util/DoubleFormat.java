package io.cinnabar.util;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * C printf's {@code %.17g}, which Redis 7.0 uses for most doubles it replies with, and the other
 * formats some replies use ("%.17Lf" trimmed, "%f").
 */
public final class DoubleFormat {
    private static final MathContext SEVENTEEN = new MathContext(17, RoundingMode.HALF_EVEN);

    private DoubleFormat() {}

    /** As Redis's addReplyDouble: "inf", "-inf", else %.17g. */
    public static String reply(double d) {
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        return g17(d);
    }

    /**
     * Redis's d2string, the text a listpack keeps of a sorted set's score (and ZSCAN of a small
     * set replies with): whole numbers within 2^62 either side as integers, the rest as %.17g.
     */
    public static String d2string(double d) {
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        if (Math.abs(d) <= 0x1p62 && d == Math.rint(d)) return Long.toString((long) d);
        return g17(d);
    }

    /** C's %.17g: "inf", "-inf" and "nan" as glibc prints them. */
    public static String g17(double d) {
        if (Double.isNaN(d)) return "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        // Integral values below 2^53 print exactly as their digits under %.17g (sorted set scores).
        if (Math.abs(d) < 0x1p53 && d == Math.rint(d)) return Long.toString((long) d);
        BigDecimal rounded = new BigDecimal(d).round(SEVENTEEN);
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 17) {
            String digits = rounded.unscaledValue().abs().toString();
            digits = stripZeros(digits.length() > 1 ? digits.charAt(0) + "." + digits.substring(1) : digits);
            StringBuilder sb = new StringBuilder(24);
            if (d < 0) sb.append('-');
            sb.append(digits).append('e').append(exponent < 0 ? '-' : '+');
            int e = Math.abs(exponent);
            if (e < 10) sb.append('0');
            return sb.append(e).toString();
        }
        return stripZeros(rounded.toPlainString());
    }

    /** Redis's addReplyHumanLongDouble text for a double (GEOPOS): see {@link #human(BigDecimal, boolean)}. */
    public static String human(double d) {
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        String quick = quickHuman(d);
        if (quick != null) return quick;
        return human(new BigDecimal(d), d < 0 || (d == 0 && 1 / d < 0));
    }

    /** 10^17 and 5^17: "%.17Lf" scales the fraction by the first, 2^17 of it a shift. */
    private static final long TEN_17 = 100_000_000_000_000_000L, FIVE_17 = 762_939_453_125L;

    /** human(double) in long arithmetic for |d| below 2^62, null beyond. */
    private static String quickHuman(double d) {
        double magnitude = Math.abs(d);
        if (!(magnitude < 0x1p62)) return null;
        long whole = (long) magnitude;
        double fraction = magnitude - whole; // exact
        if (fraction == 0) return human(d < 0, whole, 0, 0);
        long bits = Double.doubleToRawLongBits(fraction);
        int exponent = (int) (bits >>> 52);
        long mantissa = bits & 0xF_FFFF_FFFF_FFFFL;
        if (exponent == 0) exponent = 1; else mantissa |= 1L << 52;
        return human(d < 0, whole, mantissa, 1075 - exponent); // fraction = mantissa * 2^-(1075 - exponent)
    }

    /**
     * {@link #human(BigDecimal, boolean)} of whole + fraction * 2^-fractionBits, in long
     * arithmetic: whole below 2^63, fraction below 2^fractionBits read unsigned. The 17 decimals
     * are fraction * 5^17 (a 128-bit product) shifted right by fractionBits - 17, rounded half to
     * even on the bits shifted out. GEOPOS spent a third of its time in BigDecimal here.
     */
    static String human(boolean negative, long whole, long fraction, int fractionBits) {
        long decimals = 0;
        if (fraction != 0) {
            // fraction * 2^-fractionBits * 10^17 = fraction * 5^17 * 2^(17 - fractionBits), unsigned.
            long hi = Math.multiplyHigh(fraction, FIVE_17) + ((fraction >> 63) & FIVE_17), lo = fraction * FIVE_17;
            int shift = fractionBits - 17;
            if (shift <= 0) {
                decimals = lo << -shift; // at most 17 binary places: exact
            } else if (shift >= 128) {
                decimals = 0; // below 2^-111: rounds to 0
            } else {
                decimals = shiftRoundHalfEven(hi, lo, shift);
            }
            if (decimals == TEN_17) {
                whole++;
                decimals = 0;
            }
        }
        StringBuilder sb = new StringBuilder(40);
        if (negative && (whole != 0 || decimals != 0)) sb.append('-');
        sb.append(whole);
        if (decimals != 0) {
            String digits = Long.toString(decimals);
            sb.append('.');
            for (int pad = 17 - digits.length(); pad > 0; pad--) sb.append('0');
            int end = digits.length();
            while (digits.charAt(end - 1) == '0') end--;
            sb.append(digits, 0, end);
        }
        return sb.toString();
    }

    /** The 128-bit (hi, lo) shifted right by 0 < shift < 128, rounded half to even (the result fits a long). */
    private static long shiftRoundHalfEven(long hi, long lo, int shift) {
        long q, rest, half;
        boolean restAboveHalf, restIsHalf;
        if (shift < 64) {
            q = (hi << (64 - shift)) | (lo >>> shift);
            rest = lo & ((1L << shift) - 1);
            half = 1L << (shift - 1);
            restAboveHalf = Long.compareUnsigned(rest, half) > 0;
            restIsHalf = rest == half;
        } else if (shift == 64) {
            q = hi;
            restAboveHalf = Long.compareUnsigned(lo, 1L << 63) > 0;
            restIsHalf = lo == 1L << 63;
        } else {
            int s = shift - 64;
            q = hi >>> s;
            long restHi = s == 0 ? 0 : hi & ((1L << s) - 1);
            long halfHi = 1L << (s - 1);
            restAboveHalf = Long.compareUnsigned(restHi, halfHi) > 0 || (restHi == halfHi && lo != 0);
            restIsHalf = restHi == halfHi && lo == 0;
        }
        if (restAboveHalf || (restIsHalf && (q & 1) == 1)) q++;
        return q;
    }

    /**
     * Redis's ld2string in LD_STR_HUMAN mode for an exact finite value: "%.17Lf" (glibc rounds the
     * exact value, ties to even), trailing zeros after the point removed, then the point if
     * nothing follows it, and "-0" turned into "0".
     */
    public static String human(BigDecimal exact, boolean negative) {
        String s = exact.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        if (negative && s.charAt(0) != '-') s = "-" + s; // -0 keeps its sign in printf
        s = stripZeros(s);
        return s.equals("-0") ? "0" : s;
    }

    /** Powers of ten a double holds exactly, for {@link #fixed}'s quick path. */
    private static final long[] TENS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000};
    /** Below this scaled magnitude a product's rounding error stays under {@link #TIE_MARGIN}. */
    private static final double QUICK_LIMIT = 0x1p31;
    private static final double TIE_MARGIN = 1e-6;

    /** C's "%.{digits}f" (glibc: the exact binary value rounded, ties to even; "inf", "-0.000000"). */
    public static String fixed(double d, int digits) {
        if (Double.isNaN(d)) return d < 0 ? "-nan" : "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        boolean negative = d < 0 || (d == 0 && 1 / d < 0);
        String quick = quickFixed(Math.abs(d), digits, negative);
        if (quick != null) return quick;
        String s = new BigDecimal(d).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
        return negative && s.charAt(0) != '-' ? "-" + s : s;
    }

    /**
     * fixed() with long arithmetic, or null where the scaled value is large or lies so near a
     * tie that the multiplication's rounding could decide it (BigDecimal then rounds the exact
     * value). INFO prints about twenty such numbers; Formatter or BigDecimal for each were a tenth
     * of its CPU, and far more while the JIT had not compiled them yet.
     */
    private static String quickFixed(double magnitude, int digits, boolean negative) {
        if (digits >= TENS.length) return null;
        double scaled = magnitude * TENS[digits];
        if (!(scaled < QUICK_LIMIT)) return null;
        long whole = (long) scaled;
        double rest = scaled - whole;
        if (Math.abs(rest - 0.5) <= TIE_MARGIN) return null;
        if (rest > 0.5) whole++;
        StringBuilder sb = new StringBuilder(24);
        if (negative) sb.append('-');
        sb.append(whole / TENS[digits]);
        if (digits == 0) return sb.toString();
        sb.append('.');
        String fraction = Long.toString(whole % TENS[digits]);
        for (int pad = digits - fraction.length(); pad > 0; pad--) sb.append('0');
        return sb.append(fraction).toString();
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) return s;
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        return s.substring(0, end);
    }
}
