package io.cinnabar.command.scripting;

import io.cinnabar.util.BinaryText;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LexState;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compiles Lua source, and words its syntax errors as Lua 5.1 does: "user_script:1: unexpected
 * symbol near '<eof>'" where luaj says "unexpected symbol 286 (Ğ)", "'=' expected near 'x'"
 * where luaj leaves out the token. luaj's parser knows the token but keeps it in its parser
 * state, which it drops as the error leaves; so a failed compile is run once more through
 * luaj's parser, driven here as luaj's own compiler drives it (through method handles: its
 * classes keep those parts package-private), to read the token it stopped at.
 */
final class SyntaxErrors {
    private SyntaxErrors() {}

    /** luaj's token codes: the end, the tokens whose text is what was just read, and break. */
    private static final int TK_EOS, TK_NUMBER, TK_STRING, TK_BREAK, TK_NAME;
    private static final int EOZ = -1;

    private static final MethodHandle NEW_COMPILE_STATE, NEW_LEX_STATE, NEW_FUNC_STATE, SET_INPUT, MAIN_FUNC, NEXT, TXT_TOKEN;
    /** luaj's parser's state, for MisplacedBreaks too: the function it compiles, the line and the input. */
    static final VarHandle FS, LINE, Z;
    private static final VarHandle FUNC_STATE_F, T, LOOKAHEAD, TOKEN, CURRENT;

