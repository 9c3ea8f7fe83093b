package io.cinnabar.command.scripting;

import io.cinnabar.command.SyncConsole;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One EVAL under Redis's Lua debugger in its synchronous mode (SCRIPT DEBUG SYNC, eval.c's ldb):
 * the script stops on lines (stepping, breakpoints, redis.breakpoint(), a script past the busy
 * threshold) and, while stopped, the keyspace thread talks to the client over its own socket,
 * holding the whole server as Redis does. Its commands and their output, word for word, are
 * Redis 7.0's: arrays of status lines, and an "&lt;endsession&gt;" line before the EVAL's reply.
 */
final class LuaDebugger {
    /** LDB_MAX_LEN_DEFAULT. */
    private static final int DEFAULT_MAX_LEN = 256;
    /** Lua's count hook as Redis sets it for the debugger: every 100,000 instructions. */
    private static final int COUNT_EVERY = 100_000;
    private static final int MAX_INPUT = 1 << 20;

    private final SyncConsole console;
    private final String[] source;
    private final Globals globals;
    private final long timeLimitMs;
    private final List<String> logs = new ArrayList<>();
    private final ByteArrayOutputStream input = new ByteArrayOutputStream();
    private final Breakpoints breakpoints = new Breakpoints();
    /** Stop at the next line (also: log the commands the script calls, and their errors). */
    private boolean step = true;
    /** redis.breakpoint() was called: stop at the next line. */
    private boolean luaBreakpoint;
    private int maxLen = DEFAULT_MAX_LEN;
    private boolean maxLenHintSent;
    private int currentLine;
    private int instructions;
    private long startMs = System.currentTimeMillis();
    private ScriptHook hook;

    LuaDebugger(SyncConsole console, byte[] body, Globals globals, long busyThresholdMs) {
        this.console = console;
        this.globals = globals;
        this.timeLimitMs = busyThresholdMs > 0 ? busyThresholdMs : 5000;
        int end = body.length;
        while (end > 0 && (body[end - 1] == '\n' || body[end - 1] == '\r')) end--;
        this.source = new String(body, 0, end, StandardCharsets.ISO_8859_1).split("\n", -1);
    }

    void hook(ScriptHook hook) {
        this.hook = hook;
    }

    /** Redis's ldbIsEnabled: the script's commands, their replies and errors go to the log. */
    boolean logging() {
        return step;
    }

    /** redis.breakpoint(). */
    void breakpointCalled() {
        luaBreakpoint = true;
    }

    /** redis.debug(...): one line of the values, comma separated. */
    void debugCall(org.luaj.vm2.Varargs args) {
        StringBuilder s = new StringBuilder("<debug> line ").append(currentLine).append(": ");
        for (int i = 1; i <= args.narg(); i++) {
            if (i > 1) s.append(", ");
            s.append(DebuggerText.value(args.arg(i)));
        }
        log(s.toString());
    }

    void logCommand(byte[][] argv) {
        StringBuilder s = new StringBuilder("<redis>");
        for (int j = 0; j < argv.length; j++) {
            if (j == 10) {
                s.append(" ... (").append(argv.length - j - 1).append(" more)");
                break;
            }
            s.append(' ').append(new String(argv[j], StandardCharsets.ISO_8859_1));
        }
        log(s.toString());
    }

    void logReply(byte[] resp) {
        logWithMaxLen("<reply> " + DebuggerText.reply(resp));
    }

    void logError(String error) {
        log("<error> " + error);
    }

    /**
     * Before each instruction of a Lua function: Lua 5.1's count hook, then its line hook, which
     * fires on a function's first instruction, on a jump back, and on a new line.
     */
    void instruction(Prototype p, int pc, int previousPc) {
        boolean counted = ++instructions % COUNT_EVERY == 0;
        boolean newLine = pc == 0 || pc <= previousPc || line(p, pc) != line(p, previousPc);
        if (!counted && !newLine) return;
        if (!p.source.tojstring().contains("user_script")) return;
        if (counted) stop(line(p, pc), true);
        if (newLine) stop(line(p, pc), false);
    }

    private static int line(Prototype p, int pc) {
        return pc >= 0 && p.lineinfo != null && pc < p.lineinfo.length ? p.lineinfo[pc] : -1;
    }

    /** luaLdbLineHook. */
    private void stop(int line, boolean countEvent) {
        currentLine = line;
        boolean bp = breakpoints.contains(line) || luaBreakpoint;
        boolean timeout = false;
        if (countEvent && !step && !bp) {
            if (System.currentTimeMillis() - startMs < timeLimitMs) return;
            timeout = true;
            step = true;
        }
        if (!step && !bp) return;
        String reason = bp ? (luaBreakpoint ? "redis.breakpoint() called" : "break point")
                : timeout ? "timeout reached, infinite loop?" : "step over";
        step = false;
        luaBreakpoint = false;
        log("* Stopped at " + line + ", stop reason = " + reason);
        logSourceLine(line);
        sendLogs();
        if (!repl() && timeout) throw error("timeout during Lua debugging with client closing connection");
        startMs = System.currentTimeMillis();
    }

