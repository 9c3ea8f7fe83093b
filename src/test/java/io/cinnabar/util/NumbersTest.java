package io.cinnabar.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The digits written straight into bytes are Long.toString's. */
class NumbersTest {
    private static void check(long v) {
        byte[] expected = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(expected, Numbers.toBytes(v), () -> Long.toString(v));
        assertEquals(expected.length, Numbers.decimalLength(v));
        byte[] into = new byte[expected.length + 4];
        assertEquals(3, Numbers.writeDecimal(into, expected.length + 3, v), "where the digits start");
        assertArrayEquals(expected, Arrays.copyOfRange(into, 3, expected.length + 3));
        long[] parsed = new long[1];
        assertTrue(Numbers.parseLong(expected, 0, expected.length, parsed));
        assertEquals(v, parsed[0]);
    }

    /** What Redis's string2ll accepts: no sign alone, no '+', no leading zero, no space, within 64 bits. */
    private static Long redisParse(String s) {
        if (!s.matches("0|-?[1-9][0-9]*")) return null;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException tooBig) {
            return null;
        }
    }

    @Test
    void parseLongAcceptsWhatRedisDoesAtEveryLength() {
        SplittableRandom random = new SplittableRandom(7);
        String[] pieces = {"0", "1", "9", "-", "+", " ", "a", "922337203685477580", "7", "8", "99999"};
        long[] out = new long[1];
        for (int i = 0; i < 200_000; i++) {
            StringBuilder sb = new StringBuilder();
            for (int n = 1 + random.nextInt(8); n > 0; n--) sb.append(pieces[random.nextInt(pieces.length)]);
            String s = sb.toString();
            byte[] b = ("x" + s + "y").getBytes(StandardCharsets.US_ASCII);
            Long expected = redisParse(s);
            assertEquals(expected != null, Numbers.parseLong(b, 1, s.length(), out), s);
            if (expected != null) assertEquals(expected.longValue(), out[0], s);
        }
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
