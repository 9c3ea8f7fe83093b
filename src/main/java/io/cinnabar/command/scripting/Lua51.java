package io.cinnabar.command.scripting;

import io.cinnabar.util.BinaryText;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaDouble;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * What scripts written for Redis's Lua 5.1 expect and luaj (Lua 5.2) does differently or lacks:
 * unpack, loadstring, table.getn, math.mod, gcinfo, collectgarbage's options, 5.1-style error
 * positions in pcall, Redis's own pcall, which turns an error table into its message, rawset's
 * "table index is nil", case mapping of ASCII letters only, numbers in text read as strtod reads
 * them (the math library), and numbers written as "%.14g" where they become strings (tostring,
 * the string library, table.concat; '..' is bridged in {@link ScriptHook}). The pattern
 * functions are {@link LuaPatterns}', compile errors {@link SyntaxErrors}'.
 */
final class Lua51 {
    private Lua51() {}

    static {
        // Lua 5.1 divides in C, and on x86-64 0/0 is the NaN with its sign bit set: tostring(0/0)
        // is "-nan" in Redis, and "nan" once negated. luaj answers 0/0, x % 0 and their kin with
        // one constant whose sign bit is clear, so each such NaN printed with the other sign.
        // The constant is given C's bits once, before any script runs.
        try {
            java.lang.reflect.Field v = LuaDouble.class.getDeclaredField("v");
            v.setAccessible(true);
            v.setDouble(LuaDouble.NAN, Double.longBitsToDouble(0xfff8000000000000L));
        } catch (ReflectiveOperationException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(Lua51.class).debug("luaj's NaN keeps its sign: {}", e.toString());
        }
    }

    /** A NaN as glibc's log10, asin and acos give it, its sign bit clear; other values as they are. */
    private static double cNan(double d) {
        return d != d ? Math.abs(d) : d;
    }

    /** math.min (direction -1) and math.max (1) as Lua 5.1's loop. */
    private static LuaValue extreme(Varargs a, String name, int direction) {
        double best = ArgumentErrors.number(a, 1, name);
        for (int i = 2; i <= a.narg(); i++) {
            double d = ArgumentErrors.number(a, i, name);
            if (direction < 0 ? d < best : d > best) best = d;
        }
        return LuaValue.valueOf(best);
    }

    /**
     * C's frexp: a fraction in [0.5, 1) and a power of two; zero, infinities and NaN come back
     * with 0, and subnormal numbers get their true exponent (luaj's reads the exponent bits only).
     */
    private static Varargs frexp(double x) {
        if (x == 0 || Double.isNaN(x) || Double.isInfinite(x)) return LuaValue.varargsOf(LuaValue.valueOf(x), LuaValue.valueOf(0));
        int exponent = Math.getExponent(x) + 1;
        if (exponent == Double.MIN_EXPONENT) exponent = Math.getExponent(x * 0x1p54) + 1 - 54;
        return LuaValue.varargsOf(LuaValue.valueOf(Math.scalb(x, -exponent)), LuaValue.valueOf(exponent));
    }

    /**
     * A math function of two numbers as Lua 5.1's C reads them: pow(luaL_checknumber(L, 1),
     * luaL_checknumber(L, 2)) and the like, whose arguments gcc evaluates right to left, so that
     * when both are bad the error names argument #2 (math.pow('a', 'b') in Redis 7.0.15).
     */
    private static LuaValue secondArgumentFirst(LuaValue f, String name) {
        return fn(a -> {
            double y = ArgumentErrors.number(a, 2, name);
            double x = ArgumentErrors.number(a, 1, name);
            return f.invoke(LuaValue.varargsOf(LuaValue.valueOf(x), LuaValue.valueOf(y), a.subargs(3)));
        });
    }

