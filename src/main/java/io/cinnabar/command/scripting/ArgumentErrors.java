package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * Lua 5.1's wording for a library function given a bad argument: "bad argument #1 to 'max'
 * (number expected, got no value)". luaj leaves out the function's name and often the
 * argument's position ("bad argument: number expected, got nil"), so each library function is
 * wrapped under its name and its argument errors are rewritten as they leave it.
 */
final class ArgumentErrors {
    private ArgumentErrors() {}

    private static final Pattern NUMBERED = Pattern.compile("^bad argument #(\\d+): (.*)$", Pattern.DOTALL);
    private static final Pattern LUAJ_NUMBER = Pattern.compile("^(double|int|integer|long) expected");
    private static final java.util.Set<String> NUMBER_NAMES = java.util.Set.of("double", "int", "integer", "long");
    private static final Pattern TYPED = Pattern.compile("^bad argument: (\\w+) expected, got (\\w+)$");

    /**
     * Wraps every function of lib (a library table or the globals) under its own name; one
     * function under two names (string.gfind and gmatch) stays one function.
     */
    static void wrapAll(LuaTable lib) {
        java.util.Map<LuaValue, LuaValue> wrapped = new java.util.IdentityHashMap<>();
        for (LuaValue k : lib.keys()) {
            LuaValue f = lib.rawget(k);
            if (f.isfunction() && k.isstring()) lib.rawset(k, wrapped.computeIfAbsent(f, g -> named(k.tojstring(), g)));
        }
    }

    static LuaValue named(String name, LuaValue f) {
        return fn(a -> {
            try {
                return f.invoke(a);
            } catch (LuaError e) {
                LuaValue m = e.getMessageObject();
                String text = m == null || !m.isstring() ? null : rewrite(name, m.tojstring(), a);
                if (text == null) throw e;
                throw new LuaError(text);
            }
        });
    }

    /** Lua 5.1's text for luaj's argument error message, or null when it is not one. */
    static String rewrite(String name, String message, Varargs a) {
        Matcher m = NUMBERED.matcher(message);
        if (m.matches()) {
            String why = m.group(2);
            if (why.equals("value")) why = "value expected";
            why = LUAJ_NUMBER.matcher(why).replaceFirst("number expected");
            return "bad argument #" + m.group(1) + " to '" + name + "' (" + why + ")";
        }
        m = TYPED.matcher(message);
        if (!m.matches()) return null;
        // luaj's checkdouble, checkint and checklong; Lua 5.1's luaL_checknumber and checkint say "number".
        String expected = NUMBER_NAMES.contains(m.group(1)) ? "number" : m.group(1), got = m.group(2);
        // luaj dropped the position: the first argument that is of the type it got and fails the check.
        int n = Math.max(a.narg(), 1) + 1;
        for (int i = 1; i <= n; i++) {
            LuaValue v = a.arg(i);
            if (!v.typename().equals(got) || accepts(expected, v)) continue;
            return "bad argument #" + i + " to '" + name + "' (" + expected + " expected, got " + (i > a.narg() ? "no value" : got) + ")";
        }
        return null;
    }

    /** luaL_checknumber: a number, or text Lua 5.1 reads as one; else Lua 5.1's error naming function. */
    static double number(Varargs a, int i, String function) {
        LuaValue n = CNumber.tonumber(a.arg(i));
        if (n.isnil()) throw typeError(i > a.narg() ? "no value" : a.arg(i).typename(), i, function, "number");
        return n.todouble();
    }

    /** luaL_optinteger: otherwise for nil or nothing, else number cut to an integer. */
    static long optInteger(Varargs a, int i, String function, long otherwise) {
        return a.isnil(i) ? otherwise : (long) number(a, i, function);
    }

    /** number for a value read without looking at the argument count: a missing one is nil (struct.pack's). */
    static double number(LuaValue v, int i, String function) {
        LuaValue n = CNumber.tonumber(v);
        if (n.isnil()) throw typeError(v.typename(), i, function, "number");
        return n.todouble();
    }

    /** luaL_checklstring: a string, or a number as Lua 5.1 writes it; else Lua 5.1's error naming function. */
    static org.luaj.vm2.LuaString string(Varargs a, int i, String function) {
        LuaValue v = a.arg(i);
        if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) throw typeError(i > a.narg() ? "no value" : v.typename(), i, function, "string");
        return Lua51.text(v);
    }

    /** string for a value read without looking at the argument count: a missing one is nil (struct.pack's). */
    static org.luaj.vm2.LuaString string(LuaValue v, int i, String function) {
        if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) throw typeError(v.typename(), i, function, "string");
        return Lua51.text(v);
    }

    private static LuaError typeError(String got, int i, String function, String expected) {
        return new LuaError("bad argument #" + i + " to '" + function + "' (" + expected + " expected, got " + got + ")");
    }

    private static boolean accepts(String expected, LuaValue v) {
        return switch (expected) {
            case "number" -> !CNumber.tonumber(v).isnil();
            case "string" -> v.isstring();
            case "table" -> v.istable();
            case "function" -> v.isfunction();
            default -> false;
        };
    }
}
