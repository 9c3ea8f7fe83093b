package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stream ID parsing as streamGenericParseIDOrReply, and the unsigned order. */
class StreamIdTest {
    private static StreamId parse(String s, long missingSeq, boolean strict) {
        return StreamId.parse(s.getBytes(), missingSeq, strict, null);
    }

    @Test
    void parsesFullPartialAndSpecialForms() {
        assertEquals(new StreamId(5, 7), parse("5-7", 0, true));
        assertEquals(new StreamId(5, -1L), parse("5", -1L, false));
        assertEquals(StreamId.MIN, parse("-", 0, false));
        assertEquals(StreamId.MAX, parse("+", 0, false));
        assertNull(parse("-", 0, true));
        assertEquals("18446744073709551615-18446744073709551615", parse("18446744073709551615-18446744073709551615", 0, true).toString());
        assertNull(parse("18446744073709551616", 0, true), "overflow");
        assertNull(parse("1-x", 0, true));
        assertNull(parse("", 0, true));
        assertNull(parse("-1", 0, true));
        boolean[] auto = new boolean[1];
        assertEquals(new StreamId(9, 0), StreamId.parse("9-*".getBytes(), 0, true, auto));
        assertTrue(auto[0]);
        assertNull(parse("9-*", 0, true), "ms-* only where XADD allows it");
    }

    @Test
    void bytesAreTheTextAtEveryDigitCount() {
        long[] values = {0, 1, 9, 10, 99, 100, 1_700_000_000_000L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L,
            Long.MAX_VALUE, Long.MIN_VALUE, -1L};
        for (long ms : values) {
            for (long seq : values) {
                StreamId id = new StreamId(ms, seq);
                assertArrayEquals(id.toString().getBytes(), id.toBytes(), id::toString);
            }
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int i = 0; i < 100_000; i++) {
            StreamId id = new StreamId(random.nextLong() >>> random.nextInt(64), random.nextLong() >>> random.nextInt(64));
            assertArrayEquals(id.toString().getBytes(), id.toBytes(), id::toString);
        }
    }

    @Test
    void ordersUnsignedAndStepsAcrossMilliseconds() {
        assertTrue(new StreamId(-1L, 0).compareTo(new StreamId(1, 0)) > 0);
        assertEquals(new StreamId(2, 0), new StreamId(1, -1L).next());
        assertEquals(new StreamId(1, -1L), new StreamId(2, 0).previous());
        assertNull(StreamId.MAX.next());
        assertNull(StreamId.MIN.previous());
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2}, new StreamId(1, 2).encode());
        assertEquals(new StreamId(1, 2), StreamId.decode(new StreamId(1, 2).encode(), 0));
    }
}
