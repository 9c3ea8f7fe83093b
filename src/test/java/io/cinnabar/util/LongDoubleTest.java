package io.cinnabar.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Expected strings are what Redis 7.0.15 on x86-64 answers for the same INCRBYFLOAT calls. */
class LongDoubleTest {
    private static String sum(String... terms) {
        LongDouble v = LongDouble.ZERO;
        for (String t : terms) v = LongDouble.parse(LongDouble.parse(v.toHumanString()).add(LongDouble.parse(t)).toHumanString());
        return v.toHumanString();
    }

    @Test
    void decimalFractionsRoundTripThroughSeventeenDigits() {
        assertEquals("0.3", sum("0.1", "0.1", "0.1"));
        assertEquals("1.8", sum("1.5", "0.1", "0.2"));
        assertEquals("5.3", sum("10.5", "-5.2"));
        assertEquals("6.53456789012345679", sum("10.5", "-5.2", "1.23456789012345678901234"));
        assertEquals("-0.1", sum("1", "-1.1"));
    }

    @Test
    void sixtyFourBitMantissaShowsInLargeValues() {
        assertEquals("100000000000000000.296875", sum("0.3", "1e17"));
        assertEquals("123456789012345678899921813504", sum("123456789012345678901234567890"));
        assertEquals("230436365039710829002752", sum("230436365039710829001451"));
        assertEquals("17179869185.5", sum("17179869184", "1.5"));
    }

    @Test
    void zeroHasNoSign() {
        assertEquals("0", sum(String.valueOf(1.0 / 41), String.valueOf(-1.0 / 41)));
        assertEquals("0", sum("-0"));
        assertEquals("0", sum("-1e-30"));
    }

    @Test
    void hexAndExponentForms() {
        assertEquals("16.125", sum("0x10", "0x1p-3"));
        assertEquals("3000", sum("3.0e3"));
        assertEquals("0.5", sum(".5"));
        assertEquals("1", sum("1."));
        assertEquals("0", sum("1e-4930"), "a subnormal is accepted and prints as zero");
        assertEquals("0", sum("0e-99999"), "an exact zero never underflows");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " 1", "1 ", "abc", "nan", "-nan", "1e", "1e+", "0x", ".", "e5", "1e5000", "-1e5000",
            "1e-5000", "0x1p99999", "1\u00002", "1f", "1d", "+", "--1", "1.2.3", "0x1.8", "inf1"})
    void rejectsWhatString2ldRejects(String s) {
        if (s.equals("0x1.8")) {
            // strtold takes hex without an exponent too
            assertEquals("1.5", LongDouble.parse(s).toHumanString());
            return;
        }
        assertNull(LongDouble.parse(s), s);
    }

    @Test
    void infinitiesParseButCannotBeStored() {
        assertTrue(LongDouble.parse("+inf").isInfinite());
        assertTrue(LongDouble.parse("-Infinity").isInfinite());
        assertTrue(LongDouble.parse("inf").add(LongDouble.of(1)).isInfinite());
        assertNull(LongDouble.parse("inf").add(LongDouble.parse("-inf")), "NaN");
    }

    @Test
    void overflowOfASumIsInfinite() {
        LongDouble max = LongDouble.parse("1.1e4932");
        assertTrue(max.add(max).isInfinite());
    }
}
