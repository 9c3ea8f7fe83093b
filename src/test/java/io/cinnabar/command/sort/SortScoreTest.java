package io.cinnabar.command.sort;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SORT reads weights with bare strtod; these are glibc's answers (checked with a C program). */
class SortScoreTest {
    private static double score(String s) {
        return SortCommands.sortScore(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static void bad(String s) {
        assertTrue(Double.isNaN(score(s)), s);
    }

    @Test
    void acceptsWhatStrtodConsumesWhole() {
        assertEquals(0, score(""));
        assertEquals(5, score(" \t5"));
        assertEquals(16, score("0x10"));
        assertEquals(1.5, score("1.5"));
        assertEquals(Double.NEGATIVE_INFINITY, score("-inf"));
        assertEquals(Double.POSITIVE_INFINITY, score("Infinity"));
        assertEquals(1e308, score("1e308"));
        assertEquals(0, score("0e-400"));
        assertEquals(Double.MIN_VALUE, score("0x1p-1074"), "exact hex subnormal: no ERANGE");
        assertEquals(7, score("7\0junk"), "strtod stops at NUL, which Redis takes for the end");
    }

    @Test
    void rejectsJunkNanAndErange() {
        bad(" ");
        bad("5 ");
        bad("abc");
        bad("1e");
        bad("nan");
        bad("1e309");
        bad("0x1p1024");
        bad("1e-400");
        bad("1e-310");
    }
}
