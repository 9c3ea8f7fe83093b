package io.cinnabar.command.zsets;

import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.LexRange;
import io.cinnabar.keyspace.ScoreRange;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.util.Arrays;

/** Parsing of score ranges ("(1.5", "-inf") and lex ranges ("[a", "(a", "-", "+"), Redis's zslParse*Range. */
final class ZRanges {
    static final String NOT_FLOAT = "ERR min or max is not a float";
    static final String NOT_STRING_RANGE = "ERR min or max not valid string range item";

    private ZRanges() {}

    static ScoreRange score(byte[] min, byte[] max) {
        // strtod reads a C string and Redis checks that it stopped at its end: "(1\0x" is (1.
        min = upToNul(min);
        max = upToNul(max);
        boolean minEx = min.length > 0 && min[0] == '(';
        boolean maxEx = max.length > 0 && max[0] == '(';
        double lo = strtod(min, minEx ? 1 : 0);
        double hi = strtod(max, maxEx ? 1 : 0);
        if (Double.isNaN(lo) || Double.isNaN(hi)) throw new CommandError(NOT_FLOAT);
        return new ScoreRange(lo, minEx, hi, maxEx);
    }

    /** strtod with Redis's "whole string consumed" check: leading spaces ok, "" is 0, NaN for bad input. */
    private static double strtod(byte[] b, int from) {
        while (from < b.length && isSpace(b[from])) from++;
        if (from == b.length) return from == 0 || !isSpace(b[from - 1]) ? 0 : Double.NaN;
        return Numbers.strtod(from == 0 ? b : Arrays.copyOfRange(b, from, b.length));
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    static LexRange lex(byte[] min, byte[] max) {
        byte[] lo = lexItem(min), hi = lexItem(max);
        if (lo == null || hi == null) throw new CommandError(NOT_STRING_RANGE);
        return new LexRange(lo, min[0] != '[', hi, max[0] != '[');
    }

    /** The bytes before the first NUL: the argument itself when it has none, as nearly all do. */
    private static byte[] upToNul(byte[] b) {
        int n = BinaryText.cLength(b);
        return n == b.length ? b : Arrays.copyOf(b, n);
    }

    private static byte[] lexItem(byte[] b) {
        if (b.length == 0) return null;
        switch (b[0]) {
            // Redis tests c[1] != '\0': "+\0x" is "+". After '(' or '[' the item keeps its whole length.
            case '+': return b.length == 1 || b[1] == 0 ? LexRange.MAX : null;
            case '-': return b.length == 1 || b[1] == 0 ? LexRange.MIN : null;
            case '(':
            case '[': return Arrays.copyOfRange(b, 1, b.length);
            default: return null;
        }
    }
}
