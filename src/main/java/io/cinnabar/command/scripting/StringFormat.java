package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Lua 5.1's string.format, which is C's printf per directive: luaj ignores the precision of %f
 * and %e ("%5.2f" of 3.14159 gives 3.14159) and prints numbers for %s in Java's format.
 */
final class StringFormat {
    private StringFormat() {}

    static LuaValue format(Varargs a) {
        LuaString fmt = a.checkstring(1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 1;
        int n = fmt.length();
        for (int i = 0; i < n; i++) {
            int c = fmt.luaByte(i);
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (++i >= n) throw new LuaError("invalid option '%' to 'format'");
            if (fmt.luaByte(i) == '%') {
                out.write('%');
                continue;
            }
            int start = i;
            while (i < n && "-+ #0".indexOf(fmt.luaByte(i)) >= 0) i++;
            while (i < n && Character.isDigit(fmt.luaByte(i))) i++;
            if (i < n && fmt.luaByte(i) == '.') {
                i++;
                while (i < n && Character.isDigit(fmt.luaByte(i))) i++;
            }
            if (i >= n) throw new LuaError("invalid option '%' to 'format'");
            String spec = new String(fmt.m_bytes, fmt.m_offset + start, i - start, StandardCharsets.ISO_8859_1);
            char conv = (char) fmt.luaByte(i);
            arg++;
            if (arg > a.narg() && conv != '%') throw new LuaError("bad argument #" + arg + " to 'format' (no value)");
            LuaValue v = a.arg(arg);
            String piece = switch (conv) {
                case 'd', 'i' -> String.format(Locale.ROOT, "%" + spec + "d", CFormat.toLong(number(v, arg)));
                case 'u' -> String.format(Locale.ROOT, "%" + spec + "d", CFormat.toLong(number(v, arg)));
                case 'c' -> String.valueOf((char) (CFormat.toLong(number(v, arg)) & 0xff));
                case 'x', 'X', 'o' -> String.format(Locale.ROOT, "%" + spec.replace("+", "").replace(" ", "") + conv, CFormat.toLong(number(v, arg)));
                case 'e', 'E', 'f' -> String.format(Locale.ROOT, "%" + spec + conv, number(v, arg));
                case 'g', 'G' -> general(spec, number(v, arg), conv == 'G');
                case 'q' -> quoted(v.checkstring());
                case 's' -> pad(spec, v.type() == LuaValue.TNUMBER ? CFormat.g(v.todouble(), 14) : v.tojstring());
                default -> throw new LuaError("invalid option '%" + conv + "' to 'format'");
            };
            out.writeBytes(piece.getBytes(conv == 's' || conv == 'q' || conv == 'c' ? StandardCharsets.ISO_8859_1 : StandardCharsets.US_ASCII));
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    private static double number(LuaValue v, int arg) {
        LuaValue n = CNumber.tonumber(v);
        if (n.isnil()) throw new LuaError("bad argument #" + arg + " to 'format' (number expected, got " + v.typename() + ")");
        return n.todouble();
    }

    /** %g: C's shortest of %e and %f with trailing zeros removed (unless '#'). */
    private static String general(String spec, double d, boolean upper) {
        int dot = spec.indexOf('.');
        int precision = dot < 0 ? 6 : (dot + 1 == spec.length() ? 0 : Integer.parseInt(spec.substring(dot + 1)));
        String body = CFormat.g(d, Math.max(precision, 1));
        if (upper) body = body.toUpperCase(Locale.ROOT);
        String flags = dot < 0 ? spec : spec.substring(0, dot);
        if (d >= 0 && flags.contains("+")) body = "+" + body;
        else if (d >= 0 && flags.contains(" ")) body = " " + body;
        return pad(flags.replace("+", "").replace(" ", ""), body);
    }

    /** Width and '-' of a %s directive; a precision cuts the string. */
    private static String pad(String spec, String s) {
        int dot = spec.indexOf('.');
        if (dot >= 0) {
            int precision = dot + 1 == spec.length() ? 0 : Integer.parseInt(spec.substring(dot + 1));
            if (s.length() > precision) s = s.substring(0, precision);
            spec = spec.substring(0, dot);
        }
        boolean left = spec.contains("-");
        boolean zero = spec.contains("0") && !left && spec.replace("-", "").startsWith("0");
        String digits = spec.replaceAll("[-+ #]", "");
        if (zero) digits = digits.substring(1);
        int width = digits.isEmpty() ? 0 : Integer.parseInt(digits);
        StringBuilder b = new StringBuilder(s);
        while (b.length() < width) {
            if (left) b.append(' '); else b.insert(0, zero ? '0' : ' ');
        }
        return b.toString();
    }

    /** %q: a string Lua can read back. */
    private static String quoted(LuaString s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            int c = s.luaByte(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\\n");
                case '\r' -> b.append("\\r");
                case 0 -> b.append("\\000");
                default -> b.append((char) c);
            }
        }
        return b.append('"').toString();
    }
}