    /** Reads and runs debugger commands until one resumes the script; false when the client left. */
    private boolean repl() {
        while (true) {
            List<String> argv;
            while ((argv = DebuggerRequests.parse(input.toByteArray())) == null) {
                byte[] buf = new byte[1024];
                int n;
                try {
                    n = console.read(buf);
                } catch (IOException e) {
                    n = -1;
                }
                if (n <= 0) {
                    // Without its client the script runs on to its end, without stopping.
                    step = false;
                    breakpoints.clear();
                    return false;
                }
                input.write(buf, 0, n);
                if (input.size() > MAX_INPUT) {
                    input.reset();
                    throw error("max client buffer reached");
                }
            }
            input.reset();
            if (command(argv)) return true;
        }
    }

    /** Runs one debugger command; true when it resumes the script. */
    private boolean command(List<String> argv) {
        String name = argv.get(0).toLowerCase(java.util.Locale.ROOT);
        int argc = argv.size();
        switch (name) {
            case "h", "help" -> help();
            case "s", "step", "n", "next" -> {
                step = true;
                return true;
            }
            case "c", "continue" -> {
                return true;
            }
            case "t", "trace" -> trace();
            case "m", "maxlen" -> maxLen(argv);
            case "b", "break" -> breakCommand(argv);
            case "e", "eval" -> eval(argv);
            case "a", "abort" -> throw error("script aborted for user request");
            case "p", "print" -> {
                if (argc == 2) print(argv.get(1)); else printAll();
            }
            case "l", "list" -> {
                int around = currentLine, context = 5;
                if (argc > 1 && CNumber.atoi(argv.get(1)) > 0) around = CNumber.atoi(argv.get(1));
                if (argc > 2) context = CNumber.atoi(argv.get(2));
                list(around, context);
            }
            case "w", "whole" -> list(1, 1_000_000);
            default -> {
                if (argc > 1 && (name.equals("r") || name.equals("redis"))) {
                    redis(argv);
                } else {
                    log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
                }
            }
        }
        sendLogs();
        return false;
    }

    static LuaError error(String message) {
        return LuaErrors.raise(LuaErrors.errorTable(message, false));
    }

    private void help() {
        for (String line : HELP) log(line);
    }

    private static final String[] HELP = {
        "Redis Lua debugger help:",
        "[h]elp               Show this help.",
        "[s]tep               Run current line and stop again.",
        "[n]ext               Alias for step.",
        "[c]ontinue           Run till next breakpoint.",
        "[l]ist               List source code around current line.",
        "[l]ist [line]        List source code around [line].",
        "                     line = 0 means: current position.",
        "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
        "                     to show before/after [line].",
        "[w]hole              List all source code. Alias for 'list 1 1000000'.",
        "[p]rint              Show all the local variables.",
        "[p]rint <var>        Show the value of the specified variable.",
        "                     Can also show global vars KEYS and ARGV.",
        "[b]reak              Show all breakpoints.",
        "[b]reak <line>       Add a breakpoint to the specified line.",
        "[b]reak -<line>      Remove breakpoint from the specified line.",
        "[b]reak 0            Remove all breakpoints.",
        "[t]race              Show a backtrace.",
        "[e]val <code>        Execute some Lua code (in a different callframe).",
        "[r]edis <cmd>        Execute a Redis command.",
        "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
        "                     Specifying zero as <len> means unlimited.",
        "[a]bort              Stop the execution of the script. In sync",
        "                     mode dataset changes will be retained.",
        "",
        "Debugger functions you can call from Lua scripts:",
        "redis.debug()        Produce logs in the debugger console.",
        "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
        "                     next line of code.",
    };

    private void list(int around, int context) {
        for (int j = 1; j <= source.length; j++) {
            if (around != 0 && Math.abs(around - j) > context) continue;
            logSourceLine(j);
        }
    }

    private void logSourceLine(int line) {
        String text = line >= 1 && line <= source.length ? source[line - 1] : "<out of range source code line>";
        boolean bp = breakpoints.contains(line), current = line == currentLine;
        String prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
        log(String.format("%s%-3d %s", prefix, line, text));
    }

    private void breakCommand(List<String> argv) {
        if (argv.size() == 1) {
            if (breakpoints.count() == 0) {
                log("No breakpoints set. Use 'b <line>' to add one.");
                return;
            }
            log(breakpoints.count() + " breakpoints set:");
            for (int j = 0; j < breakpoints.count(); j++) logSourceLine(breakpoints.get(j));
            return;
        }
        for (String arg : argv.subList(1, argv.size())) {
            Long line = CNumber.strictLong(arg);
            if (line == null) {
                log("Invalid argument:'" + arg + "'");
            } else if (line == 0) {
                breakpoints.clear();
                log("All breakpoints removed.");
            } else if (line > 0) {
                if (breakpoints.count() == Breakpoints.MAX) log("Too many breakpoints set.");
                else if (breakpoints.add(line, source.length)) list(line.intValue(), 1);
                else log("Wrong line number.");
            } else {
                log(breakpoints.delete(-line) ? "Breakpoint removed." : "No breakpoint in the specified line.");
            }
        }
    }

