package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.IntBinaryOperator;

import static io.cinnabar.command.scripting.RedisApi.fn;

/** The LuaBitOp library ("bit") Redis bundles: 32-bit operations on numbers. */
final class BitLib {
    private BitLib() {}

    static LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("tobit", fn(a -> num(arg(a, 1))));
        t.rawset("bnot", fn(a -> num(~arg(a, 1))));
        t.rawset("band", fn(a -> fold(a, (x, y) -> x & y)));
        t.rawset("bor", fn(a -> fold(a, (x, y) -> x | y)));
        t.rawset("bxor", fn(a -> fold(a, (x, y) -> x ^ y)));
        t.rawset("lshift", fn(a -> num(arg(a, 1) << (arg(a, 2) & 31))));
        t.rawset("rshift", fn(a -> num(arg(a, 1) >>> (arg(a, 2) & 31))));
        t.rawset("arshift", fn(a -> num(arg(a, 1) >> (arg(a, 2) & 31))));
        t.rawset("rol", fn(a -> num(Integer.rotateLeft(arg(a, 1), arg(a, 2) & 31))));
        t.rawset("ror", fn(a -> num(Integer.rotateRight(arg(a, 1), arg(a, 2) & 31))));
        t.rawset("bswap", fn(a -> num(Integer.reverseBytes(arg(a, 1)))));
        t.rawset("tohex", fn(BitLib::tohex));
        return t;
    }

    /**
     * LuaBitOp's barg: the low 32 bits of the number's double plus 2^52 + 2^51, which is the
     * number rounded to an integer modulo 2^32 while it fits in 51 bits, and what that sum's
     * rounding leaves of larger ones.
     */
    static int arg(Varargs a, int i) {
        return (int) Double.doubleToRawLongBits(a.checkdouble(i) + 6755399441055744.0);
    }

    private static LuaValue num(int v) {
        return LuaValue.valueOf(v);
    }

    private static LuaValue fold(Varargs a, IntBinaryOperator op) {
        int r = arg(a, 1);
        for (int i = 2; i <= a.narg(); i++) r = op.applyAsInt(r, arg(a, i));
        return num(r);
    }

    private static LuaValue tohex(Varargs a) {
        int b = arg(a, 1);
        int n = a.isnoneornil(2) ? 8 : arg(a, 2);
        boolean upper = n < 0;
        if (upper) n = -n;
        if (n > 8) n = 8;
        String hex = String.format(upper ? "%08X" : "%08x", b);
        return LuaValue.valueOf(hex.substring(8 - n));
    }
}
