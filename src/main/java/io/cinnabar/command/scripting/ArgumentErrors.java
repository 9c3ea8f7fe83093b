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
    static void wrapAll(LuaTable lib, ScriptHook hook) {
        java.util.Map<LuaValue, LuaValue> wrapped = new java.util.IdentityHashMap<>();
        for (LuaValue k : lib.keys()) {
            LuaValue f = lib.rawget(k);
            if (f.isfunction() && k.isstring()) lib.rawset(k, wrapped.computeIfAbsent(f, g -> named(k.tojstring(), g, hook)));
        }
    }

    /**
     * f, whose argument errors leave it in Lua 5.1's words and named as luaL_argerror names them:
     * after the call site ("local f = string.rep; f()" is 'f', "s:rep()" does not count s), '?'
     * where no Lua call names it, and without a position when a Java function (pcall) called it.
     */
    static LuaValue named(String name, LuaValue f, ScriptHook hook) {
        boolean callsBack = CALLS_BACK.contains(name);
        return fn(a -> {
            try {
                return callsBack ? hook.called(() -> f.invoke(a)) : f.invoke(a);
            } catch (ArgumentError | PositionlessError e) {
                throw e; // raised further in, already as Lua 5.1 raises it
            } catch (LuaError e) {
                LuaValue m = e.getMessageObject();
                if (m == null || !m.isstring()) throw e;
                String text = rewrite(name, m.tojstring(), a);
                Matcher bad = BAD_ARGUMENT.matcher(text != null ? text : m.tojstring());
                if (!bad.matches()) throw e;
                throw asCalled(Integer.parseInt(bad.group(1)), bad.group(2), hook.runningCall());
            }
        });
    }

    /**
     * Library functions that call functions they are given (or a __tostring): those run as called
     * by a C function, as in Lua 5.1, with no position and no name from the script's call site.
     */
    private static final java.util.Set<String> CALLS_BACK = java.util.Set.of("gsub", "sort", "foreach", "foreachi", "tostring");

    private static final Pattern BAD_ARGUMENT = Pattern.compile("^bad argument #(\\d+) to '[^']*' \\((.*)\\)$", Pattern.DOTALL);

    /** luaL_argerror's text for argument n, for the function as site called it. */
    private static LuaError asCalled(int n, String why, ScriptHook.CallSite site) {
        String text;
        if ("method".equals(site.kind()) && --n == 0) {
            text = "calling '" + site.name() + "' on bad self (" + why + ")";
        } else {
            text = "bad argument #" + n + " to '" + (site.name() != null ? site.name() : "?") + "' (" + why + ")";
        }
        // luaL_error's position is the caller's, which a Java caller has not.
        return site.byLua() ? new ArgumentError(text) : new PositionlessError(LuaValue.valueOf(text), true);
    }

    /** An argument error in its final words, which functions it passes through leave alone. */
    private static final class ArgumentError extends LuaError {
        ArgumentError(String message) {
            super(message);
        }
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
