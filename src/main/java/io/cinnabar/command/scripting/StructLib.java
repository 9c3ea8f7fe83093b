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
        final String function;
        int i;
        boolean little = true;
        int align = 1;

        Format(String f, String function) {
            this.f = f;
            this.function = function;
        }

        boolean more() {
            return i < f.length();
        }

        /** lua_struct's getnum: the digits at i, dflt when there are none. */
        int number(int dflt) {
            if (i >= f.length() || !digit(f.charAt(i))) return dflt;
            int n = 0;
            do {
                int d = f.charAt(i) - '0';
                if (n > Integer.MAX_VALUE / 10 || n * 10 > Integer.MAX_VALUE - d) throw new LuaError("integral size overflow");
                n = n * 10 + d;
                i++;
            } while (i < f.length() && digit(f.charAt(i)));
            return n;
        }

        private static boolean digit(char c) {
            return c >= '0' && c <= '9';
        }

        /** Size of option c (reading its count); 0 for s, the control characters and unknown options. */
        int size(char c) {
            switch (c) {
                case 'b', 'B', 'x': return 1;
                case 'h', 'H': return 2;
                case 'l', 'L', 'T', 'd': return 8;
                case 'f': return 4;
                case 'i', 'I': {
                    int n = number(4);
                    if (n > MAX_INT_SIZE) throw new LuaError("integral size " + n + " is larger than limit of " + MAX_INT_SIZE);
                    return n;
                }
                case 'c': return number(1);
                default: return 0;
            }
        }

        /** lua_struct's controloptions: the control characters, an argument error for anything else. */
        void control(char c) {
            switch (c) {
                case ' ' -> { }
                case '<' -> little = true;
                case '>' -> little = false;
                case '!' -> {
                    int a = number(8);
                    if (a <= 0 || (a & (a - 1)) != 0) throw new LuaError("alignment " + a + " is not a power of 2");
                    align = a;
                }
                default -> throw new LuaError("bad argument #1 to '" + function + "' (invalid format option '" + c + "')");
            }
        }

        /** lua_struct's gettoalign, sizes that are not powers of two included. */
        int padding(char c, int size, long total) {
            if (size == 0 || c == 'c') return 0;
            long a = Math.min(size, align);
            return (int) ((a - (total & (a - 1))) & (a - 1));
        }
    }

    /** lua_struct's MAXINTSIZE: i and I take up to 32 bytes, those past the eighth padding. */
    private static final int MAX_INT_SIZE = 32;

    private static Varargs pack(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "pack").tojstring(), "pack");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int arg = 2;
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            int size = fmt.size(c);
            int pad = fmt.padding(c, size, out.size());
            for (int k = 0; k < pad; k++) out.write(0);
            switch (c) {
                case 'x' -> out.write(0);
                // lua_struct's putinteger: the unsigned cast, the signed one's bits for a negative number.
                case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> write(out, CFormat.toUnsignedLong(ArgumentErrors.number(a.arg(arg), arg++, "pack")), size, fmt.little);
                case 'f' -> write(out, Float.floatToRawIntBits((float) ArgumentErrors.number(a.arg(arg), arg++, "pack")), 4, fmt.little);
                case 'd' -> write(out, Double.doubleToRawLongBits(ArgumentErrors.number(a.arg(arg), arg++, "pack")), 8, fmt.little);
                case 'c', 's' -> {
                    byte[] s = LuaToReply.bytes(ArgumentErrors.string(a.arg(arg), arg++, "pack"));
                    int n = size == 0 ? s.length : size;
                    // lua_struct names the argument after the string's (its counter has moved on).
                    if (s.length < n) throw new LuaError("bad argument #" + arg + " to 'pack' (string too short)");
                    out.write(s, 0, n);
                    if (c == 's') out.write(0);
                }
                default -> fmt.control(c);
            }
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    /** The value's bytes, the bytes past its eighth zero (lua_struct shifts a 64-bit integer). */
    private static void write(ByteArrayOutputStream out, long v, int size, boolean little) {
        for (int k = 0; k < size; k++) {
            int shift = little ? k : size - 1 - k;
            out.write(shift < 8 ? (int) (v >>> (8 * shift)) & 0xff : 0);
        }
    }

    /** lua_struct's getinteger: the last eight bytes read count; the sign as x86's shift masks its count. */
    private static long read(byte[] b, int pos, int size, boolean little, boolean signed) {
        long v = 0;
        for (int k = 0; k < size; k++) {
            int idx = little ? pos + size - 1 - k : pos + k;
            v = (v << 8) | (b[idx] & 0xff);
        }
        if (signed) {
            long mask = -1L << ((size * 8 - 1) & 63);
            if ((v & mask) != 0) v |= mask;
        }
        return v;
    }

    /** C's conversion of an unsigned 64-bit integer to double. */
    private static double unsigned(long v) {
        return v >= 0 ? (double) v : (double) ((v >>> 1) | (v & 1)) * 2.0;
    }

    private static Varargs unpack(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "unpack").tojstring(), "unpack");
        byte[] b = LuaToReply.bytes(ArgumentErrors.string(a, 2, "unpack"));
        long ld = b.length;
        // lua_struct keeps the offset in a size_t: a negative one is a huge one, past the data.
        long pos = ArgumentErrors.optInteger(a, 3, "unpack", 1);
        if (pos == 0) throw new LuaError("bad argument #3 to 'unpack' (offset must be 1 or greater)");
        pos--;
        List<LuaValue> out = new ArrayList<>();
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            long size = fmt.size(c);
            pos += fmt.padding(c, (int) size, pos);
            if (size > ld || pos < 0 || pos > ld - size) throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
            int p = (int) pos;
            switch (c) {
                case 'b', 'h', 'l', 'i' -> out.add(LuaValue.valueOf((double) read(b, p, (int) size, fmt.little, true)));
                case 'B', 'H', 'L', 'T', 'I' -> out.add(LuaValue.valueOf(unsigned(read(b, p, (int) size, fmt.little, false))));
                case 'x' -> { }
                case 'f' -> out.add(LuaValue.valueOf(Float.intBitsToFloat((int) read(b, p, 4, fmt.little, false))));
                case 'd' -> out.add(LuaValue.valueOf(Double.longBitsToDouble(read(b, p, 8, fmt.little, false))));
                case 'c' -> {
                    if (size == 0) {
                        LuaValue last = out.isEmpty() ? LuaValue.NIL : CNumber.tonumber(out.get(out.size() - 1));
                        if (last.isnil()) throw new LuaError("format 'c0' needs a previous size");
                        out.remove(out.size() - 1);
                        size = (long) last.todouble();
                        if (size < 0 || size > ld || pos > ld - size) throw new LuaError("bad argument #2 to 'unpack' (data string too short)");
                    }
                    out.add(LuaValue.valueOf(java.util.Arrays.copyOfRange(b, p, p + (int) size)));
                }
                case 's' -> {
                    int end = p;
                    while (end < b.length && b[end] != 0) end++;
                    if (end >= b.length) throw new LuaError("unfinished string in data");
                    out.add(LuaValue.valueOf(java.util.Arrays.copyOfRange(b, p, end)));
                    size = end - p + 1;
                }
                default -> fmt.control(c);
            }
            pos += size;
        }
        out.add(LuaValue.valueOf(pos + 1));
        return LuaValue.varargsOf(out.toArray(new LuaValue[0]));
    }

    private static Varargs size(Varargs a) {
        Format fmt = new Format(ArgumentErrors.string(a, 1, "size").tojstring(), "size");
        long total = 0;
        while (fmt.more()) {
            char c = fmt.f.charAt(fmt.i++);
            int size = fmt.size(c);
            total += fmt.padding(c, size, total);
            if (c == 's') throw new LuaError("bad argument #1 to 'size' (option 's' has no fixed size)");
            if (c == 'c' && size == 0) throw new LuaError("bad argument #1 to 'size' (option 'c0' has no fixed size)");
            // lua_struct's size skips letters and digits it does not know.
            if (!(c < 128 && Character.isLetterOrDigit(c))) fmt.control(c);
            total += size;
        }
        return LuaValue.valueOf(total);
    }
}
