package io.cinnabar.command.scripting;

/**
 * Lua source as Lua 5.1's lexer reads it, where luaj's (Lua 5.2's) reads it otherwise:
 * <ul>
 * <li>Control bytes: luaj skips every byte up to ' ' as space, Lua 5.1 only C's isspace (\t \n
 * \v \f \r and ' '); any other control byte is a token of its own that no rule takes, so
 * "return 1\1" does not compile in Redis. Except where read_numeral meets a NUL: it looks for an
 * exponent's 'E', then its sign, with strchr, which finds the set's terminating NUL as well, so a
 * NUL there is part of the numeral, and what follows it too (letters, digits, and one sign),
 * while the number is read as a C string, up to the NUL: "return 1\0-2" returns 1.
 * <li>Escapes: \x and \z are Lua 5.2's; Lua 5.1's read_string keeps the letter of an escape it
 * does not know, so "\x41" is "x41" and "\z" is "z".
 * </ul>
 */
final class Lua51Source {
    private Lua51Source() {}

    /**
     * The source to give luaj (what read_numeral takes after a NUL turned into spaces, the
     * backslash of \x and \z left out) and where in it Lua 5.1's lexer meets its first control
     * byte as a token (-1: nowhere, or an unfinished string comes first, which luaj reports as
     * Lua 5.1 does).
     */
    record Scan(byte[] source, int stray) {}

    static Scan scan(byte[] code) {
        if (!mayDiffer(code)) return new Scan(code, -1);
        byte[] s = code.clone();
        java.util.BitSet dropped = new java.util.BitSet();
        int stray = -1, i = 0, n = s.length;
        while (i < n) {
            byte c = s[i];
            if (c == '-' && i + 1 < n && s[i + 1] == '-') {
                i += 2;
                int level = longBracket(s, i);
                if (level >= 0) {
                    i = afterLongBracket(s, i + level + 2, level);
                } else {
                    while (i < n && !isLineBreak(s[i])) i++;
                }
            } else if (c == '[') {
                int level = longBracket(s, i);
                i = level >= 0 ? afterLongBracket(s, i + level + 2, level) : i + 1;
            } else if (c == '"' || c == '\'') {
                i = afterString(s, i, dropped);
                if (i < 0) break;
            } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(s[i + 1]))) {
                i = afterNumeral(s, i);
            } else if (isLetter(c) || c == '_') {
                while (i < n && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_')) i++;
            } else if (isStray(c)) {
                if (stray < 0) stray = i;
                i++;
            } else {
                i++;
            }
        }
        if (dropped.isEmpty()) return new Scan(s, stray);
        byte[] kept = new byte[n - dropped.cardinality()];
        for (int from = 0, to = 0; from < n; from++) if (!dropped.get(from)) kept[to++] = s[from];
        return new Scan(kept, stray < 0 ? -1 : stray - dropped.get(0, stray).cardinality());
    }

    /** Whether code has a control byte luaj skips, or a backslash before an x or a z. */
    private static boolean mayDiffer(byte[] s) {
        for (int i = 0; i < s.length; i++) {
            if (isStray(s[i]) || (s[i] == '\\' && i + 1 < s.length && (s[i + 1] == 'x' || s[i + 1] == 'z'))) return true;
        }
        return false;
    }

    /** A byte luaj skips as space and Lua 5.1 reads as a token. */
    private static boolean isStray(byte c) {
        return c >= 0 && c < ' ' && (c < '\t' || c > '\r');
    }

    /**
     * Just after the short string opening at i (read_string), or -1 if a line or the code ends
     * first; the backslashes of \x and \z go into dropped.
     */
    private static int afterString(byte[] s, int i, java.util.BitSet dropped) {
        byte quote = s[i++];
        int n = s.length;
        while (i < n && s[i] != quote) {
            if (isLineBreak(s[i])) return -1;
            if (s[i] != '\\') {
                i++;
            } else if (i + 2 < n && isLineBreak(s[i + 1]) && isLineBreak(s[i + 2]) && s[i + 1] != s[i + 2]) {
                i += 3; // an escaped \r\n or \n\r is one line break (inclinenumber)
            } else {
                if (i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'z')) dropped.set(i);
                i += 2;
            }
        }
        return i < n ? i + 1 : -1;
    }

    /**
     * Just after the numeral starting at i, as read_numeral reads it: digits and points, an 'E'
     * (or NUL) and a sign (or NUL), letters and digits. From a NUL on, the numeral's bytes become
     * spaces: Lua 5.1 reads the number up to there.
     */
    private static int afterNumeral(byte[] s, int i) {
        int n = s.length, nul = -1;
        do i++; while (i < n && (isDigit(s[i]) || s[i] == '.'));
        if (i < n && (s[i] == 'E' || s[i] == 'e' || s[i] == 0)) {
            if (s[i] == 0) nul = i;
            i++;
            if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == 0)) {
                if (s[i] == 0 && nul < 0) nul = i;
                i++;
            }
        }
        while (i < n && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_')) i++;
        if (nul >= 0) java.util.Arrays.fill(s, nul, i, (byte) ' ');
        return i;
    }

    /** The level of the long bracket ("[", '=' level times, "[") opening at i, or -1 (skip_sep). */
    private static int longBracket(byte[] s, int i) {
        if (i >= s.length || s[i] != '[') return -1;
        int j = i + 1;
        while (j < s.length && s[j] == '=') j++;
        return j < s.length && s[j] == '[' ? j - i - 1 : -1;
    }

    /** Just after the "]", '=' level times, "]" that closes a long bracket, looked for from i; the end if none. */
    private static int afterLongBracket(byte[] s, int i, int level) {
        for (; i < s.length; i++) {
            if (s[i] != ']') continue;
            int j = i + 1;
            while (j < s.length && s[j] == '=') j++;
            if (j - i - 1 == level && j < s.length && s[j] == ']') return j + 1;
        }
        return s.length;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** C's isalpha in the C locale that Redis's Lua runs in. */
    private static boolean isLetter(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isLineBreak(byte c) {
        return c == '\n' || c == '\r';
    }
}
