package io.cinnabar.util;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Expected strings are C printf("%.17g") output (glibc). */
class DoubleFormatTest {
    @ParameterizedTest
    @CsvSource({
            "1.5, 1.5",
            "0.1, 0.10000000000000001",
            "1e20, 1e+20",
            "1e-5, 1.0000000000000001e-05",
            "123456789012345678, 1.2345678901234568e+17",
            "3, 3",
            "100, 100",
            "1e16, 10000000000000000",
            "1e17, 1e+17",
            "0.0001, 0.0001",
            "-2.5e-300, -2.5e-300",
            "1.7976931348623157e308, 1.7976931348623157e+308",
            "4.9e-324, 4.9406564584124654e-324",
            "12345.678, 12345.678",
            "-7.25, -7.25",
    })
    void g17(double d, String expected) {
        assertEquals(expected, DoubleFormat.g17(d));
        assertEquals(expected, DoubleFormat.reply(d));
    }

    @Test
    void zeroesKeepTheirSign() {
        assertEquals("0", DoubleFormat.g17(0.0));
        assertEquals("-0", DoubleFormat.g17(-0.0));
    }

    @Test
    void infinitiesAreSpelledLikeRedis() {
        assertEquals("inf", DoubleFormat.reply(Double.POSITIVE_INFINITY));
        assertEquals("-inf", DoubleFormat.reply(Double.NEGATIVE_INFINITY));
        assertEquals("inf", DoubleFormat.g17(Double.POSITIVE_INFINITY));
        assertEquals("-inf", DoubleFormat.g17(Double.NEGATIVE_INFINITY));
        assertEquals("nan", DoubleFormat.g17(Double.NaN));
    }
}
