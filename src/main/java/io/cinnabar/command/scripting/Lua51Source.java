package io.cinnabar.command.scripting;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

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
 * <li>Numerals: read_numeral takes digits and points, an exponent's 'E' and sign, then any
 * letters, digits and '_', and luaO_str2d wants all of it to be one number for strtod (glibc's
 * reads hex, with a binary exponent); so "0x1p4" is 16, "0xA.8" is 10 and then ".8", "0x" and
 * "1_0" are malformed. luaj reads hex numerals its own way: those are given to it in decimal,
 * and named as written where a syntax error stops at one ("'<eof>' expected near '0x10'").
 * <li>"::" is a token of Lua 5.2 (labels), two ':' to Lua 5.1: "::top::" is "unexpected symbol
 * near ':'". luaj is given ": :".
 * <li>break: Lua 5.1's must end its block (an optional ';', then end, else, elseif, until or the
 * end of the code), as return must in both; Lua 5.2's is a statement like any other. The first
 * break followed by anything else is noted (see {@link MisplacedBreaks}).
 * <li>Empty statements are Lua 5.2's: Lua 5.1 takes a ';' only after a statement, so one at the
 * start, after another, after do, then, else, repeat or a function's parameters is "unexpected
 * symbol near ';'". It stops there as at a control byte.
 * <li>A call's '(' on a line after its function is "ambiguous syntax (function call x new
 * statement)" to Lua 5.1 (funcargs), a call like any other to Lua 5.2. Where a '(' follows
 * what may end a function's expression on an earlier line is noted (see {@link AmbiguousCalls}).
 * </ul>
 */
final class Lua51Source {
    private Lua51Source() {}

    /**
     * The source to give luaj, and where in it Lua 5.1's lexer first meets what luaj would not
     * stop at (-1: nowhere, or an unfinished string comes first, which luaj reports as Lua 5.1
     * does): a control byte (lexError null: the parser's error names it) or, for strayLength
     * bytes, a malformed numeral (lexError is then the lexer's own error); and the hex numerals
     * given in decimal, as written, by where their decimal starts in source.
     */
    record Scan(byte[] source, int stray, int strayLength, String lexError, Map<Integer, String> hexNumerals,
                MisplacedBreak misplacedBreak, List<Integer> callsOnNewLines) {
        /** This scan's numerals in other code of the same layout (source with bytes replaced). */
        Scan of(byte[] code) {
            return new Scan(code, stray, strayLength, lexError, hexNumerals, misplacedBreak, callsOnNewLines);
        }

        /** This scan of the source with bytes inserted at at: the numerals after it move along. */
        Scan inserting(int at, byte[] bytes) {
            byte[] code = new byte[source.length + bytes.length];
            System.arraycopy(source, 0, code, 0, at);
            System.arraycopy(bytes, 0, code, at, bytes.length);
            System.arraycopy(source, at, code, at + bytes.length, source.length - at);
            Map<Integer, String> moved = new HashMap<>();
            hexNumerals.forEach((where, hex) -> moved.put(where >= at ? where + bytes.length : where, hex));
            return new Scan(code, -1, 0, null, moved, null, List.of());
        }

        /** The numeral luaj read as text, ending just before end in source, as the script wrote it. */
        String asWritten(String text, int end) {
            String hex = hexNumerals.get(end - text.length());
            return hex != null && end <= source.length
                    && new String(source, end - text.length(), text.length(), StandardCharsets.ISO_8859_1).equals(text) ? hex : text;
        }
    }

    /**
     * A break that Lua 5.1 refuses for what follows it: end is where the word ends in the source,
     * semicolon whether a ';' comes next (Lua 5.1 takes it as part of the break statement).
     */
    record MisplacedBreak(int end, boolean semicolon) {}

