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
     * Wraps every function of the library table lib (its global name) under its own name; one
     * function under two names (string.gfind and gmatch) stays one function.
     */
    static void wrapAll(String name, LuaTable lib, ScriptHook hook) {
        java.util.Map<LuaValue, LuaValue> wrapped = new java.util.IdentityHashMap<>();
        for (LuaValue k : lib.keys()) {
            LuaValue f = lib.rawget(k);
            if (f.isfunction() && k.isstring()) lib.rawset(k, wrapped.computeIfAbsent(f, g -> named(name + "." + k.tojstring(), g, hook)));
        }
    }

    /**
     * f (qualified: "string.rep", or a global's name), whose argument errors leave it in Lua
     * 5.1's words and named as luaL_argerror names them: after the call site ("local f =
     * string.rep; f()" is 'f', "s:rep()" does not count s), '?' where no Lua call names it, and
     * without a position when a Java function (pcall) called it. Its arguments are checked in
     * Lua 5.1's order first ({@link #LUA51_CHECKS}).
     */
    static LuaValue named(String qualified, LuaValue f, ScriptHook hook) {
        String name = qualified.substring(qualified.lastIndexOf('.') + 1);
        boolean callsBack = CALLS_BACK.contains(name);
        Check[] checks = checks(LUA51_CHECKS.getOrDefault(qualified, ""));
        return fn(a -> {
            try {
                for (Check c : checks) c.apply(a, name);
                return callsBack ? hook.called(() -> f.invoke(a)) : f.invoke(a);
            } catch (ArgumentError e) {
                throw e; // raised further in, already as Lua 5.1 raises it
            } catch (PositionlessError e) {
                // Raised in this function itself (next's "invalid key", yield's refusal) and a
                // Java function called it: raised in C, as below.
                if (e.raisedInC || LuaErrors.leftALuaFunction(e) || hook.runningCall().byLua()) throw e;
                throw new PositionlessError(e.raw, true);
            } catch (LuaError e) {
                LuaValue m = e.getMessageObject();
                String text = m != null && m.isstring() ? rewrite(name, m.tojstring(), a) : null;
                Matcher bad = BAD_ARGUMENT.matcher(text != null ? text : m != null && m.isstring() ? m.tojstring() : "");
                ScriptHook.CallSite site = hook.runningCall();
                if (bad.matches()) throw asCalled(Integer.parseInt(bad.group(1)), bad.group(2), site);
                // luaL_error's position is its caller's, which a Java caller (table.sort calling
                // table.insert) has not; Redis's reply then says where: "on =[C]:-1".
                if (!site.byLua() && m != null && !LuaErrors.leftALuaFunction(e)) throw new PositionlessError(m, true);
                throw e;
            }
        });
    }

    /**
     * The checks Lua 5.1's C functions make of their arguments before anything else, in the
     * order they make them: which argument an error blames when several are bad follows from it
     * (table.concat checks its separator before its table), and luaj checks in other orders and
     * without saying which argument failed. Each check is a position and a type: t table,
     * f function, s string (or number), n number (or text that is one), a any value; a "?" after
     * it lets nil or nothing through (luaL_opt*). What a function checks later (table.insert's
     * position, tonumber's base range) it checks itself.
     */
    private static final java.util.Map<String, String> LUA51_CHECKS = java.util.Map.ofEntries(
            java.util.Map.entry("string.byte", "1s 2n? 3n?"),
            java.util.Map.entry("string.len", "1s"),
            java.util.Map.entry("string.rep", "1s 2n"),
            java.util.Map.entry("string.reverse", "1s"),
            java.util.Map.entry("string.sub", "1s 2n 3n?"),
            java.util.Map.entry("table.concat", "2s? 1t 3n? 4n?"),
            java.util.Map.entry("table.foreach", "1t 2f"),
            java.util.Map.entry("table.foreachi", "1t 2f"),
            java.util.Map.entry("table.getn", "1t"),
            java.util.Map.entry("table.insert", "1t"),
            java.util.Map.entry("table.maxn", "1t"),
            java.util.Map.entry("table.remove", "1t 2n?"),
            java.util.Map.entry("table.sort", "1t 2f?"),
            java.util.Map.entry("getmetatable", "1a"),
            java.util.Map.entry("ipairs", "1t"),
            java.util.Map.entry("load", "2s? 1f"),
            java.util.Map.entry("next", "1t"),
            java.util.Map.entry("pairs", "1t"),
            java.util.Map.entry("rawequal", "1a 2a"),
            java.util.Map.entry("rawget", "1t 2a"),
            java.util.Map.entry("rawset", "1t 2a 3a"),
            java.util.Map.entry("tostring", "1a"),
            java.util.Map.entry("type", "1a"),
            java.util.Map.entry("unpack", "1t 2n? 3n?"));

    /** One of Lua 5.1's argument checks: argument position must be of type kind (see LUA51_CHECKS). */
    private record Check(int position, char kind, boolean optional) {
        void apply(Varargs a, String function) {
            LuaValue v = a.arg(position);
            if (optional && v.isnil()) return;
            String got = position > a.narg() ? "no value" : v.typename();
            switch (kind) {
                case 'a' -> {
                    if (position > a.narg()) throw new LuaError("bad argument #" + position + " to '" + function + "' (value expected)");
                }
                case 't' -> {
                    if (!v.istable()) throw typeError(got, position, function, "table");
                }
                case 'f' -> {
                    if (!v.isfunction()) throw typeError(got, position, function, "function");
                }
                case 's' -> {
                    if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) throw typeError(got, position, function, "string");
                }
                default -> {
                    if (CNumber.tonumber(v).isnil()) throw typeError(got, position, function, "number");
                }
            }
        }
    }

    private static Check[] checks(String spec) {
        if (spec.isEmpty()) return new Check[0];
        String[] parts = spec.split(" ");
        Check[] checks = new Check[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            checks[i] = new Check(p.charAt(0) - '0', p.charAt(1), p.endsWith("?"));
        }
        return checks;
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

    /** luaL_checkint: the number cut to C's ptrdiff_t, then to int. */
    static int integer(Varargs a, int i, String function) {
        return (int) CFormat.toLong(number(a, i, function));
    }

    /** luaL_optinteger: otherwise for nil or nothing, else number cut to an integer as C casts it (NaN is LLONG_MIN). */
    static long optInteger(Varargs a, int i, String function, long otherwise) {
        return a.isnil(i) ? otherwise : CFormat.toLong(number(a, i, function));
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
