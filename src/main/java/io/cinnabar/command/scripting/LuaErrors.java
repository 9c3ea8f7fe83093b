package io.cinnabar.command.scripting;

import io.cinnabar.util.BinaryText;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis's shapes for script errors: {err="CODE message"} tables (luaPushErrorBuff) and the
 * final "ERR user_script:1: ... script: <sha>, on @user_script:1." reply, built from luaj's errors.
 */
final class LuaErrors {
    private LuaErrors() {}

    /** luaj prefixes messages with "chunk:line " (no colon, Lua 5.1 writes "chunk:line: "). */
    private static final Pattern POSITION = Pattern.compile("^(@?)([^\\s]*):(\\d+|\\?) (.*)$", Pattern.DOTALL);

    /**
     * Redis's luaPushErrorBuff: "-CODE message" keeps its code, a bare message gets ERR; the
     * result is a table {err="CODE message"}. ignoreStats marks errors already counted.
     */
    static LuaTable errorTable(String buffer, boolean ignoreStats) {
        String code, msg;
        if (buffer.startsWith("-")) {
            int space = buffer.indexOf(' ');
            if (space < 0) {
                code = "ERR";
                msg = buffer.substring(1);
            } else {
                code = buffer.substring(1, space);
                msg = buffer.substring(space + 1);
            }
        } else {
            code = "ERR";
            msg = buffer;
        }
        msg = trimNewlines(msg, true);
        LuaTable t = new LuaTable();
        t.rawset(ReplyFields.ERR, LuaValue.valueOf(BinaryText.encode(code + " " + msg)));
        if (ignoreStats) t.rawset(ReplyFields.IGNORE_ERROR_STATS_UPDATE, LuaValue.TRUE);
        return t;
    }

    /** An error table redis.call made of an error already counted in errorstats (see errorTable). */
    static boolean alreadyCounted(LuaValue error) {
        return error != null && error.istable() && error.rawget(ReplyFields.IGNORE_ERROR_STATS_UPDATE).toboolean();
    }

    /** s without the CRs and LFs at its end, and at its start too when leading. */
    static String trimNewlines(String s, boolean leading) {
        int start = 0, end = s.length();
        while (leading && start < end && (s.charAt(start) == '\r' || s.charAt(start) == '\n')) start++;
        while (end > start && (s.charAt(end - 1) == '\r' || s.charAt(end - 1) == '\n')) end--;
        return s.substring(start, end);
    }

    /** Raises the error table t as redis.call does. */
    static LuaError raise(LuaTable t) {
        return new LuaError(t);
    }