    private void maxLen(List<String> argv) {
        if (argv.size() == 2) {
            int n = (int) CNumber.atoi(argv.get(1));
            maxLenHintSent = true;
            maxLen = n != 0 && n <= 60 ? 60 : n;
        }
        log(maxLen != 0 ? "<value> replies are truncated at " + maxLen + " bytes." : "<value> replies are unlimited.");
    }

    /** The code as an expression first ("return " prepended), else as statements, in a frame of its own. */
    private void eval(List<String> argv) {
        String code = String.join(" ", argv.subList(1, argv.size()));
        LuaValue fn;
        try {
            fn = compile("return " + code);
        } catch (LuaError asExpression) {
            try {
                fn = compile(code);
            } catch (LuaError e) {
                log("<error> " + LuaErrors.lua51Message(String.valueOf(e.getMessage())));
                return;
            }
        }
        LuaValue result;
        try {
            result = fn.call();
        } catch (LuaError e) {
            log("<error> " + LuaToReply.text(LuaErrors.value(e)));
            return;
        }
        logWithMaxLen("<retval> " + DebuggerText.value(result));
    }

    /** As scripts are compiled: Lua 5.1's syntax and errors, no tail calls (which would lose the chunk's position in errors). */
    private LuaValue compile(String code) {
        return TailCalls.disable(SyntaxErrors.load(globals, code.getBytes(StandardCharsets.ISO_8859_1), "@ldb_eval", globals));
    }

    /** redis.call with the logging on, so that the command and its reply are shown. */
    private void redis(List<String> argv) {
        LuaValue[] args = new LuaValue[argv.size() - 1];
        for (int j = 1; j < argv.size(); j++) args[j - 1] = LuaString.valueOf(argv.get(j).getBytes(StandardCharsets.ISO_8859_1));
        step = true;
        try {
            globals.get("redis").get("call").invoke(LuaValue.varargsOf(args));
        } catch (LuaError ignored) {
            // Logged as the call failed.
        } finally {
            step = false;
        }
    }

    /** The innermost frame's locals in scope. */
    private void printAll() {
        int frame = hook.frameCount() - 1;
        int shown = 0;
        LuaClosure c = frame >= 0 ? hook.frameClosure(frame) : null;
        if (c != null) {
            LuaValue[] stack = hook.frameStack(frame);
            int pc = hook.framePc(frame);
            for (int n = 1; ; n++) {
                LuaString name = c.p.getlocalname(n, pc);
                if (name == null) break;
                logWithMaxLen("<value> " + name.tojstring() + " = " + DebuggerText.value(stack[n - 1]));
                shown++;
            }
        }
        if (shown == 0) log("No local variables in the current context.");
    }

    /** The first local of that name from the innermost frame out, else KEYS or ARGV. */
    private void print(String variable) {
        for (int frame = hook.frameCount() - 1; frame >= 0; frame--) {
            LuaClosure c = hook.frameClosure(frame);
            if (c == null || hook.lostToTailCall(frame)) continue;
            int pc = hook.framePc(frame);
            for (int n = 1; ; n++) {
                LuaString name = c.p.getlocalname(n, pc);
                if (name == null) break;
                if (name.tojstring().equals(variable)) {
                    logWithMaxLen("<value> " + DebuggerText.value(hook.frameStack(frame)[n - 1]));
                    return;
                }
            }
        }
        if (variable.equals("ARGV") || variable.equals("KEYS")) logWithMaxLen("<value> " + DebuggerText.value(globals.get(variable)));
        else log("No such variable.");
    }

    /** The script's functions from the innermost out, each by the name its caller called it. */
    private void trace() {
        int frames = hook.frameCount();
        for (int frame = frames - 1; frame >= 0; frame--) {
            LuaClosure c = hook.frameClosure(frame);
            if (c == null || hook.lostToTailCall(frame) || !c.p.source.tojstring().contains("user_script")) continue;
            String name = hook.calledName(frame);
            log((frame == frames - 1 ? "In " : "From ") + (name != null ? name : "top level") + ":");
            logSourceLine(line(c.p, hook.framePc(frame)));
        }
        if (frames == 0) log("<error> Can't retrieve Lua stack.");
    }

    void log(String entry) {
        logs.add(entry);
    }

    /** Trimmed past maxlen, with a hint the first time. */
    private void logWithMaxLen(String entry) {
        boolean trimmed = false;
        if (maxLen != 0 && entry.length() > maxLen) {
            entry = entry.substring(0, maxLen) + " ...";
            trimmed = true;
        }
        log(entry);
        if (trimmed && !maxLenHintSent) {
            maxLenHintSent = true;
            log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
        }
    }

    /** The log so far, as an array of status lines (newlines in them as spaces). */
    void sendLogs() {
        StringBuilder s = new StringBuilder().append('*').append(logs.size()).append("\r\n");
        for (String entry : logs) s.append('+').append(entry.replace('\r', ' ').replace('\n', ' ')).append("\r\n");
        logs.clear();
        try {
            console.write(s.toString().getBytes(StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            // As in Redis: the next read finds the connection gone and ends the session.
        }
    }
}
