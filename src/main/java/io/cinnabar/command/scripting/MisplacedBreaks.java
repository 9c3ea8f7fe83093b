package io.cinnabar.command.scripting;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Lua 5.1's error for a break that does not end its block ("for i=1,2 do break 5 end"): its
 * parser takes break as a block's last statement, as return, and then wants what closes the
 * block ("'end' expected near '5'", "'until' expected ...", "'end' expected (to close 'for' at
 * line 1) ..."), unless no loop holds the break ("no loop to break near '5'", found first).
 * luaj (Lua 5.2) reads on past such a break. So luaj is given a copy with a "return" after the
 * break, which luaj too wants last: it stops where Lua 5.1 does, with the same message, and
 * its pending breaks then tell whether a loop holds the break (see {@link PendingBreaks}).
 */
final class MisplacedBreaks {
    private MisplacedBreaks() {}

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

    /**
     * Where luaj stopped in copy (code with "return" inserted, up to after), in Lua 5.1's words:
     * past the break, with the break pending outside any loop and no such break before it,
     * "no loop to break" near what follows it; else as SyntaxErrors words any stop.
     */
    private static String explain(SyntaxErrors.Stop stop, Lua51Source.Scan code, Lua51Source.Scan copy, int after, String name)
            throws Throwable {
        Object ls = stop.lexState();
        int read = copy.source().length - ((InputStream) SyntaxErrors.Z.get(ls)).available();
        int loose = PendingBreaks.firstLoose(ls);
        if (read > after && loose >= 0 && loose == PendingBreaks.count(ls) - 1) {
            return SyntaxErrors.looseBreak(code, name, PendingBreaks.line(ls, loose), code.misplacedBreak().end());
        }
        return SyntaxErrors.explain(stop, copy, name);
    }
}
