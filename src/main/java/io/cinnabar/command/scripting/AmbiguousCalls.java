package io.cinnabar.command.scripting;

/**
 * Lua 5.1's funcargs refuses a call whose '(' is on a later line than what it calls ("f\n(g)()":
 * "ambiguous syntax (function call x new statement) near '('"); Lua 5.2, and luaj, take it as a
 * call. Whether luaj takes a given '(' as a call is found from a copy with a '{' in its place:
 * where a call's '(' may come, '{' is a call too (of a table) and luaj reads on past it; where a
 * statement starts, luaj stops right at it.
 */
final class AmbiguousCalls {
    private AmbiguousCalls() {}

    /**
     * Lua 5.1's error at the first of scan's '(' on new lines (before limit) that luaj takes as a
     * call, unless luaj stops before it; null if none.
     */
    static String error(Lua51Source.Scan scan, String name, int limit) {
        byte[] code = scan.source();
        try {
            for (int at : scan.callsOnNewLines()) {
                if (at >= limit) return null;
                byte[] copy = code.clone();
                copy[at] = '{';
                SyntaxErrors.Stop stop = SyntaxErrors.parse(copy, name);
                int stoppedAt = stop == null ? copy.length : SyntaxErrors.numeralEnd(stop.lexState(), copy);
                if (stoppedAt <= at) return null;
                if (stoppedAt == at + 1 && SyntaxErrors.token(stop.lexState()) == '{') continue;
                return LuaErrors.chunkId(name, 80) + ":" + lineOf(code, at) + ": ambiguous syntax (function call x new statement) near '('";
            }
        } catch (Throwable unexpected) {
            return null;
        }
        return null;
    }

    /** The line (inclinenumber's count: \n, \r, \r\n and \n\r each one) of position at in code. */
    private static int lineOf(byte[] code, int at) {
        int line = 1;
        for (int i = 0; i < at; i++) {
            if (code[i] == '\n' || code[i] == '\r') {
                if (i + 1 < at && (code[i + 1] == '\n' || code[i + 1] == '\r') && code[i + 1] != code[i]) i++;
                line++;
            }
        }
        return line;
    }
}
