package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Lua 5.1's string.format: its scan of each directive (at most five flags, two digits of width
 * and of precision), then C's printf for the directive, as glibc prints: doubles rounded from
 * their exact binary value, ties to even ("%.2f" of 1.005 is 1.00, of 0.125 0.12), inf and nan
 * in C's words, integers cut as x86-64 casts doubles (LLONG_MIN out of range; %o %u %x %X
 * unsigned). Java's Formatter rounds the shortest decimal half up and prints Infinity and NaN.
 */
final class StringFormat {
    private StringFormat() {}

    private static final String FLAGS = "-+ #0";

    static LuaValue format(Varargs a) {
        LuaString fmt = ArgumentErrors.string(a, 1, "format"); // a number as Lua 5.1 writes it: 0/0 is "-nan"
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 1;
        int n = fmt.length();
        for (int i = 0; i < n; i++) {
            int c = fmt.luaByte(i);
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (i + 1 < n && fmt.luaByte(i + 1) == '%') {
                out.write('%');
                i++;
                continue;
            }
            if (++arg > a.narg()) throw new LuaError("bad argument #" + arg + " to 'format' (no value)");
            Directive d = Directive.scan(fmt, i + 1);
            i = d.end;
            LuaValue v = a.arg(arg);
            byte[] piece = switch (d.conversion) {
                case 'd', 'i' -> ascii(d.integer(CFormat.toLong(number(v, arg)), false));
                case 'o', 'u', 'x', 'X' -> ascii(d.integer(CFormat.toUnsignedLong(number(v, arg)), true));
                case 'c' -> d.character(toInt(number(v, arg)));
                case 'e', 'E', 'f', 'g', 'G' -> ascii(d.floating(number(v, arg)));
                case 'q' -> quoted(string(v, arg));
                case 's' -> d.string(string(v, arg));
                default -> throw new LuaError("invalid option '%" + (d.conversion < 0 ? "" : String.valueOf((char) d.conversion))
                        + "' to 'format'");
            };
            out.writeBytes(piece);
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    /** One directive after its '%': flags, width, precision (-1 when none) and conversion (-1 at the end). */
    private record Directive(String flags, int width, int precision, int conversion, int end) {
        static Directive scan(LuaString fmt, int start) {
            int n = fmt.length();
            int p = start;
            while (p < n && FLAGS.indexOf(fmt.luaByte(p)) >= 0) p++;
            if (p - start > FLAGS.length()) throw new LuaError("invalid format (repeated flags)");
            String flags = new String(fmt.m_bytes, fmt.m_offset + start, p - start, StandardCharsets.ISO_8859_1);
            int width = 0;
            for (int k = 0; k < 2 && p < n && isDigit(fmt.luaByte(p)); k++, p++) width = width * 10 + fmt.luaByte(p) - '0';
            int precision = -1;
            if (p < n && fmt.luaByte(p) == '.') {
                p++;
                precision = 0;
                for (int k = 0; k < 2 && p < n && isDigit(fmt.luaByte(p)); k++, p++) precision = precision * 10 + fmt.luaByte(p) - '0';
            }
            if (p < n && isDigit(fmt.luaByte(p))) throw new LuaError("invalid format (width or precision too long)");
            return new Directive(flags, width, precision, p < n ? fmt.luaByte(p) : -1, p);
        }

        boolean has(char flag) {
            return flags.indexOf(flag) >= 0;
        }

        /** %d %i (signed) and %o %u %x %X (unsigned): digits, precision as the fewest digits, '#' prefixes. */
        String integer(long v, boolean unsigned) {
            boolean negative = !unsigned && v < 0;
            String digits = switch (conversion) {
                case 'o' -> Long.toOctalString(v);
                case 'x' -> Long.toHexString(v);
                case 'X' -> Long.toHexString(v).toUpperCase(Locale.ROOT);
                case 'u' -> Long.toUnsignedString(v);
                default -> negative ? Long.toUnsignedString(-v) : Long.toString(v);
            };
            if (precision == 0 && v == 0) digits = "";
            StringBuilder b = new StringBuilder();
            for (int k = digits.length(); k < precision; k++) b.append('0');
            b.append(digits);
            String prefix = negative ? "-" : unsigned ? "" : has('+') ? "+" : has(' ') ? " " : "";
            if (has('#') && conversion == 'o' && (b.length() == 0 || b.charAt(0) != '0')) b.insert(0, '0');
            if (has('#') && v != 0 && (conversion == 'x' || conversion == 'X')) prefix = conversion == 'x' ? "0x" : "0X";
            return pad(prefix, b.toString(), precision < 0);
        }

        /** %c: the byte, padded; C's printf writes a NUL that Lua's strlen then cuts, with all after it. */
        byte[] character(int v) {
            String s = pad("", String.valueOf((char) (v & 0xff)), false);
            int nul = s.indexOf('\0');
            return (nul < 0 ? s : s.substring(0, nul)).getBytes(StandardCharsets.ISO_8859_1);
        }

        /** %e %E %f %g %G. */
        String floating(double d) {
            boolean negative = Double.doubleToRawLongBits(d) < 0;
            boolean upper = conversion == 'E' || conversion == 'G';
            String sign = negative ? "-" : has('+') ? "+" : has(' ') ? " " : "";
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                // Padded with spaces even under '0', as glibc does.
                String body = Double.isNaN(d) ? "nan" : "inf";
                return pad(sign, upper ? body.toUpperCase(Locale.ROOT) : body, false);
            }
            int p = precision < 0 ? 6 : precision;
            BigDecimal exact = new BigDecimal(d).abs();
            String body = switch (conversion) {
                case 'f' -> fixed(exact, p, has('#'));
                case 'e', 'E' -> scientific(exact, p, has('#'), upper);
                default -> general(exact, p == 0 ? 1 : p, has('#'), upper);
            };
            return pad(sign, body, true);
        }

        /** %s: the whole string when it is 100 bytes or more and no precision is given, as Lua 5.1; else printf's %s, which stops at a NUL. */
        byte[] string(LuaString s) {
            byte[] bytes = new byte[s.length()];
            s.copyInto(0, bytes, 0, bytes.length);
            if (precision < 0 && bytes.length >= 100) return bytes;
            int len = 0;
            while (len < bytes.length && bytes[len] != 0) len++;
            if (precision >= 0) len = Math.min(len, precision);
            String text = new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            return pad("", text, false).getBytes(StandardCharsets.ISO_8859_1);
        }

        /** The width: spaces before (after with '-'), or zeros between the sign and the digits with '0'. */
        private String pad(String sign, String body, boolean zerosAllowed) {
            int fill = width - sign.length() - body.length();
            if (fill <= 0) return sign + body;
            if (has('-')) return sign + body + " ".repeat(fill);
            if (has('0') && zerosAllowed) return sign + "0".repeat(fill) + body;
            return " ".repeat(fill) + sign + body;
        }
    }

    private static String fixed(BigDecimal exact, int precision, boolean point) {
        String s = exact.setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        return point && precision == 0 ? s + "." : s;
    }

    private static String scientific(BigDecimal exact, int precision, boolean point, boolean upper) {
        int exponent = 0;
        BigDecimal mantissa = exact.setScale(precision, RoundingMode.HALF_EVEN);
        if (exact.signum() != 0) {
            exponent = exact.precision() - exact.scale() - 1;
            mantissa = exact.movePointLeft(exponent).setScale(precision, RoundingMode.HALF_EVEN);
            if (mantissa.compareTo(BigDecimal.TEN) >= 0) {
                exponent++;
                mantissa = exact.movePointLeft(exponent).setScale(precision, RoundingMode.HALF_EVEN);
            }
        }
        String digits = Integer.toString(Math.abs(exponent));
        return mantissa.toPlainString() + (point && precision == 0 ? "." : "") + (upper ? "E" : "e")
                + (exponent < 0 ? "-" : "+") + (digits.length() < 2 ? "0" : "") + digits;
    }

    /** %g: %e when the exponent X of the value rounded to P digits is below -4 or at least P, else %f with P-1-X decimals; trailing zeros dropped unless '#'. */
    private static String general(BigDecimal exact, int precision, boolean point, boolean upper) {
        String e = scientific(exact, precision - 1, true, false);
        int exponent = Integer.parseInt(e.substring(e.indexOf('e') + 1));
        String s = exponent < -4 || exponent >= precision
                ? scientific(exact, precision - 1, point, false)
                : fixed(exact, precision - 1 - exponent, point);
        if (!point) {
            int at = s.indexOf('e');
            String mantissa = at < 0 ? s : s.substring(0, at);
            if (mantissa.indexOf('.') >= 0) {
                mantissa = mantissa.replaceAll("0+$", "");
                if (mantissa.endsWith(".")) mantissa = mantissa.substring(0, mantissa.length() - 1);
            }
            s = mantissa + (at < 0 ? "" : s.substring(at));
        }
        return upper ? s.toUpperCase(Locale.ROOT) : s;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** C's (int) cast of a double on x86-64: INT_MIN for NaN and out of range. */
    private static int toInt(double d) {
        return d != d || d >= 0x1p31 || d < -0x1p31 ? Integer.MIN_VALUE : (int) d;
    }

    private static double number(LuaValue v, int arg) {
        LuaValue n = CNumber.tonumber(v);
        if (n.isnil()) throw new LuaError("bad argument #" + arg + " to 'format' (number expected, got " + v.typename() + ")");
        return n.todouble();
    }

    /** luaL_checklstring: a string, or a number written as "%.14g". */
    private static LuaString string(LuaValue v, int arg) {
        if (v.type() == LuaValue.TNUMBER) return LuaValue.valueOf(CFormat.g(v.todouble(), 14));
        if (v.type() != LuaValue.TSTRING) {
            throw new LuaError("bad argument #" + arg + " to 'format' (string expected, got " + v.typename() + ")");
        }
        return v.checkstring();
    }

    /** %q: a string Lua can read back. */
    private static byte[] quoted(LuaString s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write('"');
        for (int i = 0; i < s.length(); i++) {
            int c = s.luaByte(i);
            switch (c) {
                case '"', '\\', '\n' -> {
                    b.write('\\');
                    b.write(c);
                }
                case '\r' -> b.writeBytes(ascii("\\r"));
                case 0 -> b.writeBytes(ascii("\\000"));
                default -> b.write(c);
            }
        }
        b.write('"');
        return b.toByteArray();
    }
}
