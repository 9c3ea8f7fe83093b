package io.cinnabar.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoundedTrigTest {
    private static final MathContext MC = new MathContext(60);

    /** sin by its series in 60 digits: the reference the doubles are rounded from. */
    private static BigDecimal sin(BigDecimal x) {
        BigDecimal x2 = x.multiply(x, MC), term = x, sum = x;
        for (int n = 1; term.abs().compareTo(new BigDecimal("1e-58")) > 0; n++) {
            term = term.multiply(x2, MC).divide(BigDecimal.valueOf(-(2L * n) * (2L * n + 1)), MC);
            sum = sum.add(term, MC);
        }
        return sum;
    }

    private static BigDecimal cos(BigDecimal x) {
        BigDecimal x2 = x.multiply(x, MC), term = BigDecimal.ONE, sum = BigDecimal.ONE;
        for (int n = 1; term.abs().compareTo(new BigDecimal("1e-58")) > 0; n++) {
            term = term.multiply(x2, MC).divide(BigDecimal.valueOf(-(2L * n - 1) * (2L * n)), MC);
            sum = sum.add(term, MC);
        }
        return sum;
    }

    /** d is the double nearest to exact: exact lies within half an ulp of d. */
    private static void assertNearest(BigDecimal exact, double d, String what) {
        BigDecimal halfUlp = new BigDecimal(Math.ulp(d)).divide(BigDecimal.valueOf(2), MC);
        assertTrue(exact.subtract(new BigDecimal(d), MC).abs().compareTo(halfUlp) <= 0, what + " = " + d + ", exactly " + exact);
    }

    @Test
    void sinAndCosAreTheNearestDoubles() {
        Random random = new Random(11);
        for (int i = 0; i < 3000; i++) {
            double x = (random.nextDouble() * 2 - 1) * (i % 3 == 0 ? 1e-4 : i % 3 == 1 ? Math.PI : 40);
            BigDecimal bx = new BigDecimal(x);
            assertNearest(sin(bx), RoundedTrig.sin(x), "sin(" + x + ")");
            assertNearest(cos(bx), RoundedTrig.cos(x), "cos(" + x + ")");
        }
    }

    @Test
    void asinIsTheNearestDouble() {
        Random random = new Random(12);
        for (int i = 0; i < 3000; i++) {
            double x = Math.sqrt(random.nextDouble() * (i % 2 == 0 ? 1 : 1e-6)) * (i % 5 == 0 ? -1 : 1);
            double y = RoundedTrig.asin(x);
            // sin rises on [-pi/2, pi/2]: x lies between the sines of y's neighbours' midpoints.
            BigDecimal halfUlp = new BigDecimal(Math.ulp(y)).divide(BigDecimal.valueOf(2), MC);
            BigDecimal by = new BigDecimal(y), bx = new BigDecimal(x);
            assertTrue(sin(by.subtract(halfUlp)).compareTo(bx) <= 0 && sin(by.add(halfUlp)).compareTo(bx) >= 0,
                    "asin(" + x + ") = " + y);
        }
    }

    /** Inputs where StrictMath's result is an ulp away from glibc's (libm of Debian 12), and these agree. */
    @ParameterizedTest
    @CsvSource({
            "sin, bfe57b1238583d1e, bfe3e74a0cd540bd",
            "sin, 3fe648f082d932ff, 3fe486dd551d383f",
            "cos, bff69800b8987d7c, 3fc43a092d7fcbdb",
            "cos, 3fe43ed94c0ffd70, 3fe9ce712a593f93",
            "asin, 3fec2c5050baeea7, 3ff13a43cc5430dd",
            "asin, 3fe173228017fd00, 3fe274c16723f397",
    })
    void agreesWithGlibc(String function, String inputBits, String glibcBits) {
        double x = Double.longBitsToDouble(Long.parseUnsignedLong(inputBits, 16));
        double y = switch (function) {
            case "sin" -> RoundedTrig.sin(x);
            case "cos" -> RoundedTrig.cos(x);
            default -> RoundedTrig.asin(x);
        };
        assertEquals(glibcBits, Long.toHexString(Double.doubleToRawLongBits(y)));
    }

    @Test
    void edges() {
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(RoundedTrig.sin(-0.0)));
        assertEquals(1.0, RoundedTrig.cos(0.0));
        assertEquals(StrictMath.asin(1.0), RoundedTrig.asin(1.0));
        assertTrue(Double.isNaN(RoundedTrig.asin(1.5)));
        assertTrue(Double.isNaN(RoundedTrig.sin(Double.POSITIVE_INFINITY)));
        assertEquals(StrictMath.sin(1e6), RoundedTrig.sin(1e6));
    }
}