    /** A Lua error's value as Lua 5.1 would show it: "user_script:1: boom" for strings, tables as they are. */
    static LuaValue value(LuaError e) {
        if (e instanceof PositionlessError p) return p.raw;
        LuaValue v = e.getMessageObject();
        if (v == null || v.isnil()) return LuaValue.NIL;
        // Only text gets a position: error(false) is caught as false.
        if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) return v;
        return LuaValue.valueOf(lua51Message(e));
    }

    /**
     * Where luaj says an error happened ("source:line", set as the error left a Lua function),
     * or null. Read from the error itself: luaj only offers it glued to the message with a
     * space, and sources (loadstring's chunk names) may hold spaces themselves.
     */
    private static String fileline(LuaError e) {
        try {
            return (String) FILELINE.get(e);
        } catch (RuntimeException notThere) {
            return null;
        }
    }

    /** Whether luaj has given the error a position: it has passed through a Lua function. */
    static boolean leftALuaFunction(LuaError e) {
        return fileline(e) != null;
    }

    private static final java.lang.invoke.VarHandle FILELINE;

    static {
        try {
            FILELINE = java.lang.invoke.MethodHandles.privateLookupIn(LuaError.class, java.lang.invoke.MethodHandles.lookup())
                    .findVarHandle(LuaError.class, "fileline", String.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A string error's text as Lua 5.1 gives it: "[string \"chunk\"]:1: attempt to index local 't' (a nil value)". */
    static String lua51Message(LuaError e) {
        String full = String.valueOf(e.getMessage()), at = fileline(e);
        if (at == null || !full.startsWith(at + " ")) return logged(e, lua51Message(full));
        String body = full.substring(at.length() + 1);
        String text = logged(e, lua51Wording(stripTraceback(body), failure(body)));
        int colon = at.lastIndexOf(':');
        if (colon < 0 || at.endsWith(":?")) return text;
        return chunkId(at.substring(0, colon)) + at.substring(colon) + ": " + text;
    }

    /** Lua 5.1's luaO_chunkid: how a chunk's source is named in run-time messages (LUA_IDSIZE). */
    static String chunkId(String source) {
        return chunkId(source, 60);
    }

    /**
     * luaO_chunkid into a buffer of size bytes: 60 for run-time errors, 80 for syntax errors
     * (llex.c's MAXSRC). Long file names keep their end, long chunk texts their start.
     */
    static String chunkId(String source, int size) {
        if (source.startsWith("=")) return source.substring(1, Math.min(source.length(), size));
        if (source.startsWith("@")) {
            String file = source.substring(1);
            int room = size - " '...' ".length() - 1;
            return file.length() > room ? "..." + file.substring(file.length() - room) : file;
        }
        int len = 0;
        while (len < source.length() && source.charAt(len) != '\n' && source.charAt(len) != '\r') len++;
        int room = size - " [string \"...\"] ".length() - 1;
        if (len > room) len = room;
        return len < source.length() ? "[string \"" + source.substring(0, len) + "...\"]" : "[string \"" + source + "\"]";
    }

    /** A message luaj gave without the error itself (compile errors): positions and wording made Lua 5.1's. */
    static String lua51Message(String luaj) {
        String message = stripTraceback(luaj), lua51 = failure(luaj);
        Matcher m = POSITION.matcher(message);
        if (!m.matches()) return lua51Wording(message, lua51);
        return m.group(2) + ":" + m.group(3) + ": " + lua51Wording(m.group(4), lua51);
    }

    /** luaj's "attempt to call nil" is Lua 5.1's "attempt to call a nil value" (scripts and tests match on it). */
    private static final Pattern LUAJ_ATTEMPT = Pattern.compile("^attempt to (call|index|concatenate|perform arithmetic on|get length of) (?:\\? \\(a (\\w+) value\\)|(\\w+))$");

    /** luaj's text for a failed operation, in Lua 5.1's words: lua51 when ScriptHook worked them out. */
    private static String lua51Wording(String message, String lua51) {
        // A Java exception inside luaj's VM (its reader of numbers in text fails on "0x") on an
        // instruction Lua 5.1 fails too.
        // luaj's assignment into a value that is no table says "index expected, got nil".
        if ((message.startsWith(VM_ERROR) || message.startsWith("table index ") || message.startsWith("index expected, got "))
                && lua51 != null) return lua51;
        // Any other Java exception is a fault of ours: its text (class, message, our code's
        // details) is not the client's to read; the server log has it (logged).
        if (message.startsWith(VM_ERROR)) return INTERNAL_ERROR;
        if (!message.startsWith("attempt to ")) return message;
        if (lua51 != null) return lua51;
        Matcher m = LUAJ_ATTEMPT.matcher(message);
        if (!m.matches()) return message;
        return "attempt to " + m.group(1) + " a " + (m.group(2) != null ? m.group(2) : m.group(3)) + " value";
    }

    /** How luaj's LuaError(Throwable) starts its message: a Java exception thrown while Lua ran. */
    private static final String VM_ERROR = "vm error: ";

    /** The text a script's error gets in place of a Java exception's. */
    static final String INTERNAL_ERROR = "internal error in the Lua interpreter (see the server's log)";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LuaErrors.class);
    /** System.nanoTime() before which no other exception is logged: a script may fail so in a loop under pcall. */
    private static volatile long quietUntil = System.nanoTime();

    /** text, having logged e's Java exception once a minute at most when text is {@link #INTERNAL_ERROR}. */
    private static String logged(LuaError e, String text) {
        long now = System.nanoTime();
        if (text.endsWith(INTERNAL_ERROR) && now - quietUntil >= 0) {
            quietUntil = now + 60_000_000_000L;
            LOG.warn("A Java exception in a script, answered as \"{}\"", INTERNAL_ERROR, e.getCause() != null ? e.getCause() : e);
        }
        return text;
    }

    /** luaj ends a message that left a Lua function with "\n" and what ScriptHook.traceback gave. */
    private static String stripTraceback(String s) {
        int nl = s.lastIndexOf('\n');
        if (nl < 0) return s;
        String tail = s.substring(nl + 1);
        return tail.isEmpty() || isFailure(tail) ? s.substring(0, nl) : s;
    }

    /** Lua 5.1's text for the failed instruction, carried after the message, or null. */
    private static String failure(String s) {
        int nl = s.lastIndexOf('\n');
        return nl >= 0 && isFailure(s.substring(nl + 1)) ? s.substring(nl + 1) : null;
    }

    /** FailedInstruction's texts: what an operation attempted, or a key no table takes. */
    private static boolean isFailure(String text) {
        return text.startsWith("attempt to ") || text.startsWith("table index is ");
    }

    /**
     * The error reply for a script that failed, as Redis's luaCallFunction writes it: the
     * message up to its first NUL byte (sdsnew of lua_tostring).
     */
    static String reply(LuaError e, String sha) {
        // The error handler's debug.getinfo finds no Lua function under two C ones.
        String at = e instanceof PositionlessError p && p.raisedInC ? "=[C]:-1" : fileline(e);
        LuaValue v = e instanceof PositionlessError p ? p.raw : e.getMessageObject();
        String err;
        if (v != null && v.istable()) {
            LuaValue field = v.rawget(ReplyFields.ERR);
            err = field.isstring() ? LuaToReply.text(field) : "ERR " + v.tojstring();
        } else if (v != null && v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) {
            // Redis's error handler: 'ERR ' .. tostring(err).
            err = "ERR " + (v.isfunction() ? Lua51.functionText(v) : v.tojstring());
        } else if (e instanceof PositionlessError) {
            err = "ERR " + LuaToReply.text(v);
        } else {
            err = "ERR " + (v == null ? "nil" : lua51Message(e));
        }
        int nul = err.indexOf('\0');
        StringBuilder out = new StringBuilder(nul < 0 ? err : err.substring(0, nul));
        if (at != null && !at.endsWith(":?")) out.append(" script: ").append(sha).append(", on ").append(at).append('.');
        return out.toString();
    }
}
