package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ListpackTest {
    /** Entries as strings (integers formatted), null when the listpack is invalid. */
    static List<String> entries(byte[] lp) {
        EntryCollector c = new EntryCollector(1, false);
        return Listpack.walk(lp, c) < 0 ? null : texts(c);
    }

    static List<String> texts(EntryCollector c) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < c.size(); i++) out.add(new String(c.items()[i], java.nio.charset.StandardCharsets.ISO_8859_1));
        return out;
    }

    private static byte[] build(String... items) {
        Listpack.Builder b = new Listpack.Builder();
        for (String s : items) b.add(s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        return b.build();
    }

    @Test
    void bytesMatchRedisForEveryIntegerWidth() {
        // Redis 7.0.15: HSET h a 1 bb 300 ccc -5000 d 70000 e 9000000 f 3000000000 g -9000000000000000000,
        // the listpack inside DUMP h.
        byte[] redis = HexFormat.of().parseHex("47000000" + "0e00816102010182626203c12c028363636304f178ec03816402f2"
                + "70110104816502f34054890005816602f4005ed0b20000000009816702f400007c1daf93198309ff");
        byte[] ours = build("a", "1", "bb", "300", "ccc", "-5000", "d", "70000", "e", "9000000", "f", "3000000000",
                "g", "-9000000000000000000");
        assertArrayEquals(redis, ours);
        assertEquals(List.of("a", "1", "bb", "300", "ccc", "-5000", "d", "70000", "e", "9000000", "f",
                "3000000000", "g", "-9000000000000000000"), entries(redis));
    }

    @Test
    void integerBoundariesRoundTrip() {
        long[] values = {0, 127, 128, -1, -4096, 4095, 4096, -4097, 32767, -32768, 32768, 8388607, -8388608,
            8388608, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 31, Long.MAX_VALUE, Long.MIN_VALUE};
        Listpack.Builder b = new Listpack.Builder();
        List<String> expected = new ArrayList<>();
        for (long v : values) {
            b.addInteger(v);
            expected.add(Long.toString(v));
        }
        assertEquals(expected, entries(b.build()));
    }

    @Test
    void stringsOfEveryLengthClassRoundTrip() {
        Random rnd = new Random(5);
        List<String> items = new ArrayList<>();
        for (int len : new int[] {0, 1, 63, 64, 125, 126, 127, 128, 4095, 4096, 16380, 16381, 16383, 70000}) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < len; i++) sb.append((char) ('a' + rnd.nextInt(26)));
            items.add(sb.toString());
        }
        items.add("007"); // not canonical: stays a string
        items.add("-0");
        items.add("99999999999999999999"); // beyond a long
        assertEquals(items, entries(build(items.toArray(new String[0]))));
    }

    @Test
    void countSaturatesAt65535() {
        Listpack.Builder b = new Listpack.Builder();
        for (int i = 0; i < 70000; i++) b.addInteger(i % 100);
        byte[] lp = b.build();
        assertEquals(Listpack.COUNT_UNKNOWN, Listpack.headerCount(lp));
        assertEquals(70000, entries(lp).size());
    }

    @Test
    void corruptListpacksAreRefusedNotCrashedOn() {
        byte[] good = build("hello", "1", "world", "x".repeat(200));
        Random rnd = new Random(9);
        for (int i = 0; i < 20000; i++) {
            byte[] bad = good.clone();
            int flips = 1 + rnd.nextInt(3);
            for (int k = 0; k < flips; k++) bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
            entries(bad); // must return normally
        }
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 3);
        assertEquals(null, entries(truncated));
        byte[] badCount = good.clone();
        badCount[4] = 9;
        assertEquals(null, entries(badCount));
    }
}
