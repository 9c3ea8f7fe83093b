package io.cinnabar.command.scripting;

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
        msg = trimNewlines(msg);
        LuaTable t = new LuaTable();
        t.rawset("err", LuaValue.valueOf(code + " " + msg));
        if (ignoreStats) t.rawset("ignore_error_stats_update", LuaValue.TRUE);
        return t;
    }

    /** An error table redis.call made of an error already counted in errorstats (see errorTable). */
    static boolean alreadyCounted(LuaValue error) {
        return error != null && error.istable() && error.rawget("ignore_error_stats_update").toboolean();
    }

    private static String trimNewlines(String s) {
        int start = 0, end = s.length();
        while (start < end && (s.charAt(start) == '\r' || s.charAt(start) == '\n')) start++;
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
        if (v == null) return LuaValue.NIL;
        if (v.istable()) return v;
        return LuaValue.valueOf(lua51Message(v.tojstring()));
    }

    static String lua51Message(String luaj) {
        Matcher m = POSITION.matcher(stripTraceback(luaj));
        if (!m.matches()) return lua51Wording(stripTraceback(luaj));
        return m.group(2) + ":" + m.group(3) + ": " + lua51Wording(m.group(4));
    }

    /** luaj's "attempt to call nil" is Lua 5.1's "attempt to call a nil value" (scripts and tests match on it). */
    private static final Pattern LUAJ_ATTEMPT = Pattern.compile("^attempt to (call|index|concatenate|perform arithmetic on) (?:\\? \\(a (\\w+) value\\)|(\\w+))$");

    private static String lua51Wording(String message) {
        Matcher m = LUAJ_ATTEMPT.matcher(message);
        if (!m.matches()) return message;
        return "attempt to " + m.group(1) + " a " + (m.group(2) != null ? m.group(2) : m.group(3)) + " value";
    }

    private static String stripTraceback(String s) {
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** The error reply for a script that failed, as Redis's luaCallFunction writes it. */
    static String reply(LuaError e, String sha) {
        String source = null, line = null;
        Matcher m = POSITION.matcher(stripTraceback(String.valueOf(e.getMessage())));
        if (m.matches() && !m.group(3).equals("?")) {
            source = m.group(1) + m.group(2);
            line = m.group(3);
        }
        LuaValue v = e.getMessageObject();
        String err;
        if (e instanceof PositionlessError p) {
            err = "ERR " + p.raw.tojstring();
        } else if (v != null && v.istable()) {
            LuaValue field = v.rawget("err");
            err = field.isstring() ? field.tojstring() : "ERR " + v.tojstring();
        } else {
            err = "ERR " + (v == null ? "nil" : lua51Message(v.tojstring()));
        }
        StringBuilder out = new StringBuilder(err);
        if (source != null) out.append(" script: ").append(sha).append(", on ").append(source).append(':').append(line).append('.');
        return out.toString();
    }
}
