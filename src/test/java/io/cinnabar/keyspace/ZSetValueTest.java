package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZSetValueTest {
    private static final long MAX_ENTRIES = 128, MAX_VALUE = 64;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> contents(ZSetValue z) {
        List<String> out = new ArrayList<>();
        z.forEach((m, s) -> out.add(new String(m, StandardCharsets.UTF_8) + "=" + s));
        return out;
    }

    /** The listpack against a model (score, member order) under random adds, updates and removes. */
    @Test
    void listpackKeepsTheOrderOfAModel() {
        Random random = new Random(3);
        ZSetValue z = new ZSetValue();
        TreeMap<String, Double> model = new TreeMap<>();
        for (int step = 0; step < 3000; step++) {
            String m = "m" + random.nextInt(60) + (random.nextBoolean() ? "" : "\u00e9x");
            if (random.nextInt(4) == 0) {
                assertEquals(model.remove(m) != null, z.remove(b(m)));
            } else {
                double score = random.nextInt(20) - 10 + (random.nextBoolean() ? 0.5 : 0);
                z.add(score, b(m), 0, null, MAX_ENTRIES, MAX_VALUE);
                model.put(m, score);
            }
            assertTrue(z.isListpack());
            assertEquals(model.size(), z.size());
        }
        List<String> expected = new ArrayList<>();
        model.entrySet().stream()
                .sorted((x, y) -> ZSkipList.compare(x.getValue(), b(x.getKey()), y.getValue(), b(y.getKey())))
                .forEach(e -> expected.add(e.getKey() + "=" + e.getValue()));
        assertEquals(expected, contents(z));
        for (var e : model.entrySet()) {
            assertEquals(e.getValue(), z.score(b(e.getKey())));
            assertEquals(expected.indexOf(e.getKey() + "=" + e.getValue()), z.rank(b(e.getKey()), false));
        }
        assertTrue(Double.isNaN(z.score(b("absent"))));
        assertEquals(-1, z.rank(b("absent"), false));
    }

    @Test
    void cursorsRangesAndRemovals() {
        ZSetValue z = new ZSetValue();
        for (int i = 0; i < 10; i++) z.add(i, b("m" + i), 0, null, MAX_ENTRIES, MAX_VALUE);
        ZSetValue.Cursor c = z.at(9);
        assertEquals("m9", new String(c.member(), StandardCharsets.UTF_8));
        c.previous();
        assertEquals(8.0, c.score());
        assertEquals(3, z.firstRank(new ScoreRange(2.5, false, 6, false)));
        assertEquals(6, z.lastRank(new ScoreRange(2.5, false, 6, false)));
        assertEquals(-1, z.firstRank(new ScoreRange(9.5, false, 20, false)));
        ZSetValue copy = z.copy();
        assertEquals(3, z.removeRange(2, 4));
        assertEquals(List.of("m0=0.0", "m1=1.0", "m5=5.0", "m6=6.0", "m7=7.0", "m8=8.0", "m9=9.0"), contents(z));
        // A cursor reads the set as it is now, by rank, as the arrays it replaced did.
        ZSetValue.Cursor after = z.at(2);
        assertEquals("m5", new String(after.member(), StandardCharsets.UTF_8));
        z.remove(b("m0"));
        assertEquals("m6", new String(after.member(), StandardCharsets.UTF_8));
        assertEquals(10, copy.size());
        assertEquals(2.0, copy.score(b("m2")));
    }

    @Test
    void negativeZeroIsStoredAsZeroAndTheConversionKeepsOrder() {
        ZSetValue z = new ZSetValue();
        z.add(-0.0, b("z"), 0, null, MAX_ENTRIES, MAX_VALUE);
        assertEquals(0, Double.doubleToRawLongBits(z.score(b("z"))));
        for (int i = 0; i < 5; i++) z.add(-i, b("n" + i), 0, null, MAX_ENTRIES, MAX_VALUE);
        List<String> before = contents(z);
        z.add(1, b("x".repeat((int) MAX_VALUE + 1)), 0, null, MAX_ENTRIES, MAX_VALUE);
        assertFalse(z.isListpack());
        List<String> after = contents(z);
        after.remove(after.size() - 1);
        assertEquals(before, after);
    }

    /** Ten members of two bytes: the pack, not a byte[] each and parallel arrays. */
    @Test
    void smallSetsAreCompact() {
        ZSetValue z = new ZSetValue();
        for (int i = 0; i < 10; i++) z.add(i * 1.5, b("m" + i), 0, null, MAX_ENTRIES, MAX_VALUE);
        assertEquals(40 + Entry.arrayBytes(10 * (1 + 2 + 8)), z.memoryUsage());
    }
}
