package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;

import java.math.BigInteger;

/**
 * Text to number as Lua 5.1 reads it (luaO_str2d, tonumber with a base): through C's strtod and
 * strtoul, which take leading spaces, a sign, "inf", "nan", hexadecimal ("0x10", "0x1p4") and
 * out-of-range values that luaj's reader refuses or reads otherwise.
 */
final class CNumber {
    private CNumber() {}

    /** luaO_str2d: the whole text as a number (trailing spaces allowed), or null. */
    static Double str2d(LuaString s) {
        String text = cString(s);
        int[] end = new int[1];
        double d = strtod(text, end);
        if (end[0] == 0) return null;
        if (end[0] < text.length() && (text.charAt(end[0]) == 'x' || text.charAt(end[0]) == 'X')) {
            d = strtoul(text, 16, end);
        }
        return onlySpacesFrom(text, end[0]) ? d : null;
    }

    /**
     * A number, or a string Lua 5.1 reads as one (lua_tonumber), else nil. luaj's own reader
     * fails with an ArrayIndexOutOfBoundsException on text ending in "0x".
     */
    static LuaValue tonumber(LuaValue v) {
        if (v.type() == LuaValue.TNUMBER) return v;
        if (v.type() != LuaValue.TSTRING) return LuaValue.NIL;
        Double d = str2d(v.checkstring());
        return d == null ? LuaValue.NIL : LuaValue.valueOf(d);
    }

    /** tonumber(s, base) for a base other than 10: strtoul's reading of the whole text, or null. */
    static Double withBase(LuaString s, int base) {
        String text = cString(s);
        int[] end = new int[1];
        double d = strtoul(text, base, end);
        return end[0] > 0 && onlySpacesFrom(text, end[0]) ? d : null;
    }

    /** The text up to its first NUL, which is where C stops reading it. */
    private static String cString(LuaString s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            int c = s.luaByte(i);
            if (c == 0) break;
            b.append((char) c);
        }
        return b.toString();
    }

    private static boolean onlySpacesFrom(String s, int i) {
        while (i < s.length() && isSpace(s.charAt(i))) i++;
        return i == s.length();
    }

    private static boolean isSpace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /** C's strtod: the number at the start of s; end[0] is where reading stopped (0: no number). */
    static double strtod(String s, int[] end) {
        int i = 0, n = s.length();
        while (i < n && isSpace(s.charAt(i))) i++;
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
        end[0] = 0;
        double d;
        if (s.regionMatches(true, i, "inf", 0, 3)) {
            end[0] = i + (s.regionMatches(true, i, "infinity", 0, 8) ? 8 : 3);
            d = Double.POSITIVE_INFINITY;
        } else if (s.regionMatches(true, i, "nan", 0, 3)) {
            int j = i + 3;
            if (j < n && s.charAt(j) == '(') {
                int k = j + 1;
                while (k < n && (Character.isLetterOrDigit(s.charAt(k)) || s.charAt(k) == '_')) k++;
                if (k < n && s.charAt(k) == ')') j = k + 1;
            }
            end[0] = j;
            d = Double.NaN;
        } else if (i + 1 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X') && digitsEnd(s, i + 2, 16, 'p') >= 0) {
            end[0] = digitsEnd(s, i + 2, 16, 'p');
            d = hexFloat(s.substring(i + 2, end[0]));
        } else {
            int j = digitsEnd(s, i, 10, 'e');
            if (j < 0) return 0;
            end[0] = j;
            d = Double.parseDouble(s.substring(i, j));
        }
        return negative ? -d : d;
    }

    /**
     * Where the digits of a number starting at i end: digits in radix with an optional point,
     * then an optional exponent (the letter exp, a sign, decimal digits); -1 without a digit.
     */
    private static int digitsEnd(String s, int i, int radix, char exp) {
        int j = i, n = s.length(), digits = 0;
        while (j < n && Character.digit(s.charAt(j), radix) >= 0) { j++; digits++; }
        if (j < n && s.charAt(j) == '.') {
            j++;
            while (j < n && Character.digit(s.charAt(j), radix) >= 0) { j++; digits++; }
        }
        if (digits == 0) return -1;
        if (j < n && Character.toLowerCase(s.charAt(j)) == exp) {
            int k = j + 1;
            if (k < n && (s.charAt(k) == '+' || s.charAt(k) == '-')) k++;
            if (k < n && Character.isDigit(s.charAt(k))) {
                while (k < n && Character.isDigit(s.charAt(k))) k++;
                j = k;
            }
        }
        return j;
    }

    private static double hexFloat(String body) {
        String b = body.indexOf('p') < 0 && body.indexOf('P') < 0 ? body + "p0" : body;
        if (b.charAt(0) == '.') b = "0" + b;
        return Double.parseDouble("0x" + b);
    }

    private static final BigInteger ULONG_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /**
     * C's strtoul as a double (what Lua 5.1 makes of it): leading spaces, a sign (a negative
     * value wraps around), "0x" in base 16, ULONG_MAX past the range; end[0] as for strtod.
     */
    static double strtoul(String s, int base, int[] end) {
        int i = 0, n = s.length();
        end[0] = 0;
        while (i < n && isSpace(s.charAt(i))) i++;
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
        if (base == 16 && i + 2 < n && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')
                && Character.digit(s.charAt(i + 2), 16) >= 0) {
            i += 2;
        }
        int j = i;
        while (j < n && Character.digit(s.charAt(j), base) >= 0) j++;
        if (j == i) return 0;
        end[0] = j;
        BigInteger v = new BigInteger(s.substring(i, j), base);
        if (v.compareTo(ULONG_MAX) > 0) return ULONG_MAX.doubleValue();
        if (negative) v = BigInteger.ONE.shiftLeft(64).subtract(v).and(ULONG_MAX);
        return v.doubleValue();
    }
    /** C's atoi, as glibc's (int) strtol: leading spaces, a sign, digits; a long past its range saturates, then is cut to an int. */
    static int atoi(String s) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        return atoi(b, 0, b.length);
    }

    static int atoi(byte[] b, int from, int to) {
        int i = from;
        while (i < to && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r'))) i++;
        boolean negative = i < to && b[i] == '-';
        if (i < to && (b[i] == '-' || b[i] == '+')) i++;
        long v = 0;
        for (; i < to && b[i] >= '0' && b[i] <= '9'; i++) {
            int d = b[i] - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                v = negative ? Long.MIN_VALUE : Long.MAX_VALUE;
                return (int) v;
            }
            v = v * 10 + d;
        }
        return (int) (negative ? -v : v);
    }

    /** Redis's string2l: the canonical text of a long, else null. */
    static Long strictLong(String s) {
        long[] out = new long[1];
        return io.cinnabar.util.Numbers.parseLong(s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), out) ? out[0] : null;
    }
}
