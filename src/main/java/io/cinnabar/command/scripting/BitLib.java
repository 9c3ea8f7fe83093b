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
        t.rawset("tobit", fn(a -> num(arg(a, 1, "tobit"))));
        t.rawset("bnot", fn(a -> num(~arg(a, 1, "bnot"))));
        t.rawset("band", fn(a -> fold(a, "band", (x, y) -> x & y)));
        t.rawset("bor", fn(a -> fold(a, "bor", (x, y) -> x | y)));
        t.rawset("bxor", fn(a -> fold(a, "bxor", (x, y) -> x ^ y)));
        t.rawset("lshift", fn(a -> num(arg(a, 1, "lshift") << (arg(a, 2, "lshift") & 31))));
        t.rawset("rshift", fn(a -> num(arg(a, 1, "rshift") >>> (arg(a, 2, "rshift") & 31))));
        t.rawset("arshift", fn(a -> num(arg(a, 1, "arshift") >> (arg(a, 2, "arshift") & 31))));
        t.rawset("rol", fn(a -> num(Integer.rotateLeft(arg(a, 1, "rol"), arg(a, 2, "rol") & 31))));
        t.rawset("ror", fn(a -> num(Integer.rotateRight(arg(a, 1, "ror"), arg(a, 2, "ror") & 31))));
        t.rawset("bswap", fn(a -> num(Integer.reverseBytes(arg(a, 1, "bswap")))));
        t.rawset("tohex", fn(BitLib::tohex));
        return t;
    }

    /**
     * LuaBitOp's barg: the low 32 bits of the number's double plus 2^52 + 2^51, which is the
     * number rounded to an integer modulo 2^32 while it fits in 51 bits, and what that sum's
     * rounding leaves of larger ones.
     */
    static int arg(Varargs a, int i, String function) {
        return (int) Double.doubleToRawLongBits(ArgumentErrors.number(a, i, function) + 6755399441055744.0);
    }

    private static LuaValue num(int v) {
        return LuaValue.valueOf(v);
    }

    private static LuaValue fold(Varargs a, String function, IntBinaryOperator op) {
        int r = arg(a, 1, function);
        for (int i = 2; i <= a.narg(); i++) r = op.applyAsInt(r, arg(a, i, function));
        return num(r);
    }

    private static LuaValue tohex(Varargs a) {
        int b = arg(a, 1, "tohex");
        int n = a.narg() < 2 ? 8 : arg(a, 2, "tohex"); // lua_isnone: a nil given is checked
        boolean upper = n < 0;
        if (upper) n = -n;
        if (n > 8) n = 8;
        String hex = String.format(upper ? "%08X" : "%08x", b);
        return LuaValue.valueOf(hex.substring(8 - n));
    }
}
