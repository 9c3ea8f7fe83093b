package io.cinnabar.command.scripting;

import io.cinnabar.Version;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.persistence.WriteFeed;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Function;

/** The "redis" table scripts see: redis.call, redis.pcall and the helpers, with Redis's errors. */
final class RedisApi {
    private static final Logger log = LoggerFactory.getLogger("io.cinnabar.script");
    private static final int REPL_AOF = 1, REPL_REPLICA = 2;

    private final ScriptEngine engine;
    private final Dispatcher dispatcher;

    RedisApi(ScriptEngine engine, Dispatcher dispatcher) {
        this.engine = engine;
        this.dispatcher = dispatcher;
    }

    LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("call", fn(a -> command(a, true)));
        t.rawset("pcall", fn(a -> command(a, false)));
        t.rawset("sha1hex", fn(this::sha1hex));
        t.rawset("error_reply", fn(this::errorReply));
        t.rawset("status_reply", fn(RedisApi::statusReply));
        t.rawset("log", fn(this::log));
        t.rawset("setresp", fn(this::setResp));
        t.rawset("set_repl", fn(this::setRepl));
        t.rawset("replicate_commands", fn(a -> LuaValue.TRUE));
        t.rawset("breakpoint", fn(this::breakpoint));
        t.rawset("debug", fn(this::debug));
        t.rawset("acl_check_cmd", fn(this::aclCheck));
        t.rawset("LOG_DEBUG", 0);
        t.rawset("LOG_VERBOSE", 1);
        t.rawset("LOG_NOTICE", 2);
        t.rawset("LOG_WARNING", 3);
        t.rawset("REPL_NONE", 0);
        t.rawset("REPL_AOF", REPL_AOF);
        t.rawset("REPL_SLAVE", REPL_REPLICA);
        t.rawset("REPL_REPLICA", REPL_REPLICA);
        t.rawset("REPL_ALL", REPL_AOF | REPL_REPLICA);
        t.rawset("REDIS_VERSION", Version.REDIS_VERSION);
        t.rawset("REDIS_VERSION_NUM", versionNumber(Version.REDIS_VERSION));
        return t;
    }

    static VarArgFunction fn(Function<Varargs, Varargs> body) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return body.apply(args);
            }
        };
    }

    private static int versionNumber(String v) {
        String[] p = v.split("\\.");
        return (Integer.parseInt(p[0]) << 16) | (Integer.parseInt(p[1]) << 8) | Integer.parseInt(p[2]);
    }

    private LuaError error(String message) {
        return LuaErrors.raise(errorTable(message, false));
    }

    /** An error for the script (Redis's luaPushErrorBuff), in the debugger's log when it logs. */
    private LuaTable errorTable(String buffer, boolean ignoreStats) {
        LuaDebugger debugger = engine.debugger();
        if (debugger != null && debugger.logging()) debugger.logError(buffer);
        return LuaErrors.errorTable(buffer, ignoreStats);
    }

    /** redis.breakpoint(): stops at the next line under the debugger; false outside it. */
    private Varargs breakpoint(Varargs a) {
        LuaDebugger debugger = engine.debugger();
        if (debugger == null) return LuaValue.FALSE;
        debugger.breakpointCalled();
        return LuaValue.TRUE;
    }

    /** redis.debug(...): a line in the debugger's console; nothing outside it. */
    private Varargs debug(Varargs a) {
        LuaDebugger debugger = engine.debugger();
        if (debugger != null) debugger.debugCall(a);
        return LuaValue.NONE;
    }

    private ScriptRun run(String what) {
        ScriptRun run = engine.current();
        if (run == null) throw error(what + " can only be called inside a script invocation");
        return run;
    }

    /** redis.call / redis.pcall: raise decides whether an error reply is raised or returned. */
    private Varargs command(Varargs a, boolean raise) {
        ScriptRun run = run("redis.call/pcall");
        int argc = a.narg();
        if (argc == 0) return fail(errorTable("Please specify at least one argument for this redis lib call", false), raise);
        byte[][] argv = new byte[argc][];
        for (int i = 0; i < argc; i++) {
            argv[i] = argument(a.arg(i + 1));
            if (argv[i] == null) {
                return fail(errorTable("Lua redis lib command arguments must be strings or integers", false), raise);
            }
        }
        LuaDebugger debugger = engine.debugger();
        boolean logged = debugger != null && debugger.logging();
        if (logged) debugger.logCommand(argv);
        CommandSpec spec;
        try {
            spec = dispatcher.scriptCommand(run.caller, argv, run.readOnly, run.wrote, run.allowOom, run.allowCrossSlot);
        } catch (CommandError e) {
            return fail(errorTable(e.getMessage(), true), raise);
        }
        if (spec.isWrite()) run.wrote = true;
        else if (spec.hasFlag(io.cinnabar.command.CommandFlag.MAY_REPLICATE)) run.sideEffects = true;
        LuaReplyBuilder reply = new LuaReplyBuilder(run.resp);
        if (logged) {
            // The debugger shows the reply as it was sent, then the script gets it as values.
            RecordedReply sent = new RecordedReply(run.resp);
            dispatcher.runNested(run.scriptClient, spec, argv, sent, run.propagateTo);
            byte[] bytes = sent.takeBytes();
            if (bytes.length > 0 && bytes[0] == '-') debugger.logError(new String(bytes, 0, bytes.length - 2, java.nio.charset.StandardCharsets.ISO_8859_1));
            debugger.logReply(bytes);
            RawReplyReader.feed(bytes, reply);
        } else {
            dispatcher.runNested(run.scriptClient, spec, argv, reply, run.propagateTo);
        }
        engine.commandRan(run);
        LuaValue result = reply.result();
        if (raise && result.istable() && result.rawget(ReplyFields.ERR).isstring()) throw new LuaError(result);
        return result;
    }

    private static Varargs fail(LuaTable error, boolean raise) {
        if (raise) throw new LuaError(error);
        return error;
    }

    /** A command argument: strings as they are, numbers as C's "%.17g" (Lua's own format loses precision). */
    private static byte[] argument(LuaValue v) {
        if (v.type() == LuaValue.TNUMBER) {
            double d = v.todouble();
            // Whole numbers (EXPIRE k 60, INCRBY k 1) print the same as "%.17g" without the general formatting.
            if (d == Math.rint(d) && Math.abs(d) < 0x1p53 && (d != 0 || 1 / d > 0)) {
                return Long.toString((long) d).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            }
            return CFormat.g(d, 17).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        if (v.type() != LuaValue.TSTRING) return null;
        return LuaToReply.bytes(v.checkstring());
    }

    private Varargs sha1hex(Varargs a) {
        if (a.narg() != 1) throw error("wrong number of arguments");
        LuaValue v = a.arg1();
        byte[] bytes = v.isstring() ? LuaToReply.bytes(Lua51.text(v)) : new byte[0];
        return LuaValue.valueOf(Sha1.hex(bytes));
    }

    private Varargs errorReply(Varargs a) {
        if (a.narg() != 1 || a.arg1().type() != LuaValue.TSTRING) {
            return LuaErrors.errorTable("wrong number or type of arguments", false);
        }
        String s = LuaToReply.text(a.arg1());
        return errorTable(s.startsWith("-") ? s : "-" + s, false);
    }

    private static Varargs statusReply(Varargs a) {
        if (a.narg() != 1 || a.arg1().type() != LuaValue.TSTRING) {
            return LuaErrors.errorTable("wrong number or type of arguments", false);
        }
        LuaTable t = new LuaTable(0, 1);
        t.rawset(ReplyFields.OK, a.arg1());
        return t;
    }

    private Varargs log(Varargs a) {
        ScriptRun run = engine.current();
        // A line in the log cannot be taken back: the run may not start again on the helper thread.
        if (run != null) run.sideEffects = true;
        int argc = a.narg();
        if (argc < 2) throw error("redis.log() requires two arguments or more.");
        if (!a.arg1().isnumber()) throw error("First argument must be a number (log level).");
        int level = (int) a.arg1().todouble();
        if (level < 0 || level > 3) throw error("Invalid debug level.");
        StringBuilder msg = new StringBuilder();
        for (int i = 2; i <= argc; i++) {
            LuaValue v = a.arg(i);
            if (!v.isstring()) continue;
            if (i != 2) msg.append(' ');
            msg.append(Lua51.text(v).tojstring());
        }
        switch (level) {
            case 0, 1 -> log.debug("{}", msg);
            case 2 -> log.info("{}", msg);
            default -> log.warn("{}", msg);
        }
        return LuaValue.NONE;
    }

    private Varargs setResp(Varargs a) {
        ScriptRun run = run("redis.setresp");
        if (a.narg() != 1) throw error("redis.setresp() requires one argument.");
        int resp = (int) a.arg1().optdouble(0);
        if (resp != 2 && resp != 3) throw error("RESP version must be 2 or 3.");
        run.resp = resp;
        return LuaValue.NONE;
    }

    private Varargs setRepl(Varargs a) {
        ScriptRun run = run("redis.set_repl");
        if (a.narg() != 1) throw error("redis.set_repl() requires two arguments.");
        int flags = (int) a.arg1().optdouble(0);
        if ((flags & ~(REPL_AOF | REPL_REPLICA)) != 0) {
            throw error("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        }
        run.propagateTo = ((flags & REPL_AOF) != 0 ? WriteFeed.TO_AOF : 0) | ((flags & REPL_REPLICA) != 0 ? WriteFeed.TO_REPLICAS : 0);
        return LuaValue.NONE;
    }

    private Varargs aclCheck(Varargs a) {
        ScriptRun run = run("redis.acl_check_cmd");
        if (a.narg() == 0) throw error("Please specify at least one argument for this redis lib call");
        byte[][] argv = new byte[a.narg()][];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = argument(a.arg(i + 1));
            if (argv[i] == null) throw error("Lua redis lib command arguments must be strings or integers");
        }
        io.cinnabar.command.CommandSpec spec = dispatcher.resolve(argv);
        if (spec == null) throw error("Invalid command passed to redis.acl_check_cmd()");
        return LuaValue.valueOf(dispatcher.server().acl().allows(run.caller, spec, argv));
    }
}