    static void install(Globals g) {
        LuaTable table = (LuaTable) g.get("table");
        LuaTable math = (LuaTable) g.get("math");
        Lua51Tables.install(table, g);
        table.rawset("maxn", fn(Lua51::maxn));
        g.rawset("tonumber", fn(Lua51::tonumber));
        LuaValue rep = ((LuaTable) g.get("string")).get("rep");
        // Lua 5.1 repeats a string a negative number of times as no times; luaj fails.
        ((LuaTable) g.get("string")).rawset("rep", fn(a -> {
            ArgumentErrors.string(a, 1, "rep");
            return ArgumentErrors.number(a, 2, "rep") < 1 ? LuaValue.EMPTYSTRING : rep.invoke(a);
        }));
        // luaj's fmod computes x - y * trunc(x / y), which rounds (fmod(939167.0189486, 1.3) was
        // 0.2189485999988392); C's fmod, Redis's, is exact, as Java's % is.
        LuaValue fmod = fn(a -> LuaValue.valueOf(a.checkdouble(1) % a.checkdouble(2)));
        math.rawset("fmod", secondArgumentFirst(fmod, "fmod"));
        math.rawset("mod", secondArgumentFirst(fmod, "mod"));
        math.rawset("pow", secondArgumentFirst(math.get("pow"), "pow"));
        math.rawset("atan2", secondArgumentFirst(math.get("atan2"), "atan2"));
        // glibc's log10, asin and acos answer a negative number or one past +-1 with a NaN whose sign
        // bit is clear ("nan"); Java's, as the x86 instruction, with it set.
        math.rawset("log10", fn(a -> LuaValue.valueOf(cNan(Math.log10(a.checkdouble(1))))));
        math.rawset("asin", fn(a -> LuaValue.valueOf(cNan(Math.asin(a.checkdouble(1))))));
        math.rawset("acos", fn(a -> LuaValue.valueOf(cNan(Math.acos(a.checkdouble(1))))));
        // Lua 5.1 keeps the first argument and replaces it with each smaller (greater) one: a NaN
        // after the first is never smaller, a NaN first is never replaced. luaj's answer NaN either way.
        math.rawset("min", fn(a -> extreme(a, "min", -1)));
        math.rawset("max", fn(a -> extreme(a, "max", 1)));
        math.rawset("frexp", fn(a -> frexp(a.checkdouble(1))));
        math.rawset("ldexp", secondArgumentFirst(fn(a -> LuaValue.valueOf(Math.scalb(a.checkdouble(1), (int) CFormat.toLong(a.checkdouble(2))))), "ldexp"));
        LuaValue modf = math.get("modf");
        // C's modf of an infinity: the infinity and a zero (luaj's fraction is inf - inf, a NaN).
        math.rawset("modf", fn(a -> {
            double x = a.checkdouble(1);
            return Double.isInfinite(x) ? LuaValue.varargsOf(LuaValue.valueOf(x), LuaValue.valueOf(Math.copySign(0.0, x))) : modf.invoke(a);
        }));
        // Math's hyperbolic functions may be intrinsics of the JVM that round otherwise than Redis's
        // libm: Math.tanh is one from Java 24 (tanh(0.5410462796616011) ended in ...036, Redis's in
        // ...03). StrictMath's are fdlibm's, which Java 17's Math calls and which match it.
        math.rawset("sinh", fn(a -> LuaValue.valueOf(StrictMath.sinh(a.checkdouble(1)))));
        math.rawset("cosh", fn(a -> LuaValue.valueOf(StrictMath.cosh(a.checkdouble(1)))));
        math.rawset("tanh", fn(a -> LuaValue.valueOf(StrictMath.tanh(a.checkdouble(1)))));
        LuaTable coroutine = (LuaTable) g.get("coroutine");
        LuaValue resume = coroutine.get("resume");
        LuaValue create = coroutine.get("create");
        // luaj keeps only the text of an error that ends a coroutine ("@user_script:1 boom\n"): the
        // coroutine's body catches it and returns it after a marker, which resume turns back into
        // Lua 5.1's (false, error) with the error as it was raised, a table or Lua 5.1's text.
        LuaValue resumeAsLua51 = fn(a -> {
            coroutineArgument(a, "resume");
            Varargs r = resume.invoke(a);
            if (r.arg1().toboolean()) return r.arg(2) == COROUTINE_FAILED ? LuaValue.varargsOf(LuaValue.FALSE, r.arg(3)) : r;
            return r.arg(2).type() != LuaValue.TSTRING ? r : LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf(LuaErrors.lua51Message(r.arg(2).tojstring())));
        });
        coroutine.rawset("resume", resumeAsLua51);
        // Lua 5.1's checks and answers where Lua 5.2's differ: coroutines of Lua functions only, no
        // thread for the main one, and no yielding from it.
        coroutine.rawset("create", fn(a -> {
            if (!(a.arg1() instanceof org.luaj.vm2.LuaClosure)) throw new LuaError("bad argument #1 to 'create' (Lua function expected)");
            return create.call(coroutineBody(a.arg1()));
        }));
        // Lua 5.1's auxwrap: a failed coroutine's error raised again in the caller, text after the caller's position.
        coroutine.rawset("wrap", fn(a -> {
            if (!(a.arg1() instanceof org.luaj.vm2.LuaClosure)) throw new LuaError("bad argument #1 to 'wrap' (Lua function expected)");
            LuaValue thread = create.call(coroutineBody(a.arg1()));
            return fn(args -> {
                Varargs r = resumeAsLua51.invoke(LuaValue.varargsOf(thread, args));
                if (r.arg1().toboolean()) return r.subargs(2);
                LuaValue e = r.arg(2);
                if (e.type() != LuaValue.TSTRING && e.type() != LuaValue.TNUMBER) throw new LuaError(e);
                String where = ((ScriptHook) g.debuglib).where(1);
                throw new PositionlessError(where == null ? text(e) : prefixed(where, e));
            });
        }));
        LuaValue status = coroutine.get("status");
        coroutine.rawset("status", fn(a -> {
            coroutineArgument(a, "status");
            return status.invoke(a);
        }));
        LuaValue running = coroutine.get("running");
        coroutine.rawset("running", fn(a -> g.running.isMainThread() ? LuaValue.NIL : running.invoke(a).arg1()));
        LuaValue yield = coroutine.get("yield");
        coroutine.rawset("yield", fn(a -> {
            if (g.running.isMainThread()) throw new PositionlessError(LuaValue.valueOf("attempt to yield across metamethod/C-call boundary"));
            return yield.invoke(a);
        }));
        ((LuaTable) g.get("string")).rawset("format", fn(StringFormat::format));
        g.rawset("loadstring", fn(a -> loadstring(g, a)));
        g.rawset("load", fn(a -> load(g, a)));
        g.rawset("gcinfo", fn(a -> LuaValue.valueOf((int) (usedMemory() / 1024))));
        LuaValue collectgarbage = g.get("collectgarbage");
        int[] pauseAndStepMul = {200, 200};
        g.rawset("collectgarbage", fn(a -> {
            // Lua 5.1's options (luaL_checkoption) and answers; the JVM's collector is not the script's to drive.
            String option = a.isnil(1) ? "collect" : ArgumentErrors.string(a, 1, "collectgarbage").tojstring();
            int setting = option.equals("setpause") ? 0 : option.equals("setstepmul") ? 1 : -1;
            return switch (option) {
                case "count" -> collectgarbage.invoke(a);
                case "step" -> LuaValue.FALSE;
                case "collect", "stop", "restart" -> LuaValue.valueOf(0);
                case "setpause", "setstepmul" -> {
                    int previous = pauseAndStepMul[setting];
                    pauseAndStepMul[setting] = a.isnil(2) ? 0 : (int) ArgumentErrors.number(a, 2, "collectgarbage");
                    yield LuaValue.valueOf(previous);
                }
                default -> throw new LuaError("bad argument #1 to 'collectgarbage' (invalid option '" + option + "')");
            };
        }));
        ScriptHook hook = (ScriptHook) g.debuglib;
        g.rawset("pcall", fn(a -> hook.called(() -> pcall(a))));
        g.rawset("xpcall", ArgumentErrors.named("xpcall", fn(a -> hook.called(() -> xpcall(a))), hook));
        g.rawset("_VERSION", LuaValue.valueOf("Lua 5.1"));
        g.rawset("error", fn(a -> error(a, hook)));
        g.rawset("assert", fn(a -> assertion(a, hook)));
        LuaValue tostring = g.get("tostring");
        g.rawset("tostring", fn(a -> switch (a.arg1().type()) {
            case LuaValue.TNUMBER -> text(a.arg1());
            case LuaValue.TFUNCTION -> LuaValue.valueOf(functionText(a.arg1()));
            default -> tostring.invoke(a);
        }));
        LuaPatterns.install((LuaTable) g.get("string"));
        numberArguments(math);
        stringArguments((LuaTable) g.get("string"));
        LuaValue rawset = g.get("rawset");
        g.rawset("rawset", fn(a -> {
            return ReadOnlyTable.raisedInC(() -> {
                String badKey = a.arg1().istable() && !ReadOnlyTable.refuses(a.arg1()) ? FailedInstruction.badKey(a.arg(2)) : null;
                // Raised by the table itself in Lua 5.1, with no position.
                if (badKey != null) throw new PositionlessError(LuaValue.valueOf(badKey));
                Lua51Tables.beforeSet(a.arg1(), a.arg(2), a.arg(3));
                return rawset.invoke(a);
            });
        }));
        // Lua 5.1's ctype in the "C" locale changes ASCII letters only; luaj's Java case mapping changes other bytes too.
        ((LuaTable) g.get("string")).rawset("upper", fn(a -> asciiCase(ArgumentErrors.string(a, 1, "upper"), true)));
        ((LuaTable) g.get("string")).rawset("lower", fn(a -> asciiCase(ArgumentErrors.string(a, 1, "lower"), false)));
        LuaValue next = g.get("next");
        // luaH_next raises its error from inside next, a C function: Lua 5.1 gives it no position.
        g.rawset("next", fn(a -> {
            try {
                return next.invoke(a);
            } catch (LuaError e) {
                if (INVALID_KEY.equals(e.getMessage())) throw new PositionlessError(LuaValue.valueOf(INVALID_KEY));
                throw e;
            }
        }));
        LuaValue setmetatable = g.get("setmetatable");
        // luaj rehashes a table whose metatable makes it weak.
        g.rawset("setmetatable", fn(a -> {
            return ReadOnlyTable.raisedInC(() -> {
                // luaB_setmetatable checks the first argument, then the second's type (none included).
                if (!a.arg1().istable()) throw new LuaError("bad argument #1 to 'setmetatable' (table expected, got " + typeName(a, 1) + ")");
                if (a.narg() < 2 || !(a.arg(2).isnil() || a.arg(2).istable())) {
                    throw new LuaError("bad argument #2 to 'setmetatable' (nil or table expected)");
                }
                if (a.arg(2).istable() && !a.arg(2).rawget("__mode").isnil()) Lua51Tables.beforeRehash(a.arg1());
                return setmetatable.invoke(a);
            });
        }));
    }

    private static final String INVALID_KEY = "invalid key to 'next'";

    /** Lua 5.1 writes every function, Lua's or C's, as its address; luaj as its name or source. */
    static String functionText(LuaValue f) {
        return String.format("function: 0x%08x", System.identityHashCode(f));
    }

    /** luaL_typename as tag_error words it: "no value" for an argument not given. */
    private static String typeName(Varargs a, int i) {
        return i > a.narg() ? "no value" : a.arg(i).typename();
    }

    /** What a coroutine's body returns first when it failed; its error follows. */
    private static final LuaValue COROUTINE_FAILED = new org.luaj.vm2.LuaUserdata(new Object());

    /** f, its error caught and returned after {@link #COROUTINE_FAILED}. */
    private static LuaValue coroutineBody(LuaValue f) {
        // luaj runs a coroutine on a thread of its own: it takes its creator's string metatable along.
        LuaValue stringMetatable = StringMetatable.running();
        return fn(a -> {
            LuaValue before = StringMetatable.enter(stringMetatable);
            try {
                return f.invoke(a);
            } catch (LuaError e) {
                return LuaValue.varargsOf(COROUTINE_FAILED, LuaErrors.value(e));
            } finally {
                StringMetatable.leave(before);
            }
        });
    }

    private static void coroutineArgument(Varargs a, String function) {
        if (!a.arg1().isthread()) throw new LuaError("bad argument #1 to '" + function + "' (coroutine expected)");
    }

    private static LuaValue asciiCase(LuaString s, boolean upper) {
        byte[] b = LuaToReply.bytes(s);
        for (int i = 0; i < b.length; i++) {
            if (upper && b[i] >= 'a' && b[i] <= 'z') b[i] -= 32;
            else if (!upper && b[i] >= 'A' && b[i] <= 'Z') b[i] += 32;
        }
        return LuaValue.valueOf(b);
    }

    /** A number luaj would write differently from Lua 5.1 (luaj's integers print the same). */
    static boolean needsText(LuaValue v) {
        return v instanceof LuaDouble;
    }

    /** A string or number as Lua 5.1's lua_tolstring gives it: numbers as "%.14g". */
    static LuaString text(LuaValue v) {
        return v.type() == LuaValue.TNUMBER ? LuaValue.valueOf(CFormat.g(v.todouble(), 14)) : v.checkstring();
    }

    /**
     * The string library's functions take numbers where they expect strings and write them as
     * Lua 5.1 does: the positions of their string arguments (string.format and the pattern
     * functions, {@link LuaPatterns}, do so themselves).
     */
    private static void stringArguments(LuaTable string) {
        Object[][] positions = {
            {"byte", 1}, {"len", 1}, {"rep", 1}, {"reverse", 1}, {"sub", 1},
        };
        for (Object[] p : positions) {
            LuaValue f = string.get((String) p[0]);
            int[] at = new int[p.length - 1];
            for (int i = 1; i < p.length; i++) at[i - 1] = (Integer) p[i];
            string.rawset((String) p[0], fn(a -> f.invoke(withText(a, at))));
        }
    }

    /**
     * The math library reads numbers in text as Lua 5.1 does (strtod: "0x10", " 1e3 "), where
     * luaj reads fewer and fails with an ArrayIndexOutOfBoundsException on text ending in "0x":
     * text that is a number is handed over as one, other text as text luaj safely refuses.
     */
    private static void numberArguments(LuaTable math) {
        for (LuaValue k : math.keys()) {
            LuaValue f = math.rawget(k);
            if (!f.isfunction()) continue;
            math.rawset(k, fn(a -> {
                LuaValue[] args = null;
                for (int i = 1; i <= a.narg(); i++) {
                    if (a.arg(i).type() != LuaValue.TSTRING) continue;
                    if (args == null) {
                        args = new LuaValue[a.narg()];
                        for (int j = 0; j < args.length; j++) args[j] = a.arg(j + 1);
                    }
                    LuaValue n = CNumber.tonumber(args[i - 1]);
                    args[i - 1] = n.isnil() ? NOT_A_NUMBER : n;
                }
                return f.invoke(args == null ? a : LuaValue.varargsOf(args));
            }));
        }
    }

    private static final LuaValue NOT_A_NUMBER = LuaValue.valueOf("?");

    private static Varargs withText(Varargs a, int[] positions) {
        LuaValue[] copy = null;
        for (int p : positions) {
            if (!needsText(a.arg(p))) continue;
            if (copy == null) {
                copy = new LuaValue[a.narg()];
                for (int i = 0; i < copy.length; i++) copy[i] = a.arg(i + 1);
            }
            copy[p - 1] = text(copy[p - 1]);
        }
        return copy == null ? a : LuaValue.varargsOf(copy);
    }

    /**
     * error(message [, level]): a string (or number) gets the position of the function at that
     * level, none at level 0 or where that function is not Lua's (pcall, the caller of the
     * script); other values are raised as they are. The level is read first, whatever the
     * message (luaB_error). Called by a Java function (gsub's replacement), the error is raised
     * in C, and Redis's reply says "on =[C]:-1".
     */
    private static Varargs error(Varargs a, ScriptHook hook) {
        LuaValue message = a.arg1();
        int level = (int) ArgumentErrors.optInteger(a, 2, "error", 1);
        if (message.type() != LuaValue.TSTRING && message.type() != LuaValue.TNUMBER) throw new LuaError(message);
        boolean inC = !hook.runningCall().byLua();
        if (level <= 0) throw new PositionlessError(message, inC);
        // luaL_where then lua_concat: a number becomes its text even where there is no position.
        String where = hook.where(level);
        throw new PositionlessError(where == null ? text(message) : prefixed(where, message), inC);
    }

    /**
     * luaB_assert: its arguments when the first is true, else luaL_error("%s") of the message,
     * which luaL_optstring wants a string or a number (or nothing: "assertion failed!").
     */
    private static Varargs assertion(Varargs a, ScriptHook hook) {
        if (a.narg() == 0) throw new LuaError("bad argument #1 to 'assert' (value expected)");
        if (a.arg1().toboolean()) return a;
        LuaValue message = a.arg(2);
        if (message.isnil()) message = LuaValue.valueOf("assertion failed!");
        if (message.type() != LuaValue.TSTRING && message.type() != LuaValue.TNUMBER) {
            throw new LuaError("bad argument #2 to 'assert' (string expected, got " + message.typename() + ")");
        }
        return error(LuaValue.varargsOf(message, LuaValue.ONE), hook);
    }

    /** "where: message", keeping the message's bytes. */
    private static LuaValue prefixed(String where, LuaValue message) {
        return LuaValue.valueOf(BinaryText.encode(where + ": " + LuaToReply.text(text(message))));
    }

    /** table.maxn(t): the largest positive numeric key, 0 when none. */
    private static Varargs maxn(Varargs a) {
        LuaTable t = a.checktable(1);
        double max = 0;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (k.type() == LuaValue.TNUMBER && k.todouble() > max) max = k.todouble();
        }
        return LuaValue.valueOf(max);
    }

    /**
     * tonumber(e [, base]) as Lua 5.1 reads text: C's strtod in base 10 (" 1", "0x10", "inf",
     * "1e3" are numbers), strtoul in the others.
     */
    private static Varargs tonumber(Varargs a) {
        int base = (int) ArgumentErrors.optInteger(a, 2, "tonumber", 10); // luaL_optint, read first
        if (base == 10) {
            if (a.narg() == 0) throw new LuaError("bad argument #1 to 'tonumber' (value expected)");
            LuaValue v = a.arg1();
            if (v.type() == LuaValue.TNUMBER) return v;
            if (v.type() != LuaValue.TSTRING) return LuaValue.NIL;
            Double d = CNumber.str2d(v.checkstring());
            return d == null ? LuaValue.NIL : LuaValue.valueOf(d);
        }
        LuaString s = ArgumentErrors.string(a, 1, "tonumber");
        if (base < 2 || base > 36) throw new LuaError("bad argument #2 to 'tonumber' (base out of range)");
        Double d = CNumber.withBase(s, base);
        return d == null ? LuaValue.NIL : LuaValue.valueOf(d);
    }

    private static long usedMemory() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** loadstring(s [, chunkname]): a function, or nil and the compile error. */
    private static Varargs loadstring(Globals g, Varargs a) {
        // Numbers as Lua 5.1 writes them (luaL_checklstring): loadstring(0/0) compiles "-nan".
        LuaString source = ArgumentErrors.string(a, 1, "loadstring");
        String name = (a.isnil(2) ? source : ArgumentErrors.string(a, 2, "loadstring")).tojstring();
        try {
            byte[] code = LuaToReply.bytes(source);
            return TailCalls.disable(SyntaxErrors.load(g, code, name, g));
        } catch (LuaError e) {
            return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(LuaErrors.lua51Message(String.valueOf(e.getMessage()))));
        }
    }

    /**
     * load(reader [, chunkname]): Lua 5.1's takes a reader function only (luaj's a string too),
     * calls it for pieces (strings, or numbers as Lua 5.1 writes them) up to nil or "", and
     * compiles them as loadstring does. A function, or nil and the error.
     */
    private static Varargs load(Globals g, Varargs a) {
        LuaValue reader = a.arg1();
        String name = a.isnil(2) ? "=(load)" : text(a.arg(2)).tojstring();
        java.io.ByteArrayOutputStream code = new java.io.ByteArrayOutputStream();
        try {
            for (LuaValue piece = reader.call(); !piece.isnil(); piece = reader.call()) {
                if (piece.type() != LuaValue.TSTRING && piece.type() != LuaValue.TNUMBER) {
                    throw new LuaError("reader function must return a string");
                }
                byte[] bytes = LuaToReply.bytes(text(piece));
                if (bytes.length == 0) break;
                code.writeBytes(bytes);
            }
            return TailCalls.disable(SyntaxErrors.load(g, code.toByteArray(), name, g));
        } catch (LuaError e) {
            return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(LuaErrors.lua51Message(String.valueOf(e.getMessage()))));
        }
    }

    /**
     * xpcall(f, handler): false and what handler makes of the error, which Lua 5.1 calls with
     * the error's value (here after unwinding: scripts have no debug library to tell the
     * difference). f gets no arguments.
     */
    private static Varargs xpcall(Varargs a) {
        LuaValue f = a.arg1(), handler = a.checkvalue(2);
        try {
            return LuaValue.varargsOf(LuaValue.TRUE, f.invoke(LuaValue.NONE));
        } catch (LuaError e) {
            return failed(handler, LuaErrors.value(e));
        } catch (StackOverflowError e) {
            return failed(handler, LuaValue.valueOf("stack overflow"));
        }
    }

    /**
     * Lua 5.1's luaG_errormsg: an error raised in the handler goes to the handler again, one C
     * call deeper each time (xpcall(error, string.format) gives format's own complaint about
     * nil); one that keeps failing ends in "error in error handling" (LUA_ERRERR), once the C
     * calls pass LUAI_MAXCCALLS and an eighth more.
     */
    private static Varargs failed(LuaValue handler, LuaValue error) {
        for (int again = 0; again < ScriptHook.MAX_C_CALLS + ScriptHook.MAX_C_CALLS / 8; again++) {
            try {
                return LuaValue.varargsOf(LuaValue.FALSE, handler.call(error));
            } catch (LuaError e) {
                error = LuaErrors.value(e);
            } catch (StackOverflowError e) {
                break;
            }
        }
        return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf("error in error handling"));
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
            if (!v.istable()) return LuaValue.varargsOf(LuaValue.FALSE, v);
            // luaRedisPcall looks up err (lua_getfield: through __index, unprotected, an error
            // there leaves pcall) and leaves what it found after a table without one.
            LuaValue err = v.get(ReplyFields.ERR);
            return err.isstring() ? LuaValue.varargsOf(LuaValue.FALSE, err) : LuaValue.varargsOf(LuaValue.FALSE, v, err);
        } catch (StackOverflowError e) {
            return LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf("stack overflow"));
        }
    }
}
