package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * Roberto Ierusalimschy's struct library ("struct") Redis bundles: pack, unpack and size with
 * formats of < > ! (endianness, alignment), b B h H l L T i I[n] x f d s c[n].
 */
final class StructLib {
    private StructLib() {}

    static LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("pack", fn(StructLib::pack));
        t.rawset("unpack", fn(StructLib::unpack));
        t.rawset("size", fn(StructLib::size));
        return t;
    }

    /** Walks a format string; little-endian by default as on the machines Redis runs on. */
    private static final class Format {
        final String f;
        int i;
        boolean little = true;
        int align = 1;

        Format(String f) {
            this.f = f;
        }

        boolean more() {
            return i < f.length();
        }

        int number(int dflt) {
            if (i >= f.length() || !Character.isDigit(f.charAt(i))) return dflt;
            int n = 0;
            while (i < f.length() && Character.isDigit(f.charAt(i))) n = n * 10 + (f.charAt(i++) - '0');
            return n;
        }

        /** Size of option c (reading its count), -1 for options without a fixed size. */
        int size(char c) {
            switch (c) {
                case 'b', 'B', 'x': return 1;
                case 'h', 'H': return 2;
                case 'l', 'L', 'T', 'd': return 8;
                case 'f': return 4;
                case 'i', 'I': {
                    int n = number(4);
                    if (n < 1 || n > 8) throw new LuaError("integral size " + n + " is larger than limit of 8");
                    return n;
                }
                case 'c': return number(1);
                default: return 0;
            }
        }

        /** Handles the control characters; true if c was one. */
        boolean control(char c) {
            switch (c) {
                case ' ' -> { }
                case '<' -> little = true;
                case '>' -> little = false;
                case '=' -> little = true;
                case '!' -> align = number(8);
                default -> { return false; }
            }
            return true;
        }

        int padding(int size, int total) {
            int a = Math.min(size, align);
            if (a <= 1 || (a & (a - 1)) != 0) return 0;
            return (a - (total & (a - 1))) & (a - 1);
        }
    }

    private static Varargs pack(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "pack").tojstring());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            if (fmt.control(c)) continue;
            int size = fmt.size(c);
            int pad = (c == 'c' || c == 's' || c == 'x') ? 0 : fmt.padding(size, out.size());
            for (int k = 0; k < pad; k++) out.write(0);
            switch (c) {
                case 'x' -> out.write(0);
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> {
                    long v = (long) ArgumentErrors.number(a.arg(arg), arg++, "pack");
                    write(out, v, size, fmt.little);
                }
                case 'f' -> write(out, Float.floatToIntBits((float) ArgumentErrors.number(a.arg(arg), arg++, "pack")), 4, fmt.little);
                case 'd' -> write(out, Double.doubleToLongBits(ArgumentErrors.number(a.arg(arg), arg++, "pack")), 8, fmt.little);
                case 'c', 's' -> {
                    byte[] s = LuaToReply.bytes(ArgumentErrors.string(a.arg(arg), arg++, "pack"));
                    int n = c == 's' ? s.length : (size == 0 ? s.length : size);
                    if (s.length < n && c == 'c') throw new LuaError("bad argument #" + (arg - 1) + " to 'pack' (string too short)");
                    out.write(s, 0, Math.min(n, s.length));
                    if (c == 's') out.write(0);
                }
                default -> throw new LuaError("invalid format option '" + c + "'");
            }
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    private static void write(ByteArrayOutputStream out, long v, int size, boolean little) {
        for (int k = 0; k < size; k++) {
            int shift = little ? k : size - 1 - k;
            out.write(shift < 8 ? (int) (v >>> (8 * shift)) & 0xff : (v < 0 ? 0xff : 0));
        }
    }

    private static long read(byte[] b, int pos, int size, boolean little, boolean signed) {
        long v = 0;
        for (int k = 0; k < size; k++) {
            int idx = little ? pos + size - 1 - k : pos + k;
            v = (v << 8) | (b[idx] & 0xff);
        }
        if (signed && size < 8) {
            int bits = 64 - 8 * size;
            v = (v << bits) >> bits;
        }
        return v;
    }

    private static Varargs unpack(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "unpack").tojstring());
        byte[] b = LuaToReply.bytes(ArgumentErrors.string(a, 2, "unpack"));
        int pos = a.optint(3, 1) - 1;
        if (pos < 0) throw new LuaError("bad argument #3 to 'unpack' (offset must be 1 or greater)");
        List<LuaValue> out = new ArrayList<>();
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            if (fmt.control(c)) continue;
            int size = fmt.size(c);
            pos += (c == 'c' || c == 's' || c == 'x') ? 0 : fmt.padding(size, pos);
            if (c != 's' && pos + size > b.length) throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
            switch (c) {
                case 'x' -> pos++;
                case 'b', 'h', 'l', 'i' -> out.add(LuaValue.valueOf((double) read(b, pos, size, fmt.little, true)));
                case 'B', 'H', 'L', 'T', 'I' -> out.add(LuaValue.valueOf((double) read(b, pos, size, fmt.little, false)));
                case 'f' -> out.add(LuaValue.valueOf(Float.intBitsToFloat((int) read(b, pos, 4, fmt.little, false))));
                case 'd' -> out.add(LuaValue.valueOf(Double.longBitsToDouble(read(b, pos, 8, fmt.little, false))));
                case 'c' -> {
                    int n = size;
                    if (n == 0) {
                        if (out.isEmpty()) throw new LuaError("format 'c0' needs a previous size");
                        n = (int) out.remove(out.size() - 1).todouble();
                        if (pos + n > b.length) throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
                    }
                    out.add(LuaValue.valueOf(java.util.Arrays.copyOfRange(b, pos, pos + n)));
                    size = n;
                }
                case 's' -> {
                    int end = pos;
                    while (end < b.length && b[end] != 0) end++;
                    if (end >= b.length) throw new LuaError("bad argument #2 to 'unpack' (unfinished string in data)");
                    out.add(LuaValue.valueOf(java.util.Arrays.copyOfRange(b, pos, end)));
                    size = end - pos + 1;
                }
                default -> throw new LuaError("invalid format option '" + c + "'");
            }
            if (c != 'x') pos += size;
        }
        out.add(LuaValue.valueOf(pos + 1));
        return LuaValue.varargsOf(out.toArray(new LuaValue[0]));
    }

    private static Varargs size(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "size").tojstring());
        int total = 0;
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            if (fmt.control(c)) continue;
            if (c == 's') throw new LuaError("bad argument #1 to 'size' (options 's' has no fixed size)");
            int size = fmt.size(c);
            if (c == 'c' && size == 0) throw new LuaError("bad argument #1 to 'size' (options 'c0' has no fixed size)");
            total += fmt.padding(size, total) + size;
        }
        return LuaValue.valueOf(total);
    }
}
