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

    /** Expected strings are glibc printf("%.2f") and ("%.6f") output. */
    @ParameterizedTest
    @CsvSource({
            "0.125, 2, 0.12",
            "0.375, 2, 0.38",
            "1.005, 2, 1.00",
            "2.675, 2, 2.67",
            "0.5, 0, 0",
            "1.5, 0, 2",
            "2.5, 0, 2",
            "99.995, 2, 100.00", // 99.9950000000000045...: above the tie
            "99.996, 2, 100.00",
            "-0.001, 2, -0.00",
            "0, 2, 0.00",
            "-1.25, 1, -1.2",
            "12.34, 6, 12.340000",
            "0.0000005, 6, 0.000000",
            "1e12, 2, 1000000000000.00",
            "123456.789, 2, 123456.79",
    })
    void fixed(double d, int digits, String expected) {
        assertEquals(expected, DoubleFormat.fixed(d, digits));
    }

    @Test
    void fixedMatchesTheExactValueRoundedHalfEven() {
        java.util.Random random = new java.util.Random(8);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 4) {
                case 0 -> random.nextDouble() * 100;
                case 1 -> random.nextInt(1_000_000) / 1000.0 + 0.0005; // near the 2-digit ties
                case 2 -> (random.nextLong() % 10_000_000_000L) / 8.0;  // exact ties in binary
                default -> random.nextGaussian() * 1e7;
            };
            for (int digits : new int[] {0, 2, 3, 6}) {
                String exact = new java.math.BigDecimal(d).setScale(digits, java.math.RoundingMode.HALF_EVEN).toPlainString();
                if (d < 0 && exact.charAt(0) != '-') exact = "-" + exact;
                assertEquals(exact, DoubleFormat.fixed(d, digits), d + " to " + digits + " digits");
            }
        }
    }

    /** human(double)'s long arithmetic against the exact BigDecimal rounding it stands in for. */
    @Test
    void humanMatchesTheExactRounding() {
        java.util.Random random = new java.util.Random(17);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 6) {
                case 0 -> (random.nextDouble() * 360 - 180);                        // longitudes
                case 1 -> Math.scalb(random.nextDouble(), random.nextInt(130) - 70); // any scale
                case 2 -> random.nextInt(1 << 20) * 0x1p-18 * (random.nextBoolean() ? 1 : -1); // ties at the 17th decimal
                case 3 -> random.nextInt(1000) + random.nextInt(1 << 10) * 0x1p-60;  // far below the 17th decimal
                case 4 -> Double.longBitsToDouble(random.nextLong() & 0x7FFF_FFFF_FFFF_FFFFL); // any bits
                default -> -random.nextDouble() * 1e-16;                            // negatives that round to 0
            };
            if (Double.isNaN(d) || Double.isInfinite(d)) continue;
            String exact = DoubleFormat.human(new java.math.BigDecimal(d), d < 0 || (d == 0 && 1 / d < 0));
            assertEquals(exact, DoubleFormat.human(d), () -> "human(" + d + ")");
        }
        assertEquals("0", DoubleFormat.human(-0.0));
        assertEquals("13.36138933897018433", DoubleFormat.human(13.36138933897018433));
    }
}
