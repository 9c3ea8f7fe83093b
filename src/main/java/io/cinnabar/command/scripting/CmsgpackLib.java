package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.scripting.RedisApi.fn;

/** The lua-cmsgpack library ("cmsgpack") Redis bundles: MessagePack with its type choices. */
final class CmsgpackLib {
    private CmsgpackLib() {}

    private static final int MAX_NESTING = 16;

    static LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("pack", fn(CmsgpackLib::pack));
        t.rawset("unpack", fn(a -> unpack(a, "unpack", 0, 0)));
        t.rawset("unpack_one", fn(a -> unpack(a, "unpack_one", 1, ArgumentErrors.optInteger(a, 2, "unpack_one", 0))));
        t.rawset("unpack_limit", fn(a -> {
            long limit = (long) ArgumentErrors.number(a, 2, "unpack_limit");
            return unpack(a, "unpack_limit", limit, ArgumentErrors.optInteger(a, 3, "unpack_limit", 0));
        }));
        t.rawset("_NAME", "cmsgpack");
        t.rawset("_VERSION", "lua-cmsgpack 0.4.0");
        return t;
    }

    private static Varargs pack(Varargs a) {
        // lua-cmsgpack raises it with luaL_argerror(L, 0, ...): Lua 5.1 words it as argument #0.
        if (a.narg() == 0) throw new LuaError("bad argument #0 to 'pack' (MessagePack pack needs input.)");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1; i <= a.narg(); i++) encode(a.arg(i), out, 0);
        return LuaValue.valueOf(out.toByteArray());
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int level) {
        switch (v.type()) {
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                int n = s.length();
                if (n < 32) out.write(0xa0 | n);
                else if (n <= 0xff) { out.write(0xd9); out.write(n); }
                else if (n <= 0xffff) { out.write(0xda); be(out, n, 2); }
                else { out.write(0xdb); be(out, n, 4); }
                out.writeBytes(LuaToReply.bytes(s));
            }
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TTABLE -> table(v, out, level + 1);
            default -> out.write(0xc0);
        }
    }

    private static void number(double d, ByteArrayOutputStream out) {
        long l = (long) d;
        // IS_INT64_EQUIVALENT: (int64_t) 2^63 is INT64_MIN on x86, not equal, so 2^63 is packed as a
        // float; Java's cast saturates to Long.MAX_VALUE, which compares equal to 2^63 as a double.
        if (l == d && d < 0x1p63 && !Double.isInfinite(d)) {
            integer(l, out);
        } else if ((float) d == d) {
            out.write(0xca);
            be(out, Float.floatToRawIntBits((float) d), 4);
        } else {
            out.write(0xcb);
            be(out, Double.doubleToRawLongBits(d), 8);
        }
    }

    private static void integer(long n, ByteArrayOutputStream out) {
        if (n >= 0) {
            if (n <= 127) out.write((int) n);
            else if (n <= 0xff) { out.write(0xcc); out.write((int) n); }
            else if (n <= 0xffff) { out.write(0xcd); be(out, n, 2); }
            else if (n <= 0xffffffffL) { out.write(0xce); be(out, n, 4); }
            else { out.write(0xcf); be(out, n, 8); }
        } else {
            if (n >= -32) out.write((int) (n & 0xff));
            else if (n >= -128) { out.write(0xd0); out.write((int) (n & 0xff)); }
            else if (n >= -32768) { out.write(0xd1); be(out, n, 2); }
            else if (n >= -2147483648L) { out.write(0xd2); be(out, n, 4); }
            else { out.write(0xd3); be(out, n, 8); }
        }
    }

    private static void table(LuaValue t, ByteArrayOutputStream out, int level) {
        if (level > MAX_NESTING) {
            out.write(0xc0);
            return;
        }
        int n = arrayLength(t);
        if (n >= 0) {
            header(out, n, 0x90, 0xdc, 0xdd);
            for (int i = 1; i <= n; i++) encode(t.rawget(i), out, level);
            return;
        }
        List<LuaValue> kv = new ArrayList<>();
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs e = t.next(k);
            if ((k = e.arg1()).isnil()) break;
            kv.add(k);
            kv.add(e.arg(2));
        }
        header(out, kv.size() / 2, 0x80, 0xde, 0xdf);
        for (LuaValue x : kv) encode(x, out, level);
    }

    /** lua-cmsgpack's table_is_an_array: keys exactly 1..n. */
    private static int arrayLength(LuaValue t) {
        int count = 0;
        long max = 0;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs e = t.next(k);
            if ((k = e.arg1()).isnil()) break;
            if (k.type() != LuaValue.TNUMBER) return -1;
            double d = k.todouble();
            if (d != Math.floor(d) || d < 1) return -1;
            max = Math.max(max, (long) d);
            count++;
        }
        return max == count ? count : -1;
    }

    private static void header(ByteArrayOutputStream out, int n, int fix, int b16, int b32) {
        if (n < 16) out.write(fix | n);
        else if (n <= 0xffff) { out.write(b16); be(out, n, 2); }
        else { out.write(b32); be(out, n, 4); }
    }

    private static void be(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) out.write((int) (v >>> (8 * i)) & 0xff);
    }

    /**
     * mp_unpack_full: every object from offset when both limit and offset are 0, else at most
     * limit objects, returned after the offset of what follows them (-1 at the end).
     */
    private static Varargs unpack(Varargs a, String function, long limit, long offset) {
        // luaL_checklstring: a number is taken as its text; anything else is Lua 5.1's argument error.
        byte[] b = LuaToReply.bytes(ArgumentErrors.string(a, 1, function));
        boolean all = limit == 0 && offset == 0;
        // lua-cmsgpack's message gives the input's length where it says "limit".
        if (offset < 0 || limit < 0) throw new LuaError("Invalid request to unpack with offset of " + (int) offset + " and limit of " + b.length + ".");
        if (offset > b.length) throw new LuaError("Start offset " + (int) offset + " greater than input length " + b.length + ".");
        Reader r = new Reader(b, (int) offset);
        List<LuaValue> values = new ArrayList<>();
        while (r.pos < b.length && (all || values.size() < limit)) values.add(r.value());
        if (!all) values.add(0, LuaValue.valueOf(r.pos >= b.length ? -1 : r.pos));
        return LuaValue.varargsOf(values.toArray(new LuaValue[0]));
    }

    private static final class Reader {
        final byte[] b;
        int pos;

        Reader(byte[] b, int pos) {
            this.b = b;
            this.pos = pos;
        }

        private long read(int n) {
            if (pos + n > b.length) throw new LuaError("Missing bytes in input.");
            long v = 0;
            for (int i = 0; i < n; i++) v = (v << 8) | (b[pos++] & 0xff);
            return v;
        }

        LuaValue value() {
            int c = (int) read(1);
            if (c <= 0x7f) return LuaValue.valueOf(c);
            if (c >= 0xe0) return LuaValue.valueOf(c - 256);
            if ((c & 0xe0) == 0xa0) return str(c & 0x1f);
            if ((c & 0xf0) == 0x90) return array(c & 0x0f);
            if ((c & 0xf0) == 0x80) return map(c & 0x0f);
            return switch (c) {
                case 0xc0 -> LuaValue.NIL;
                case 0xc2 -> LuaValue.FALSE;
                case 0xc3 -> LuaValue.TRUE;
                case 0xca -> LuaValue.valueOf(Float.intBitsToFloat((int) read(4)));
                case 0xcb -> LuaValue.valueOf(Double.longBitsToDouble(read(8)));
                case 0xcc -> LuaValue.valueOf(read(1));
                case 0xcd -> LuaValue.valueOf(read(2));
                case 0xce -> LuaValue.valueOf(read(4));
                case 0xcf -> LuaValue.valueOf((double) read(8));
                case 0xd0 -> LuaValue.valueOf((byte) read(1));
                case 0xd1 -> LuaValue.valueOf((short) read(2));
                case 0xd2 -> LuaValue.valueOf((int) read(4));
                case 0xd3 -> LuaValue.valueOf((double) read(8));
                case 0xd9, 0xc4 -> str((int) read(1));
                case 0xda, 0xc5 -> str((int) read(2));
                case 0xdb, 0xc6 -> str((int) read(4));
                case 0xdc -> array((int) read(2));
                case 0xdd -> array((int) read(4));
                case 0xde -> map((int) read(2));
                case 0xdf -> map((int) read(4));
                default -> throw new LuaError("Bad data format in input.");
            };
        }

        private LuaValue str(int n) {
            if (n < 0 || pos + n > b.length) throw new LuaError("Missing bytes in input.");
            LuaValue s = LuaValue.valueOf(java.util.Arrays.copyOfRange(b, pos, pos + n));
            pos += n;
            return s;
        }

        private LuaValue array(int n) {
            LuaTable t = new LuaTable();
            for (int i = 1; i <= n; i++) t.rawset(i, value());
            return t;
        }

        private LuaValue map(int n) {
            LuaTable t = new LuaTable();
            for (int i = 0; i < n; i++) {
                LuaValue k = value();
                LuaValue v = value();
                if (!k.isnil()) t.rawset(k, v);
            }
            return t;
        }
    }
}