    static {
        try {
            MethodHandles.Lookup lex = MethodHandles.privateLookupIn(LexState.class, MethodHandles.lookup());
            Class<?> compileState = Class.forName("org.luaj.vm2.compiler.LuaC$CompileState");
            Class<?> funcState = Class.forName("org.luaj.vm2.compiler.FuncState");
            Class<?> token = Class.forName("org.luaj.vm2.compiler.LexState$Token");
            NEW_COMPILE_STATE = MethodHandles.privateLookupIn(compileState, MethodHandles.lookup())
                    .findConstructor(compileState, MethodType.methodType(void.class));
            NEW_LEX_STATE = lex.findConstructor(LexState.class, MethodType.methodType(void.class, compileState, InputStream.class));
            MethodHandles.Lookup func = MethodHandles.privateLookupIn(funcState, MethodHandles.lookup());
            NEW_FUNC_STATE = func.findConstructor(funcState, MethodType.methodType(void.class));
            SET_INPUT = lex.findVirtual(LexState.class, "setinput",
                    MethodType.methodType(void.class, compileState, int.class, InputStream.class, LuaString.class));
            MAIN_FUNC = lex.findVirtual(LexState.class, "mainfunc", MethodType.methodType(void.class, funcState));
            NEXT = lex.findVirtual(LexState.class, "next", MethodType.methodType(void.class));
            TK_EOS = (int) lex.findStaticVarHandle(LexState.class, "TK_EOS", int.class).get();
            TK_NUMBER = (int) lex.findStaticVarHandle(LexState.class, "TK_NUMBER", int.class).get();
            TK_STRING = (int) lex.findStaticVarHandle(LexState.class, "TK_STRING", int.class).get();
            TK_BREAK = (int) lex.findStaticVarHandle(LexState.class, "TK_BREAK", int.class).get();
            TK_NAME = (int) lex.findStaticVarHandle(LexState.class, "TK_NAME", int.class).get();
            TXT_TOKEN = lex.findVirtual(LexState.class, "txtToken", MethodType.methodType(String.class, int.class));
            FS = lex.findVarHandle(LexState.class, "fs", funcState);
            FUNC_STATE_F = func.findVarHandle(funcState, "f", Prototype.class);
            T = lex.findVarHandle(LexState.class, "t", token);
            LOOKAHEAD = lex.findVarHandle(LexState.class, "lookahead", token);
            Z = lex.findVarHandle(LexState.class, "z", InputStream.class);
            TOKEN = MethodHandles.privateLookupIn(token, MethodHandles.lookup()).findVarHandle(token, "token", int.class);
            CURRENT = lex.findVarHandle(LexState.class, "current", int.class);
            LINE = lex.findVarHandle(LexState.class, "linenumber", int.class);
            // goto is a reserved word of Lua 5.2, a name like any other to Lua 5.1 ("local goto = 1",
            // t.goto): luaj's lexer looks words up in this table, and without it reads goto as a name.
            ((java.util.Hashtable<?, ?>) lex.findStaticVarHandle(LexState.class, "RESERVED", java.util.Hashtable.class).get())
                    .remove(LuaValue.valueOf("goto"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Compiles code as chunk name ("@user_script", "=name", or the text for loadstring's [string "..."]). */
    static LuaValue load(Globals g, byte[] code, String name, LuaValue environment) {
        Lua51Source.Scan scan = Lua51Source.scan(code);
        code = scan.source();
        // What Lua 5.1 stops at and luaj does not, the first first.
        Lua51Source.MisplacedBreak misplaced = scan.misplacedBreak();
        int strayAt = scan.stray() >= 0 ? scan.stray() : Integer.MAX_VALUE;
        int breakAt = misplaced != null ? misplaced.end() : Integer.MAX_VALUE;
        String error = scan.callsOnNewLines().isEmpty() ? null : AmbiguousCalls.error(scan, name, Math.min(strayAt, breakAt));
        if (error == null && strayAt < breakAt) error = strayError(scan, name);
        if (error == null && misplaced != null) error = MisplacedBreaks.error(scan, name);
        if (error != null) throw new LuaError(error);
        try {
            return g.load(new ByteArrayInputStream(code), name, "t", environment);
        } catch (LuaError | NumberFormatException e) {
            String lua51 = lua51(scan, name);
            if (lua51 == null) throw e instanceof LuaError l ? l : new LuaError(e.getMessage());
            throw new LuaError(lua51);
        }
    }

    /** Stand-ins for what Lua 5.1 stops at: no token of Lua 5.1 or 5.2, so luaj stops at them too. */
    private static final byte[] MARKERS = {'$', '@', '`', '!', '?'};

    /**
     * Lua 5.1's error where its lexer meets what luaj reads otherwise (see {@link Lua51Source}):
     * that is replaced by a byte luaj stops at too, and luaj's error for this copy, in Lua 5.1's
     * words, becomes the lexer's own error (a malformed numeral) or is named after the control
     * byte ("'<eof>' expected near 'char(1)'"; NUL has no text, hence no "near"). Null when the
     * copy compiles all the same.
     */
    private static String strayError(Lua51Source.Scan scan, String name) {
        Marked marked = markStray(scan);
        if (marked == null) return null;
        String error = lua51(marked.copy(), name);
        return error == null ? null : unmark(error, scan, marked.marker(), name);
    }

    /** A copy of scanned code with a marker in place of its stray bytes. */
    record Marked(Lua51Source.Scan copy, byte marker) {}

    /** scan's code with a marker that it does not hold in place of its stray bytes; null if it holds them all. */
    static Marked markStray(Lua51Source.Scan scan) {
        byte[] code = scan.source();
        int at = scan.stray();
        byte marker = freeMarker(code);
        if (marker == 0) return null;
        byte[] copy = code.clone();
        java.util.Arrays.fill(copy, at, at + scan.strayLength(), (byte) ' ');
        copy[at] = marker;
        return new Marked(scan.of(copy), marker);
    }

    /** One of MARKERS that code does not hold, or 0. */
    private static byte freeMarker(byte[] code) {
        for (byte marker : MARKERS) if (indexOf(code, marker) < 0) return marker;
        return 0;
    }

    /** luaj's error for code marked by markStray, as Lua 5.1's for scan's code. */
    static String unmark(String error, Lua51Source.Scan scan, byte marker, String name) {
        String near = " near '" + (char) marker + "'";
        // Stopped before it: the error is the copy's and the code's alike.
        if (!error.endsWith(near)) return error;
        if (scan.lexError() != null) {
            // The position ("chunk:line: ") the parser's error starts with, then the lexer's error.
            String chunk = LuaErrors.chunkId(name, 80) + ":";
            return error.substring(0, error.indexOf(": ", chunk.length()) + 2) + scan.lexError();
        }
        int c = scan.source()[scan.stray()];
        String named = c == ';' ? " near ';'" : c == 0 ? "" : " near 'char(" + c + ")'";
        return error.substring(0, error.length() - near.length()) + named;
    }

    private static int indexOf(byte[] s, byte b) {
        for (int i = 0; i < s.length; i++) if (s[i] == b) return i;
        return -1;
    }

    /** luaj's parser's own messages that Lua 5.1 words differently. */
    private static final Pattern UNEXPECTED = Pattern.compile("^unexpected symbol -?\\d+ \\(.*\\)$", Pattern.DOTALL);
    private static final Pattern LUAJ_POSITION = Pattern.compile(":\\d+: ");
    private static final Pattern LOOSE_BREAK = Pattern.compile("^no visible label 'break' for <goto> at line (\\d+)$");

    /** The error Lua 5.1 gives for code that luaj failed to compile, or null if luaj's parser does not fail again. */
    private static String lua51(Lua51Source.Scan source, String name) {
        try {
            Stop stop = parse(source.source(), name);
            return stop == null ? null : explain(stop, source, name);
        } catch (Throwable unexpected) {
            return null;
        }
    }

    /** Where luaj's parser stopped (its LexState) and why. */
    record Stop(Object lexState, RuntimeException error) {}

    /** luaj's parser run over code as its compiler runs it: null if it compiles, else where and why it stopped. */
    static Stop parse(byte[] code, String name) throws Throwable {
        Object fs = NEW_FUNC_STATE.invoke();
        Object ls = lexer(code, name, fs);
        Prototype f = new Prototype();
        f.source = LuaValue.valueOf(name);
        FUNC_STATE_F.set(fs, f);
        try {
            MAIN_FUNC.invoke(ls, fs);
            return null;
        } catch (LuaError | NumberFormatException e) {
            return new Stop(ls, e);
        }
    }

    /** luaj's stop in Lua 5.1's words. */
    static String explain(Stop stop, Lua51Source.Scan source, String name) throws Throwable {
        Object ls = stop.lexState();
        if (stop.error() instanceof NumberFormatException && PendingBreaks.firstLoose(ls) < 0) {
            // luaj reads a numeral such as "1..2" with Java's parser, which throws.
            return where(name, ls) + "malformed number near '" + numeral(near(TK_NUMBER, ls, source)) + "'";
        }
        String msg = message(stop.error().getMessage());
        Matcher loose = LOOSE_BREAK.matcher(msg);
        if (loose.matches()) return looseBreak(source, name, Integer.parseInt(loose.group(1)));
        // A break outside any loop before where luaj stopped: Lua 5.1 stopped there.
        int pending = PendingBreaks.firstLoose(ls);
        if (pending >= 0) return looseBreak(source, name, PendingBreaks.line(ls, pending));
        return where(name, ls) + words(msg, ls, source, name);
    }

    /** luaj's lexer at the start of code, for the function fs. */
    static Object lexer(byte[] code, String name, Object fs) throws Throwable {
        InputStream in = new ByteArrayInputStream(code);
        Object cs = NEW_COMPILE_STATE.invoke();
        Object ls = NEW_LEX_STATE.invoke(cs, in);
        FS.set(ls, fs);
        SET_INPUT.invoke(ls, cs, in.read(), in, LuaValue.valueOf(name));
        return ls;
    }

    /**
     * Lua 5.2's break is a goto, found unmatched as its block ends; Lua 5.1 fails right at the
     * break, near the token after it: that of the first break on the line luaj names.
     */
    private static String looseBreak(Lua51Source.Scan source, String name, int line) throws Throwable {
        return looseBreak(source, name, line, -1);
    }

    /** As above, the break being the one that ends at end in the source (-1: the line's first). */
    static String looseBreak(Lua51Source.Scan source, String name, int line, int end) throws Throwable {
        Object ls = lexer(source.source(), name, NEW_FUNC_STATE.invoke());
        int token;
        do {
            NEXT.invoke(ls);
            token = (int) TOKEN.get(T.get(ls));
        } while (token != TK_EOS && !(token == TK_BREAK && (int) LINE.get(ls) == line
                && (end < 0 || numeralEnd(ls, source.source()) == end)));
        if (token == TK_BREAK) {
            NEXT.invoke(ls);
            token = (int) TOKEN.get(T.get(ls));
        }
        return where(name, ls) + "no loop to break near '" + near(token, ls, source) + "'";
    }

    /**
     * A statement that is no call: Lua 5.1 (exprstat) reads it as an assignment, so after a name or an
     * index ("x y", "a.b c", "t[1] 2") it wants the '=' ("'=' expected near 'y'"); luaj, like Lua 5.2,
     * calls it a "syntax error". True when luaj stopped so: at a token that is neither '=' nor ',',
     * just after a name or a ']' (the lexer is run again to the same place to find that token).
     */
    private static boolean wantsAssignment(byte[] code, String name, Object ls) throws Throwable {
        int token = (int) TOKEN.get(T.get(ls));
        if (token == '=' || token == ',' || (int) TOKEN.get(LOOKAHEAD.get(ls)) != TK_EOS) return false;
        int stop = code.length - ((InputStream) Z.get(ls)).available();
        Object again = lexer(code, name, NEW_FUNC_STATE.invoke());
        InputStream in = (InputStream) Z.get(again);
        int previous = TK_EOS;
        while (true) {
            NEXT.invoke(again);
            int t = (int) TOKEN.get(T.get(again));
            int at = code.length - in.available();
            if (at == stop && t == token) return previous == TK_NAME || previous == ']';
            if (t == TK_EOS || at > stop) return false;
            previous = t;
        }
    }

    /**
     * After a call, Lua 5.1's statement is over (exprstat), so a '=' or ',' there starts the next
     * one: "unexpected symbol near '='"; luaj, as Lua 5.2, reads on into an assignment and finds the
     * call no variable: "syntax error". True when luaj, given the code with the token it stopped
     * at replaced by a byte no rule takes, stops there as at a statement's start.
     */
    private static boolean followsCall(byte[] code, String name, Object ls) throws Throwable {
        int at = numeralEnd(ls, code) - 1;
        byte marker = freeMarker(code);
        if (marker == 0 || at < 0) return false;
        byte[] copy = code.clone();
        copy[at] = marker;
        Stop stop = parse(copy, name);
        return stop != null && stop.error() instanceof LuaError && message(stop.error().getMessage()).startsWith("unexpected symbol")
                && numeralEnd(stop.lexState(), copy) - 1 == at;
    }

    private static final Pattern UNCLOSED_PAREN = Pattern.compile("^'\\)' expected \\(to close '\\(' at line \\d+\\)$");

    /**
     * luaj's funcargs names the line where the called expression starts in "(to close '(' at line
     * N)"; Lua 5.1's the line of the '(' itself, and says only "')' expected" when that is the line
     * it stopped on. That '(' is the innermost one still open where luaj stopped (the lexer is run
     * again up to there).
     */
    private static String unclosedParen(byte[] code, String name, Object ls) throws Throwable {
        int stop = (int) TOKEN.get(T.get(ls)) == TK_EOS ? Integer.MAX_VALUE : numeralEnd(ls, code), stopLine = (int) LINE.get(ls);
        Object again = lexer(code, name, NEW_FUNC_STATE.invoke());
        java.util.ArrayDeque<Integer> open = new java.util.ArrayDeque<>();
        while (true) {
            NEXT.invoke(again);
            int t = (int) TOKEN.get(T.get(again));
            if (t == TK_EOS || numeralEnd(again, code) >= stop) break;
            if (t == '(') open.push((int) LINE.get(again));
            if (t == ')' && !open.isEmpty()) open.pop();
        }
        if (open.isEmpty() || open.peek() == stopLine) return "')' expected";
        return "')' expected (to close '(' at line " + open.peek() + ")";
    }

    /** The token luaj's parser is at. */
    static int token(Object ls) {
        return (int) TOKEN.get(T.get(ls));
    }

    private static String where(String name, Object ls) {
        return LuaErrors.chunkId(name, 80) + ":" + (int) LINE.get(ls) + ": ";
    }

    /** Where in code the token luaj just read ends: its lexer has read one byte past it (current), unless the code ended. */
    static int numeralEnd(Object ls, byte[] code) throws Throwable {
        int read = code.length - ((InputStream) Z.get(ls)).available();
        return (int) CURRENT.get(ls) == EOZ ? code.length : read - 1;
    }

    /** luaj's message without its "chunk:line: " (which is luaj's chunk naming, not Lua 5.1's). */
    private static String message(String luaj) {
        String m = String.valueOf(luaj);
        Matcher at = LUAJ_POSITION.matcher(m);
        return at.find() ? m.substring(at.end()) : m;
    }

    /** The message in Lua 5.1's words and with the token it was near, as luaX_lexerror writes it. */
    private static String words(String msg, Object ls, Lua51Source.Scan source, String name) throws Throwable {
        int token = (int) TOKEN.get(T.get(ls));
        if (UNEXPECTED.matcher(msg).matches()) msg = "unexpected symbol";
        if (msg.equals("syntax error") && wantsAssignment(source.source(), name, ls)) msg = "'=' expected";
        if (msg.equals("syntax error") && (token == '=' || token == ',') && followsCall(source.source(), name, ls)) msg = "unexpected symbol";
        if (UNCLOSED_PAREN.matcher(msg).matches()) msg = unclosedParen(source.source(), name, ls);
        msg = msg.replace("'<eos>'", "'<eof>'");
        // The lexer's own errors name the token it was reading, not the parser's current one.
        switch (msg) {
            case "unfinished string" -> token = (int) CURRENT.get(ls) == EOZ ? TK_EOS : TK_STRING;
            case "unfinished long string", "unfinished long comment" -> token = TK_EOS;
            case "malformed number" -> token = TK_NUMBER;
            case "invalid escape sequence", "escape sequence too large", "invalid long string delimiter", "hexadecimal digit expected",
                 "decimal escape too large" -> token = TK_STRING;
            case "lexical element too long" -> token = 0;
            default -> { }
        }
        if (token == 0 || msg.contains(" has more than ") || msg.startsWith("too many ")) return msg;
        return msg + " near '" + near(token, ls, source) + "'";
    }

    /** The numeral at the start of text (luaj's buffer holds more after it when its reader throws). */
    private static String numeral(String text) {
        int end = 0;
        while (end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || ".+-_".indexOf(text.charAt(end)) >= 0)) end++;
        return text.substring(0, end);
    }

    /**
     * luaX_token2str, or the text just read for a name, number or string (txtToken); a number as
     * the script wrote it (see {@link Lua51Source.Scan#asWritten}).
     */
    private static String near(int token, Object ls, Lua51Source.Scan source) throws Throwable {
        if (token == TK_EOS) return "<eof>";
        // luaX_token2str writes a control byte (C's iscntrl) as its number; luaj's stops at 31.
        if (token == 127) return "char(127)";
        String text = (String) TXT_TOKEN.invoke(ls, token);
        // luaj's buffer may hold the NUL its number reader ends the text with; C stops there.
        int nul = text.indexOf('\0');
        if (nul >= 0) text = text.substring(0, nul);
        if (token == TK_NUMBER) text = source.asWritten(text, numeralEnd(ls, source.source()));
        // Its chars are the script's bytes, one each.
        return BinaryText.decode(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
