package io.cinnabar.command.scripting;

import io.cinnabar.command.MonitorLine;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.nio.charset.StandardCharsets;

/**
 * How the Lua debugger shows Lua values and command replies (Redis's ldbCatStackValue and
 * ldbRedisProtocolToHuman): strings quoted as sdscatrepr quotes them, numbers as "%g", tables as
 * "{1; 2}" when they look like arrays and "{["a"]=1}" otherwise, replies in a notation of
 * their own ("+OK" quoted, arrays in brackets, maps with "=>").
 */
final class DebuggerText {
    /** LDB_MAX_VALUES_DEPTH: LUA_MINSTACK / 2. */
    private static final int MAX_DEPTH = 10;

    private DebuggerText() {}

    static String value(LuaValue v) {
        StringBuilder s = new StringBuilder();
        value(s, v, 0);
        return s.toString();
    }

    private static void value(StringBuilder s, LuaValue v, int level) {
        if (level++ == MAX_DEPTH) {
            s.append("<max recursion level reached! Nested table?>");
            return;
        }
        switch (v.type()) {
            case LuaValue.TSTRING -> s.append(MonitorLine.repr(LuaToReply.bytes(v.checkstring())));
            case LuaValue.TBOOLEAN -> s.append(v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> s.append(CFormat.g(v.todouble(), 6));
            case LuaValue.TNIL -> s.append("nil");
            case LuaValue.TTABLE -> table(s, (LuaTable) v, level);
            case LuaValue.TFUNCTION, LuaValue.TUSERDATA, LuaValue.TTHREAD, LuaValue.TLIGHTUSERDATA ->
                    s.append('"').append(v.typename()).append("@0x").append(Integer.toHexString(System.identityHashCode(v))).append('"');
            default -> s.append("\"<unknown-lua-type>\"");
        }
    }

    /** Both renderings are built as the keys come, and the array one kept if every key was 1, 2, 3... */
    private static void table(StringBuilder s, LuaTable t, int level) {
        StringBuilder array = new StringBuilder(), full = new StringBuilder();
        boolean isArray = true;
        int expected = 1;
        for (Varargs n = t.next(LuaValue.NIL); !n.arg1().isnil(); n = t.next(n.arg1())) {
            LuaValue k = n.arg1(), v = n.arg(2);
            if (isArray && (k.type() != LuaValue.TNUMBER || k.todouble() != expected)) isArray = false;
            if (!array.isEmpty()) {
                array.append("; ");
                full.append("; ");
            }
            value(array, v, level);
            full.append('[');
            value(full, k, level);
            full.append("]=");
            value(full, v, level);
            expected++;
        }
        s.append('{').append(isArray ? array : full).append('}');
    }

    /** A command's reply as the debugger logs it after "<reply> ". */
    static String reply(byte[] resp) {
        StringBuilder s = new StringBuilder();
        reply(s, resp, 0);
        return s.toString();
    }

    /** Appends the reply starting at i, returns where the next one starts. */
    private static int reply(StringBuilder s, byte[] b, int i) {
        int eol = lineEnd(b, i);
        String line = new String(b, i + 1, eol - i - 1, StandardCharsets.ISO_8859_1);
        int next = eol + 2;
        switch (b[i]) {
            case ':' -> s.append(line);
            case '$' -> {
                int n = Integer.parseInt(line);
                if (n == -1) return append(s, "NULL", next);
                s.append(MonitorLine.repr(java.util.Arrays.copyOfRange(b, next, next + n)));
                return next + n + 2;
            }
            case '+', '-' -> s.append(MonitorLine.repr(java.util.Arrays.copyOfRange(b, i, eol)));
            case '*' -> {
                int n = Integer.parseInt(line);
                if (n == -1) return append(s, "NULL", next);
                return items(s, b, next, n, "[", "]", false);
            }
            case '~' -> {
                return items(s, b, next, Integer.parseInt(line), "~(", ")", false);
            }
            case '%' -> {
                return items(s, b, next, Integer.parseInt(line), "{", "}", true);
            }
            case '_' -> s.append("(null)");
            case '#' -> s.append(b[i + 1] == 't' ? "#true" : "#false");
            case ',' -> s.append("(double) ").append(line);
            default -> {
                // Redis shows nothing for the other RESP3 types (big numbers, verbatim strings).
                return skip(b, i);
            }
        }
        return next;
    }

    private static int append(StringBuilder s, String text, int next) {
        s.append(text);
        return next;
    }

    private static int items(StringBuilder s, byte[] b, int i, int n, String open, String close, boolean pairs) {
        s.append(open);
        for (int j = 0; j < n; j++) {
            i = reply(s, b, i);
            if (pairs) {
                s.append(" => ");
                i = reply(s, b, i);
            }
            if (j != n - 1) s.append(',');
        }
        s.append(close);
        return i;
    }

    /** Past a reply this notation does not show. */
    private static int skip(byte[] b, int i) {
        int eol = lineEnd(b, i);
        if (b[i] != '=' && b[i] != '!' && b[i] != '>' && b[i] != '|') return eol + 2;
        int n = Integer.parseInt(new String(b, i + 1, eol - i - 1, StandardCharsets.ISO_8859_1));
        return switch (b[i]) {
            case '=', '!' -> eol + 2 + n + 2;
            default -> {
                int next = eol + 2;
                for (int j = 0; j < (b[i] == '|' ? 2 * n : n); j++) next = skipAny(b, next);
                yield next;
            }
        };
    }

    private static int skipAny(byte[] b, int i) {
        return reply(new StringBuilder(), b, i);
    }

    private static int lineEnd(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        return b.length;
    }
}
