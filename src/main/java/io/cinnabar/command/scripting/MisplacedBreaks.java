package io.cinnabar.command.scripting;

import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * Lua 5.1's error for a break that does not end its block ("for i=1,2 do break 5 end"): its
 * parser takes break as a block's last statement, as return, and then wants what closes the
 * block ("'end' expected near '5'", "'until' expected ...", "'end' expected (to close 'for' at
 * line 1) ..."), unless no loop holds the break ("no loop to break near '5'", found first).
 * luaj (Lua 5.2) reads on past such a break. So luaj is given a copy with a "return" after the
 * break, which luaj too wants last: it stops where Lua 5.1 does, with the same message, and
 * the blocks it is in then tell whether a loop holds the break.
 */
final class MisplacedBreaks {
    private MisplacedBreaks() {}

    private static final VarHandle FUNC_STATE_BL, PREVIOUS, IS_LOOP, FIRST_GOTO, DYD, GOTOS, GOTO_COUNT, GOTO_LINE;

    static {
        try {
            Class<?> funcState = Class.forName("org.luaj.vm2.compiler.FuncState");
            Class<?> block = Class.forName("org.luaj.vm2.compiler.FuncState$BlockCnt");
            Class<?> lexState = Class.forName("org.luaj.vm2.compiler.LexState");
            Class<?> dyndata = Class.forName("org.luaj.vm2.compiler.LexState$Dyndata");
            Class<?> label = Class.forName("org.luaj.vm2.compiler.LexState$Labeldesc");
            FUNC_STATE_BL = MethodHandles.privateLookupIn(funcState, MethodHandles.lookup()).findVarHandle(funcState, "bl", block);
            MethodHandles.Lookup blocks = MethodHandles.privateLookupIn(block, MethodHandles.lookup());
            PREVIOUS = blocks.findVarHandle(block, "previous", block);
            IS_LOOP = blocks.findVarHandle(block, "isloop", boolean.class);
            FIRST_GOTO = blocks.findVarHandle(block, "firstgoto", short.class);
            DYD = MethodHandles.privateLookupIn(lexState, MethodHandles.lookup()).findVarHandle(lexState, "dyd", dyndata);
            MethodHandles.Lookup dyd = MethodHandles.privateLookupIn(dyndata, MethodHandles.lookup());
            GOTOS = dyd.findVarHandle(dyndata, "gt", label.arrayType());
            GOTO_COUNT = dyd.findVarHandle(dyndata, "n_gt", int.class);
            GOTO_LINE = MethodHandles.privateLookupIn(label, MethodHandles.lookup()).findVarHandle(label, "line", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The error for scan's misplaced break, or for what luaj stops at before it; null if luaj does
     * not stop. A stray byte after the break (the scan's first comes after it) is marked as for
     * SyntaxErrors' own stray errors: Lua 5.1 may stop there ("'end' expected near 'char(1)'").
     */
    static String error(Lua51Source.Scan scan, String name) {
        Lua51Source.MisplacedBreak misplaced = scan.misplacedBreak();
        SyntaxErrors.Marked marked = scan.stray() >= 0 ? SyntaxErrors.markStray(scan) : null;
        Lua51Source.Scan code = marked == null ? scan : marked.copy();
        // "break return; 5": luaj's return takes no values and the ';', Lua 5.1's break the ';' the code may have.
        byte[] inserted = (misplaced.semicolon() ? " return" : " return;").getBytes(StandardCharsets.ISO_8859_1);
        Lua51Source.Scan copy = code.inserting(misplaced.end(), inserted);
        try {
            SyntaxErrors.Stop stop = SyntaxErrors.parse(copy.source(), name);
            if (stop == null) return null;
            String error = explain(stop, code, copy, misplaced.end() + inserted.length, name);
            return marked == null ? error : SyntaxErrors.unmark(error, scan, marked.marker(), name);
        } catch (Throwable unexpected) {
            return null;
        }
    }

    /** Where luaj stopped in copy (code with "return" inserted, up to after), in Lua 5.1's words. */
    private static String explain(SyntaxErrors.Stop stop, Lua51Source.Scan code, Lua51Source.Scan copy, int after, String name)
            throws Throwable {
        Object ls = stop.lexState();
        int read = copy.source().length - ((InputStream) SyntaxErrors.Z.get(ls)).available();
        if (read <= after || inLoop(ls)) return SyntaxErrors.explain(stop, copy, name);
        // No loop holds the break: Lua 5.1 stopped at the function's first such break, this one or an earlier one.
        Object dyd = DYD.get(ls);
        int pending = (int) GOTO_COUNT.get(dyd);
        int first = firstPendingBreak(ls);
        int line = (int) GOTO_LINE.get(((Object[]) GOTOS.get(dyd))[first]);
        Lua51Source.MisplacedBreak misplaced = code.misplacedBreak();
        return SyntaxErrors.looseBreak(code, name, line, first == pending - 1 ? misplaced.end() : -1);
    }

    /** Whether a loop of the function being compiled holds the parser where it stopped. */
    private static boolean inLoop(Object ls) {
        for (Object bl = FUNC_STATE_BL.get(SyntaxErrors.FS.get(ls)); bl != null; bl = PREVIOUS.get(bl)) {
            if ((boolean) IS_LOOP.get(bl)) return true;
        }
        return false;
    }

    /**
     * The index among luaj's pending gotos of the function's first break still waiting for its
     * loop: no loop holds the parser, so every pending one is outside any loop (goto is no keyword
     * here: every goto is a break). This break itself is the last.
     */
    private static int firstPendingBreak(Object ls) {
        Object outermost = FUNC_STATE_BL.get(SyntaxErrors.FS.get(ls));
        for (Object bl = outermost; bl != null; bl = PREVIOUS.get(bl)) outermost = bl;
        return (short) FIRST_GOTO.get(outermost);
    }
}
