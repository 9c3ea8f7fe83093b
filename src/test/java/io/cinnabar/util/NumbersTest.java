package io.cinnabar.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The digits written straight into bytes are Long.toString's. */
class NumbersTest {
    private static void check(long v) {
        assertArrayEquals(Long.toString(v).getBytes(StandardCharsets.US_ASCII), Numbers.toBytes(v), () -> Long.toString(v));
    }

    @Test
    void toBytesIsLongToStringAtEveryDigitCount() {
        for (long p = 1; p > 0; p *= 10) { // 10^0 .. 10^18, then the product overflows
            for (long v : new long[] {p - 1, p, p + 1}) {
                check(v);
                check(-v);
            }
        }
        check(Long.MAX_VALUE);
        check(Long.MIN_VALUE);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) check(random.nextLong() >> random.nextInt(64));
    }
}
