package io.cinnabar.command.scripting;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayInputStream;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * What scripts written for Redis's Lua 5.1 expect and luaj (Lua 5.2) does differently or lacks:
 * unpack, loadstring, table.getn, math.mod, gcinfo, 5.1-style error positions in pcall, and
 * Redis's own pcall, which turns an error table into its message.
 */
final class Lua51 {
    private Lua51() {}

    static void install(Globals g) {
        LuaTable table = (LuaTable) g.get("table");
        LuaTable math = (LuaTable) g.get("math");
        g.rawset("unpack", table.get("unpack"));
        table.rawset("getn", fn(a -> LuaValue.valueOf(a.checktable(1).length())));
        math.rawset("mod", math.get("fmod"));
        ((LuaTable) g.get("string")).rawset("format", fn(StringFormat::format));
        g.rawset("loadstring", fn(a -> loadstring(g, a)));
        g.rawset("gcinfo", fn(a -> LuaValue.valueOf((int) (usedMemory() / 1024))));
        g.rawset("pcall", fn(Lua51::pcall));
        g.rawset("_VERSION", LuaValue.valueOf("Lua 5.1"));
        g.rawset("error", fn(Lua51::error));
        LuaValue tostring = g.get("tostring");
        g.rawset("tostring", fn(a -> a.arg1().type() == LuaValue.TNUMBER
                ? LuaValue.valueOf(CFormat.g(a.arg1().todouble(), 14)) : tostring.invoke(a)));
    }

    /** error(message [, level]): level 0 adds no position; tables are raised as they are. */
    private static Varargs error(Varargs a) {
        LuaValue message = a.arg1();
        if (message.istable() || message.isnil()) throw new LuaError(message);
        if (a.optint(2, 1) == 0) throw new PositionlessError(message);
        throw new LuaError(message.tojstring());
    }

    private static long usedMemory() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** loadstring(s [, chunkname]): a function, or nil and the compile error. */
    private static Varargs loadstring(Globals g, Varargs a) {
        LuaValue source = a.checkstring(1);
        String name = a.optjstring(2, source.tojstring());
        try {
            byte[] code = LuaToReply.bytes(source.checkstring());
            return TailCalls.disable(g.load(new ByteArrayInputStream(code), name.startsWith("@") || name.startsWith("=") ? name : "=" + name, "t", g));
        } catch (LuaError e) {
            return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(LuaErrors.lua51Message(String.valueOf(e.getMessage()))));
        }
    }

    /**
     * Redis's pcall: true and the results, or false and the error, where an error table with an
     * err field is given as that string (redis.call raises such tables).
     */
    private static Varargs pcall(Varargs a) {
        LuaValue f = a.checkvalue(1);
        try {
            return LuaValue.varargsOf(LuaValue.TRUE, f.invoke(a.subargs(2)));
        } catch (LuaError e) {
            LuaValue v = LuaErrors.value(e);
            if (v.istable() && v.rawget("err").isstring()) v = v.rawget("err");
            return LuaValue.varargsOf(LuaValue.FALSE, v);
        } catch (StackOverflowError e) {
            return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf("stack overflow"));
        }
    }
}