    private static final Pattern DECIMAL = Pattern.compile("(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
    private static final Pattern HEX = Pattern.compile("0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?\\d+)?");

    static Scan scan(byte[] code) {
        if (!mayDiffer(code)) return new Scan(code, -1, 0, null, Map.of(), null, List.of());
        return new Scanner(code).run();
    }

    /** One pass over the code, copying it to out with the edits luaj needs. */
    private static final class Scanner {
        final byte[] s;
        final int n;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int from, stray = -1, strayLength;
        String lexError;
        final Map<Integer, String> hexNumerals = new HashMap<>();
        MisplacedBreak misplacedBreak;
        /** Whether a statement may start at the next token: at the start, after a ';', a block's opening or a function's parameters. */
        boolean statementStart = true;
        /** Between the word function and the ')' that ends its parameters. */
        boolean functionHeader;
        /** Whether the last token may end a prefix expression (a name, ')', ']', '}', a string), and where it ends. */
        boolean prefixEnds;
        int prefixEnd;
        /** Whether a table constructor's field starts at the next token, and whether the last token was its name. */
        boolean fieldStart, lookedPast;
        /** The brackets open where the scan is: '(', '[', '{'. */
        byte[] brackets = new byte[16];
        int depth;
        /** Where a '(' follows such a token on a later line (see {@link AmbiguousCalls}), the first few. */
        final List<Integer> callsOnNewLines = new ArrayList<>();

        Scanner(byte[] s) {
            this.s = s;
            this.n = s.length;
        }

        Scan run() {
            int i = 0;
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
                    statementStart = false;
                    if (level < 0) opened('[');
                    ended(level >= 0, i);
                } else if (c == '"' || c == '\'') {
                    i = afterString(i);
                    if (i < 0) break;
                    statementStart = false;
                    ended(true, i);
                } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(s[i + 1]))) {
                    i = afterNumeral(i);
                    statementStart = false;
                    ended(false, i);
                } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
                    replace(i, i + 2, new byte[] {':', ' ', ':'});
                    i += 2;
                    statementStart = false;
                    ended(false, i);
                } else if (isLetter(c) || c == '_') {
                    int start = i;
                    while (i < n && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_')) i++;
                    if (isWord(s, start, i, "break")) noteBreak(i);
                    functionHeader |= isWord(s, start, i, "function");
                    statementStart = opensBlock(s, start, i);
                    boolean name = !KEYWORDS.contains(new String(s, start, i - start, StandardCharsets.ISO_8859_1));
                    boolean fieldName = name && fieldStart;
                    ended(name, i);
                    // The constructor looks ahead past a field's first name (luaX_lookahead), which
                    // leaves Lua 5.1's lastline on the line of what follows it: no ambiguity there.
                    lookedPast = fieldName;
                } else {
                    if (isStray(c)) stopsAt(i, 1, null);
                    if (c == ';') {
                        // Lua 5.1 has no empty statement: a ';' only ends the statement before it.
                        if (statementStart) stopsAt(i, 1, null);
                        statementStart = true;
                    } else if (c == ')' && functionHeader) {
                        functionHeader = false;
                        statementStart = true;
                    } else if (!isSpace(c)) {
                        statementStart = false;
                    }
                    if (c == '(' && prefixEnds && !lookedPast && callsOnNewLines.size() < 8 && hasLineBreak(s, prefixEnd, i)) {
                        callsOnNewLines.add(out.size() + (i - from));
                    }
                    i++;
                    if (c == '(' || c == '{') opened(c);
                    if (c == ')' || c == ']' || c == '}') closed();
                    if (!isSpace(c)) ended(c == ')' || c == ']' || c == '}', i);
                    // A table's field starts after its '{', ',' or ';'.
                    if (c == '{' || ((c == ',' || c == ';') && depth > 0 && brackets[depth - 1] == '{')) fieldStart = true;
                }
            }
            out.write(s, from, n - from);
            return new Scan(out.toByteArray(), stray, strayLength, lexError, hexNumerals, misplacedBreak, callsOnNewLines);
        }

        /** A token ended at end: one that may end a prefix expression or not. */
        void ended(boolean endsPrefix, int end) {
            prefixEnds = endsPrefix;
            prefixEnd = end;
            fieldStart = false;
            lookedPast = false;
        }

        void opened(int bracket) {
            if (depth == brackets.length) brackets = Arrays.copyOf(brackets, depth * 2);
            brackets[depth++] = (byte) bracket;
        }

        void closed() {
            if (depth > 0) depth--;
        }

        /** The first break (ending at end) that a ';' and then the end of its block do not follow. */
        void noteBreak(int end) {
            if (misplacedBreak != null) return;
            int next = afterSpace(s, end);
            boolean semicolon = next < n && s[next] == ';';
            if (semicolon) next = afterSpace(s, next + 1);
            if (next >= n || endsBlock(s, next)) return;
            misplacedBreak = new MisplacedBreak(out.size() + (end - from), semicolon);
        }

        /** The bytes start..end are given to luaj as with instead. */
        void replace(int start, int end, byte[] with) {
            out.write(s, from, start - from);
            out.writeBytes(with);
            from = end;
        }

        /** Lua 5.1 stops at the length bytes at i (the first place only counts). */
        void stopsAt(int i, int length, String error) {
            if (stray >= 0) return;
            stray = out.size() + (i - from);
            strayLength = length;
            lexError = error;
        }

        /** Just after the short string opening at i (read_string), or -1 if a line or the code ends first. */
        int afterString(int i) {
            byte quote = s[i++];
            while (i < n && s[i] != quote) {
                if (isLineBreak(s[i])) return -1;
                if (s[i] != '\\') {
                    i++;
                } else if (i + 2 < n && isLineBreak(s[i + 1]) && isLineBreak(s[i + 2]) && s[i + 1] != s[i + 2]) {
                    i += 3; // an escaped \r\n or \n\r is one line break (inclinenumber)
                } else {
                    if (i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'z')) replace(i, i + 1, new byte[0]);
                    i += 2;
                }
            }
            return i < n ? i + 1 : -1;
        }

        /**
         * Just after the numeral starting at i, as read_numeral reads it: digits and points, an
         * 'E' (or NUL) and a sign (or NUL), letters, digits and '_'. From a NUL on, the numeral's
         * bytes become spaces: Lua 5.1 reads the number up to there.
         */
        int afterNumeral(int start) {
            int i = start, nul = -1;
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
            int end = nul < 0 ? i : nul;
            String text = new String(s, start, end - start, StandardCharsets.ISO_8859_1);
            if (HEX.matcher(text).matches()) {
                // A space after it: "0xA.8" is 10 and then ".8", not "10.8".
                byte[] decimal = (decimal(text) + " ").getBytes(StandardCharsets.ISO_8859_1);
                byte[] padded = Arrays.copyOf(decimal, decimal.length + i - end);
                Arrays.fill(padded, decimal.length, padded.length, (byte) ' ');
                hexNumerals.put(out.size() + start - from, text);
                replace(start, i, padded);
            } else if (!DECIMAL.matcher(text).matches()) {
                stopsAt(start, end - start, "malformed number near '" + text + "'");
            } else if (nul >= 0) {
                byte[] spaces = new byte[i - nul];
                Arrays.fill(spaces, (byte) ' ');
                replace(nul, i, spaces);
            }
            return i;
        }
    }

    /** The words that end a block (block_follow), besides the end of the code. */
    private static final java.util.List<String> BLOCK_ENDS = java.util.List.of("end", "else", "elseif", "until");

    /** Lua 5.1's reserved words. */
    private static final Set<String> KEYWORDS = Set.of("and", "break", "do", "else", "elseif", "end", "false", "for", "function",
            "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while");

    /** Whether s[from..to) holds a line break. */
    private static boolean hasLineBreak(byte[] s, int from, int to) {
        for (int i = from; i < to; i++) if (isLineBreak(s[i])) return true;
        return false;
    }

    /** The words after which a block's statements start. */
    private static final java.util.List<String> OPENS_BLOCK = java.util.List.of("do", "then", "else", "repeat");

    /** Whether s[start..end) opens a block. */
    private static boolean opensBlock(byte[] s, int start, int end) {
        for (String word : OPENS_BLOCK) if (isWord(s, start, end, word)) return true;
        return false;
    }

    /** C's isspace. */
    private static boolean isSpace(byte c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
    }

    /** Whether the word at i ends a block. */
    private static boolean endsBlock(byte[] s, int i) {
        int end = wordEnd(s, i);
        for (String word : BLOCK_ENDS) if (isWord(s, i, end, word)) return true;
        return false;
    }

    /** Whether s[start..end) is word. */
    private static boolean isWord(byte[] s, int start, int end, String word) {
        if (end - start != word.length()) return false;
        for (int i = 0; i < word.length(); i++) if (s[start + i] != word.charAt(i)) return false;
        return true;
    }

    /** Just after the name starting at i (i itself if none does). */
    private static int wordEnd(byte[] s, int i) {
        while (i < s.length && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '_')) i++;
        return i;
    }

    /** The next token from i on: past C's isspace bytes and comments. */
    private static int afterSpace(byte[] s, int i) {
        while (i < s.length) {
            if (isSpace(s[i])) {
                i++;
            } else if (s[i] == '-' && i + 1 < s.length && s[i + 1] == '-') {
                i += 2;
                int level = longBracket(s, i);
                if (level >= 0) {
                    i = afterLongBracket(s, i + level + 2, level);
                } else {
                    while (i < s.length && !isLineBreak(s[i])) i++;
                }
            } else {
                break;
            }
        }
        return i;
    }

    /** A hex numeral's value as glibc's strtod reads it, in a decimal luaj reads back exactly. */
    private static String decimal(String hex) {
        boolean exponent = hex.indexOf('p') >= 0 || hex.indexOf('P') >= 0;
        double v = Double.parseDouble(exponent ? hex : hex + "p0");
        if (Double.isInfinite(v)) return "1e999";
        if (v == Math.rint(v) && Math.abs(v) < 0x1p53) return Long.toString((long) v);
        return Double.toString(v);
    }

    /**
     * Whether code has a control byte luaj skips, a backslash before an x or a z, a letter in a
     * numeral (a hex one among them), "::", "break", ';' or a '(' that opens a line.
     */
    private static boolean mayDiffer(byte[] s) {
        for (int i = 0; i < s.length; i++) {
            byte c = s[i];
            if (isStray(c) || c == ';' || (c == 'b' && i + 5 <= s.length && isWord(s, i, i + 5, "break"))) return true;
            if (c == '(' && opensLine(s, i)) return true;
            if (i + 1 < s.length && ((c == '\\' && (s[i + 1] == 'x' || s[i + 1] == 'z')) || (c == ':' && s[i + 1] == ':')
                    || (isDigit(c) && (isLetter(s[i + 1]) || s[i + 1] == '_') && (i == 0 || !isLetter(s[i - 1]) && s[i - 1] != '_')))) {
                return true;
            }
        }
        return false;
    }

    /** Whether only blanks come between the line break (or a long comment's end) before i and i. */
    private static boolean opensLine(byte[] s, int i) {
        int j = i - 1;
        while (j >= 0 && (s[j] == ' ' || s[j] == '\t')) j--;
        return j >= 0 && (isLineBreak(s[j]) || s[j] == ']');
    }

    /** A byte luaj skips as space and Lua 5.1 reads as a token. */
    private static boolean isStray(byte c) {
        return c >= 0 && c < ' ' && (c < '\t' || c > '\r');
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
