package io.cinnabar.command.scripting;

import io.cinnabar.command.Client;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandStats;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.protocol.Reply;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.CoroutineLib;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.jse.JseMathLib;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Lua interpreter scripts run in, sandboxed as Redis's, and the script cache. One per
 * server; used by whichever thread owns the keyspace at the time (the keyspace thread or the
 * script thread it lends the keyspace to).
 *
 * Why luaj: a pure-Java Lua with a compiler to Lua bytecode and a debug hook, so scripts run
 * inside the JVM with no native library, can be interrupted (SCRIPT KILL) and live in the
 * shaded jar. It implements Lua 5.2; {@link Lua51} bridges what Redis's 5.1 scripts rely on.
 */
public final class ScriptEngine {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ScriptEngine.class);
    /** Globals Redis lets scripts see (script_lua.c's allow lists); luaj's others are removed. */
    private static final Set<String> ALLOWED = Set.of("string", "cjson", "bit", "cmsgpack", "math", "table", "struct",
            "redis", "xpcall", "tostring", "getfenv", "setmetatable", "next", "assert", "tonumber", "rawequal",
            "collectgarbage", "getmetatable", "rawset", "pcall", "coroutine", "type", "_G", "select", "unpack",
            "gcinfo", "pairs", "rawget", "loadstring", "ipairs", "_VERSION", "setfenv", "load", "error", "newproxy");

    private final Dispatcher dispatcher;
    private final Map<String, Script> scripts = new HashMap<>();
    /** What {@link #find} found last, and the bytes it was asked for. */
    private Script lastFound;
    private byte[] lastFoundSha;
    private SandboxGlobals globals;
    /** What strings index in this interpreter's scripts ({@link StringMetatable}). */
    private LuaValue stringMetatable;
    private volatile ScriptRun current;
    /** The debugger of the EVAL running under SCRIPT DEBUG SYNC, else null. */
    private LuaDebugger debugger;
    /** Not made again by SCRIPT FLUSH (a fresh interpreter): Redis's generator is the process's. */
    private final MathRandom random = new MathRandom();
    /** While FUNCTION LOAD runs a library's code: when it must give up (Redis's 500 ms), else 0. */
    long loadDeadlineNanos;
    private final Client scriptClient;
    private FunctionLibraries functions;

    private ScriptEngine(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
        this.scriptClient = new Client(0, ScriptChannel.INSTANCE, true, true);
        dispatcher.server().onAbortLongRun(this::forceKill);
        dispatcher.server().functionLibraries(() -> functions == null ? List.of() : functions.codes());
        reset();
    }

    /** The server's engine, started on first use (a script, a function, a library in a loaded RDB). */
    public static ScriptEngine of(ServerContext server, Dispatcher dispatcher) {
        return server.component(ScriptEngine.class, () -> new ScriptEngine(dispatcher));
    }

    /**
     * A library read from an RDB file, added as FUNCTION LOAD adds it; replace (DEBUG RELOAD
     * MERGE) lets it take the place of one with its name. CommandError with Redis's text if not.
     */
    public void loadLibrary(byte[] code, boolean replace) {
        functions().loadSaved(code, replace);
    }

    /** The data set is being replaced (DEBUG RELOAD, DEBUG LOADAOF): libraries go with it, as in Redis's emptyData. */
    public void flushLibraries() {
        if (functions != null) functions.flush();
    }

    /**
     * Back to a server's start (CINNABAR RESET): no function libraries and, if any script was
     * cached, a fresh interpreter. Returns whether there were libraries (FUNCTION FLUSH to propagate).
     */
    public boolean resetForTests() {
        boolean hadLibraries = functions != null && !functions.codes().isEmpty();
        flushLibraries();
        if (!scripts.isEmpty()) reset();
        return hadLibraries;
    }

    /** A fresh interpreter (SCRIPT FLUSH): nothing a script left behind survives. */
    void reset() {
        scripts.clear();
        lastFound = null;
        lastFoundSha = null;
        List<byte[]> libraries = functions == null ? List.of() : functions.codes();
        SandboxGlobals g = standardLibraries();
        g.debuglib = new ScriptHook(g, () -> {
            ScriptRun run = current;
            if (run != null && run.killed) return "Script killed by user with SCRIPT KILL...";
            dispatcher.holdPoint();
            if (run != null && run.inlineDeadline != 0) run.checkInlineDeadline();
            if (loadDeadlineNanos != 0 && System.nanoTime() - loadDeadlineNanos > 0) {
                return "FUNCTION LOAD timeout";
            }
            return null;
        });
        Lua51.install(g);
        random.install((LuaTable) g.get("math"), () -> current != null);
        ScriptHook hook = (ScriptHook) g.debuglib;
        g.rawset("bit", BitLib.table());
        g.rawset("cjson", CjsonLib.table());
        g.rawset("struct", StructLib.table());
        g.rawset("cmsgpack", CmsgpackLib.table());
        for (String lib : new String[] {"string", "table", "math", "coroutine", "bit", "cjson", "struct", "cmsgpack"}) {
            ArgumentErrors.wrapAll(lib, (LuaTable) g.get(lib), hook);
        }
        for (String name : new String[] {"tonumber", "tostring", "select", "next", "type", "unpack", "rawget", "rawset", "rawequal",
                "setmetatable", "getmetatable", "ipairs", "pairs", "setfenv", "getfenv", "load", "loadstring", "collectgarbage", "assert", "error"}) {
            if (!g.get(name).isnil()) g.rawset(name, ArgumentErrors.named(name, g.get(name), hook));
        }
        LuaTable redis = new RedisApi(this, dispatcher).table();
        ArgumentErrors.wrapAll("redis", redis, hook);
        g.rawset("redis", redis);
        for (LuaValue k : g.keys()) {
            if (!k.isstring() || !ALLOWED.contains(k.tojstring())) g.rawset(k, LuaValue.NIL);
        }
        Map<LuaValue, LuaValue> done = new IdentityHashMap<>();
        done.put(g, g);
        for (LuaValue k : g.keys()) g.rawset(k, ReadOnlyTable.lockedCopy(g.rawget(k), done));
        stringMetatable = ReadOnlyTable.lockedCopy(withIndex(g.rawget("string")), done);
        StringMetatable.install(stringMetatable);
        g.setmetatable(nonexistentGlobalError());
        g.lock();
        globals = g;
        // Libraries are built again in the fresh interpreter (their code only registers functions):
        // a function and the library functions it calls must share one interpreter's call stack,
        // which names the callers in error messages.
        if (functions != null) {
            functions = new FunctionLibraries(this);
            for (byte[] code : libraries) functions.loadSaved(code, false);
        }
    }

    /** luaj's libraries that Redis's Lua also has, and its compiler, in a fresh global table. */
    static SandboxGlobals standardLibraries() {
        SandboxGlobals g = new SandboxGlobals();
        g.load(new BaseLib());
        g.load(new PackageLib());
        g.load(new TableLib());
        g.load(new StringLib());
        g.load(new CoroutineLib());
        g.load(new JseMathLib());
        LoadState.install(g);
        LuaC.install(g);
        return g;
    }

    /** A locked metatable whose __index raises Redis's error for reading a missing global. */
    static LuaTable nonexistentGlobalError() {
        ReadOnlyTable meta = new ReadOnlyTable();
        meta.rawset("__index", RedisApi.fn(a -> {
            throw new LuaError("Script attempted to access nonexistent global variable '" + a.arg(2).tojstring() + "'");
        }));
        meta.lock();
        return meta;
    }

    private static LuaTable withIndex(LuaValue stringLib) {
        LuaTable t = new LuaTable();
        t.rawset("__index", stringLib);
        return t;
    }

    /** The function libraries; they outlive SCRIPT FLUSH, as in Redis. */
    FunctionLibraries functions() {
        if (functions == null) functions = new FunctionLibraries(this);
        return functions;
    }

    /** SCRIPT KILL (eval) and FUNCTION KILL: stops the running script of that kind, or Redis's error. */
    static void killCommand(io.cinnabar.command.Call c, boolean eval) {
        ScriptEngine engine = c.server().component(ScriptEngine.class, null);
        String error = engine == null ? "NOTBUSY No scripts in execution right now." : engine.kill(eval);
        if (error != null) throw new io.cinnabar.command.CommandError(error);
        c.reply().ok();
    }

    ScriptRun current() {
        return current;
    }

    LuaDebugger debugger() {
        return debugger;
    }

    /**
     * Runs eval (the EVAL command's work, errors included) as one debugging session on the
     * client's socket (Redis's ldbStartSession/ldbEndSession): the script runs here, on the
     * thread holding the server, and the client is closed once the EVAL's reply is out.
     */
    void debugSession(io.cinnabar.command.Call c, Runnable eval) {
        io.cinnabar.command.SyncConsole console = c.client().channel().syncConsole();
        if (console == null) throw new CommandError(ScriptingCommands.NO_SYNC_DEBUG);
        long threshold = dispatcher.server().config().getLong(io.cinnabar.config.ConfigOptions.BUSY_REPLY_THRESHOLD);
        LuaDebugger session = new LuaDebugger(console, c.arg(1), globals, threshold);
        ScriptHook hook = (ScriptHook) globals.debuglib;
        session.hook(hook);
        LOG.warn("Redis synchronous debugging eval session started");
        debugger = session;
        hook.debugger = session;
        try {
            eval.run();
        } finally {
            debugger = null;
            hook.debugger = null;
            session.log("<endsession>");
            session.sendLogs();
            LOG.warn("Redis synchronous debugging eval session ended");
            c.client().closeAfterReply();
        }
    }

    Client scriptClient() {
        return scriptClient;
    }

    /**
     * The cached script whose SHA1 is sha (40 hex digits, either case), or null. The last one
     * found is remembered by the argument's bytes: a client calling one EVALSHA over and over
     * (its command flags are looked up too) makes no lower-case String and hash per call.
     */
    Script find(byte[] sha) {
        if (lastFound != null && Arrays.equals(sha, lastFoundSha)) return lastFound;
        Script s = scripts.get(new String(sha, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
        if (s != null) {
            lastFoundSha = sha.clone();
            lastFound = s;
        }
        return s;
    }

    boolean exists(String sha) {
        return scripts.containsKey(sha.toLowerCase(java.util.Locale.ROOT));
    }

    /** Compiles body and caches it under its SHA1 unless already there; Redis's errors on failure. */
    Script load(byte[] body) {
        String sha = Sha1.hex(body);
        Script known = scripts.get(sha);
        if (known != null) return known;
        ScriptFlags flags = ScriptFlags.parse(body);
        // The shebang line is skipped but its newline kept, so that line numbers stay the user's.
        byte[] code = Arrays.copyOfRange(body, flags.shebangLength(), body.length);
        LuaValue fn;
        try {
            fn = TailCalls.disable(SyntaxErrors.load(globals, code, "@user_script", globals));
        } catch (LuaError e) {
            throw new CommandError("ERR Error compiling script (new function): " + LuaErrors.lua51Message(String.valueOf(e.getMessage())));
        }
        Script s = new Script(sha, body, flags, fn, new RunPlace());
        scripts.put(sha, s);
        return s;
    }

    /** Runs script with KEYS and ARGV as globals and writes what it returns (or its error) to out. */
    void invoke(Script script, Client caller, byte[][] keys, byte[][] args, boolean readOnly, Reply out, CommandStats stats) {
        globals.setUnlocked(KEYS, array(keys));
        globals.setUnlocked(ARGV, array(args));
        ScriptRun run = new ScriptRun(script.sha(), true, caller, scriptClient, readOnly);
        prepare(run, script.flags());
        run(run, script.function(), LuaValue.NONE, out, stats, script.place());
    }

    /** Runs a function with KEYS and ARGV as its two arguments (FCALL). */
    void invoke(FunctionLibraries.Function f, Client caller, byte[][] command, byte[][] keys, byte[][] args, boolean readOnly, Reply out,
                CommandStats stats) {
        ScriptRun run = new ScriptRun(f.name(), false, caller, scriptClient, readOnly);
        prepare(run, f.flags());
        run.command = command;
        run.chunk = f.chunk();
        run(run, f.callback(), LuaValue.varargsOf(array(keys), array(args)), out, stats, f.place());
    }

    /** What the declared flags allow the run (its refusals: ScriptingCommands.checkBeforeRun). */
    private void prepare(ScriptRun run, ScriptFlags flags) {
        run.allowOom = flags.allowOom();
        run.allowCrossSlot = flags.compat() || flags.allowCrossSlot();
    }

    /**
     * Runs fn as run. On the keyspace thread under the Dispatcher's inline deadline, one whose last
     * run was not quick moves to the helper thread before it starts (RunElsewhere), and one that
     * passes the deadline having only read moves then.
     */
    private void run(ScriptRun run, LuaValue fn, org.luaj.vm2.Varargs fnArgs, Reply out, CommandStats stats, RunPlace place) {
        // A debugged script stays on this thread: its client's socket is read from here.
        long deadline = debugger != null ? 0 : dispatcher.inlineDeadline();
        if (deadline != 0 && !place.startsHere()) throw io.cinnabar.command.RunElsewhere.INSTANCE;
        run.inlineDeadline = deadline;
        scriptClient.db(run.caller.db());
        // A volatile field, read by the io threads: written only when it changes.
        String busy = run.eval ? BUSY_EVAL : BUSY_FUNCTION;
        if (dispatcher.server().busyError() != busy) dispatcher.server().busyError(busy);
        current = run;
        long start = System.nanoTime();
        LuaValue result;
        LuaValue callersMetatable = enter();
        try {
            result = fn.invoke(fnArgs).arg1();
        } catch (LuaError e) {
            throw new CommandError(CalledNames.inReply(LuaErrors.reply(e, run.name), run.chunk, "user_function"),
                    LuaErrors.alreadyCounted(LuaErrors.value(e)));
        } catch (StackOverflowError e) {
            throw new CommandError("ERR Error running script " + run.name + ", stack overflow");
        } finally {
            StringMetatable.leave(callersMetatable);
            current = null;
            place.ran(System.nanoTime() - start, dispatcher.inlineBudgetNanos(), run.moving);
        }
        LuaValue err = result.istable() ? result.rawget(ReplyFields.ERR) : LuaValue.NIL;
        // An error reply goes through the Dispatcher, which counts it in errorstats as Redis does
        // unless the command that gave it was counted already. Redis formats it with
        // addReplyErrorFormat, which drops the newlines at its end and blanks the others.
        if (err.type() == LuaValue.TSTRING) {
            String text = LuaErrors.trimNewlines(LuaToReply.cText(err), false);
            throw new CommandError(text.replace('\r', ' ').replace('\n', ' '), LuaErrors.alreadyCounted(result));
        }
        NestedErrors errors = new NestedErrors(dispatcher.server().stats());
        LuaToReply.write(result, out, run.resp, errors);
        stats.failedCalls += errors.failedCalls();
    }

    /** The globals' names, made once: LuaValue.valueOf(String) looks a name up in luaj's string cache each time. */
    private static final LuaString KEYS = LuaString.valueOf("KEYS"), ARGV = LuaString.valueOf("ARGV");

    static final String BUSY_EVAL = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    static final String BUSY_FUNCTION = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

    private static LuaTable array(byte[][] items) {
        LuaTable t = new LuaTable(items.length, 0);
        for (int i = 0; i < items.length; i++) t.rawset(i + 1, LuaValue.valueOf(items[i]));
        return t;
    }

    /** SCRIPT KILL (eval true) or FUNCTION KILL: null when done, else Redis's error. */
    String kill(boolean eval) {
        ScriptRun run = current;
        if (run == null) return "NOTBUSY No scripts in execution right now.";
        if (run.eval != eval) return run.eval ? BUSY_EVAL : BUSY_FUNCTION;
        if (run.wrote) {
            return "UNKILLABLE Sorry the script already executed write commands against the dataset. "
                    + "You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";
        }
        run.killed = true;
        dispatcher.longRunKilled();
        return null;
    }

    /** Runs Lua of this interpreter's on the calling thread until the returned value goes to {@link StringMetatable#leave}. */
    LuaValue enter() {
        return StringMetatable.enter(stringMetatable);
    }

    SandboxGlobals globals() {
        return globals;
    }

    /**
     * A redis.call ran: a kill, or a command waiting for the script to stand still (WATCH...), that
     * came meanwhile is seen at the script's next instruction. Not the inline deadline: that is
     * left to the instruction count, as a read-only script past it runs again from its start, and
     * its commands again (counted twice in commandstats).
     */
    void commandRan(ScriptRun run) {
        if (run.killed || dispatcher.holdAsked()) ((ScriptHook) globals.debuglib).stopCheckDue();
    }

    /** SHUTDOWN NOSAVE during a busy script: it stops within its next 1,024 instructions or redis.call, writes or not. */
    void forceKill() {
        ScriptRun run = current;
        if (run != null) run.killed = true;
    }

    /** INFO memory's scripting figures. */
    public ScriptMemory memory() {
        long evalBytes = 0;
        for (Script s : scripts.values()) evalBytes += s.sha().length() + s.body().length + ScriptMemory.ENTRY_OVERHEAD;
        FunctionLibraries f = functions;
        if (f == null) return new ScriptMemory(scripts.size(), evalBytes, 0, 0, 0);
        return new ScriptMemory(scripts.size(), evalBytes, f.functionCount(), f.libraries().size(), f.bytes());
    }
}
