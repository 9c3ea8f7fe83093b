package io.cinnabar.command.scripting;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** C's printf "%.Ng" for doubles, which Redis's Lua uses where Java's formats differ. */
final class CFormat {
    private CFormat() {}

    /**
     * C's (long long) cast of a double as x86-64 does it: NaN and values out of range become
     * LLONG_MIN (Java's cast gives 0 and saturates instead). Redis's replies of Lua numbers and
     * string.format's %d go through it.
     */
    static long toLong(double d) {
        return d != d || d >= 0x1p63 || d < -0x1p63 ? Long.MIN_VALUE : (long) d;
    }

    /**
     * C's (unsigned long long) cast of a double as gcc compiles it for x86-64: from 2^63 on, the
     * signed conversion of d - 2^63 with the top bit put back (2^64 and inf give 0); below, NaN
     * included, the signed one ({@link #toLong}). string.format's %o %u %x %X and struct.pack's
     * integers go through it.
     */
    static long toUnsignedLong(double d) {
        return d >= 0x1p63 ? toLong(d - 0x1p63) ^ Long.MIN_VALUE : toLong(d);
    }

    static String g(double d, int precision) {
        if (Double.isNaN(d)) return d != d && Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        BigDecimal rounded = new BigDecimal(d).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            BigDecimal mantissa = rounded.movePointLeft(exponent);
            String m = strip(mantissa.toPlainString());
            String e = String.valueOf(Math.abs(exponent));
            return m + (exponent < 0 ? "e-" : "e+") + (e.length() < 2 ? "0" + e : e);
        }
        return strip(rounded.toPlainString());
    }

    private static String strip(String s) {
        if (s.indexOf('.') < 0) return s;
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        return s.substring(0, end);
    }
}
