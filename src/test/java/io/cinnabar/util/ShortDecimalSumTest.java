package io.cinnabar.util;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The long-arithmetic INCRBYFLOAT step against LongDouble's exact one (itself checked against Redis in LongDoubleTest). */
class ShortDecimalSumTest {
    private static byte[] ascii(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.US_ASCII);
    }

    /** LongDouble's answer, null where INCRBYFLOAT replies with an error. */
    private static String exact(String value, String increment) {
        LongDouble a = value == null ? LongDouble.ZERO : LongDouble.parse(value);
        LongDouble b = LongDouble.parse(increment);
        if (a == null || b == null) return null;
        LongDouble sum = a.add(b);
        return sum == null || sum.isInfinite() ? null : sum.toHumanString();
    }

    /** Asserts the quick answer, where there is one, is the exact one; true if there was one. */
    private static boolean agrees(String value, String increment) {
        String quick = ShortDecimalSum.human(ascii(value), ascii(increment));
        if (quick == null) return false;
        assertEquals(exact(value, increment), quick, value + " + " + increment);
        return true;
    }

    private static String randomDecimal(Random random) {
        StringBuilder sb = new StringBuilder();
        int form = random.nextInt(10);
        if (form == 0) sb.append('+');
        else if (form < 4) sb.append('-');
        if (random.nextInt(8) == 0) sb.append("000".substring(random.nextInt(3)));
        int whole = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(20);
        for (int i = 0; i < whole; i++) sb.append((char) ('0' + (i == 0 ? 1 + random.nextInt(9) : random.nextInt(10))));
        int decimals = random.nextInt(4) == 0 ? 0 : random.nextInt(20);
        if (decimals > 0 || whole == 0 || random.nextInt(10) == 0) sb.append('.');
        for (int i = 0; i < decimals; i++) sb.append((char) ('0' + random.nextInt(10)));
        if (whole == 0 && decimals == 0) sb.append('0');
        if (random.nextInt(10) == 0) sb.append("00");
        return sb.toString();
    }

    @Test
    void randomDecimalsAgreeWithTheExactSum() {
        Random random = new Random(17);
        int quick = 0, n = 200_000;
        for (int i = 0; i < n; i++) {
            if (agrees(random.nextInt(20) == 0 ? null : randomDecimal(random), randomDecimal(random))) quick++;
        }
        assertTrue(quick > n / 2, "most take the quick way: " + quick);
    }

    /** INCRBYFLOAT's own results fed back, as a counter sees them: artefacts of the 64-bit mantissa included. */
    @Test
    void chainsOfIncrementsAgree() {
        Random random = new Random(23);
        String[] steps = {"0.1", "1.5", "10.99", "-0.01", "0.3333333333", "1000000.1", "-2.5", "7"};
        int quick = 0, n = 0;
        for (String start : new String[] {null, "0", "100000", "-3.75", "123456.789", "99999999999.99"}) {
            String value = start;
            for (int i = 0; i < 3000; i++, n++) {
                String step = steps[random.nextInt(steps.length)];
                if (agrees(value, step)) quick++;
                value = exact(value, step);
            }
        }
        assertTrue(quick > n * 9 / 10, "counters stay on the quick way: " + quick + " of " + n);
    }

    @Test
    void edges() {
        for (String[] c : new String[][] {
                {"-0", "-0"}, {"0", "-0"}, {"1", "-1"}, {"-1.5", "1.5"}, {"0.5", "0.5"}, {"5.", ".5"}, {"+.5", "-5."},
                {"18446744073709551615", "0.5"}, {"18446744073709551615", "1"}, {"9223372036854775807", "0.5"},
                {"9223372036854775807", "-0.5"}, {"4611686018427387903.5", "0.25"}, {"0.000000000000000001", "1"},
                {"0.000000000000000001", "0.000000000000000001"}, {"99999999999999999999999999999999999999", "1"},
                {"12345678901234567890.123456789012345678", "-12345678901234567890"}, {"0.1", "-0.1"},
                {"100000.00000000087324992", "0.1"}, {"-0.000000000000000001", "0"}}) {
            agrees(c[0], c[1]);
        }
        // Left to LongDouble: exponents, hex, infinities, spaces, too many decimals, overlong strings.
        for (String s : new String[] {"1e5", "0x10", "inf", "nan", " 1", "1 ", "", ".", "-", "1.2.3", "0.0000000000000000001",
                "1".repeat(39), "0".repeat(41) + "1"}) {
            assertNull(ShortDecimalSum.human(null, ascii(s)), s);
        }
        assertEquals("0", ShortDecimalSum.human(ascii("-0"), ascii("-0")));
        assertEquals("10.6", ShortDecimalSum.human(ascii("10.5"), ascii("0.1")));
        assertEquals("100000.00999999999999801", ShortDecimalSum.human(ascii("100000"), ascii("0.01")));
    }
}
