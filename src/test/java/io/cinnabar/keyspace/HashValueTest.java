package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HashValueTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> contents(HashValue h) {
        Map<String, String> out = new HashMap<>();
        h.forEach((f, fo, fl, v, vo, vl) -> out.put(new String(f, fo, fl, StandardCharsets.UTF_8),
                new String(v, vo, vl, StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void varintLengthsRoundTrip() {
        for (int len : new int[] {0, 1, 127, 128, 300, 16383, 16384, 70000}) {
            byte[] value = new byte[len];
            new Random(len).nextBytes(value);
            byte[] p = PairPack.append(PairPack.EMPTY, b("f"), value);
            assertEquals(1 + 1 + PairPack.headerSize(len) + len, p.length);
            int off = PairPack.find(p, b("f"));
            assertEquals(len, PairPack.length(p, off));
            assertEquals(p.length, PairPack.next(p, off));
            int d = PairPack.data(off, len);
            assertArrayEquals(value, java.util.Arrays.copyOfRange(p, d, d + len));
        }
    }

    @Test
    void compactWritesBuildNewArraysAndKeepOrder() {
        HashValue h = new HashValue();
        assertTrue(h.set(b("a"), b("1"), 128, 64));
        assertTrue(h.set(b("b"), b("2"), 128, 64));
        assertFalse(h.set(b("a"), b("longer value"), 128, 64));
        byte[][] before = h.toPairs();
        HashValue copy = h.copy();
        assertEquals(1, h.setAll(new byte[][] {b("b"), b("22"), b("c"), b("3"), b("b"), b("222")}, 0, 128, 64));
        assertEquals("listpack", h.encoding());
        assertEquals(3, h.size());
        List<String> order = new ArrayList<>();
        h.forEach((f, fo, fl, v, vo, vl) -> order.add(new String(f, fo, fl) + "=" + new String(v, vo, vl)));
        assertEquals(List.of("a=longer value", "b=222", "c=3"), order);
        // The copy and earlier readers still see the old contents.
        assertEquals(Map.of("a", "longer value", "b", "2"), contents(copy));
        assertArrayEquals(b("2"), before[3]);
        assertEquals(12, h.valueLength(b("a")));
        assertEquals(-1, h.valueLength(b("zz")));
        assertNull(h.get(b("zz")));
        assertEquals(2, h.delete(new byte[][] {b("a"), b("c"), b("zz"), b("a")}, 0));
        assertEquals(Map.of("b", "222"), contents(h));
        assertEquals(1, h.delete(new byte[][] {b("b")}, 0));
        assertTrue(h.isEmpty());
    }

    /** A value of the same length is written over in place (no new pack per HSET), so a copy must own its pack. */
    @Test
    void sameLengthValuesAreWrittenInPlaceAndCopiesKeepTheirs() {
        HashValue h = new HashValue();
        h.set(b("a"), b("1"), 128, 64);
        h.set(b("b"), b("2"), 128, 64);
        h.set(b("c"), b("3"), 128, 64);
        HashValue copy = h.copy();
        long memory = h.memoryUsage();
        assertFalse(h.set(b("b"), b("9"), 128, 64));
        assertEquals(memory, h.memoryUsage());
        assertEquals(0, h.setAll(new byte[][] {b("c"), b("8"), b("a"), b("7")}, 0, 128, 64));
        assertEquals(Map.of("a", "7", "b", "9", "c", "8"), contents(h));
        assertEquals(Map.of("a", "1", "b", "2", "c", "3"), contents(copy));
        assertFalse(h.set(b("b"), b("longer"), 128, 64));
        assertEquals(Map.of("a", "7", "b", "longer", "c", "8"), contents(h));
        List<String> order = new ArrayList<>();
        h.forEach((f, fo, fl, v, vo, vl) -> order.add(new String(f, fo, fl)));
        assertEquals(List.of("a", "b", "c"), order);
        // Past a lowered entries limit, an update converts as Redis's hashTypeSet does, in place or not.
        HashValue lowered = h.copy();
        assertEquals(0, lowered.setAll(new byte[][] {b("a"), b("6"), b("c"), b("5")}, 0, 2, 64));
        assertEquals("hashtable", lowered.encoding());
        assertEquals(Map.of("a", "6", "b", "longer", "c", "5"), contents(lowered));
        assertFalse(h.set(b("a"), b("4"), 2, 64));
        assertEquals("hashtable", h.encoding());
    }

    @Test
    void convertsPastThresholdsAndNeverBack() {
        HashValue h = new HashValue();
        for (int i = 0; i < 4; i++) h.set(b("f" + i), b("v" + i), 4, 8);
        assertEquals("listpack", h.encoding());
        h.set(b("f4"), b("v4"), 4, 8);
        assertEquals("hashtable", h.encoding());
        h.delete(new byte[][] {b("f0"), b("f1"), b("f2"), b("f3")}, 0);
        h.set(b("x"), b("y"), 4, 8);
        assertEquals("hashtable", h.encoding());
        assertEquals(Map.of("f4", "v4", "x", "y"), contents(h));

        HashValue longValue = new HashValue();
        longValue.set(b("f"), b("123456789"), 4, 8);
        assertEquals("hashtable", longValue.encoding());
        HashValue many = new HashValue();
        byte[][] args = new byte[12][];
        for (int i = 0; i < 6; i++) {
            args[2 * i] = b("f" + i);
            args[2 * i + 1] = b("v");
        }
        assertEquals(6, many.setAll(args, 0, 4, 8));
        assertEquals("hashtable", many.encoding());
        assertEquals(6, many.size());
    }

    @Test
    void hashtableCopySharesNoStructure() {
        HashValue h = new HashValue();
        h.set(b("f"), b("v"), 0, 64);
        assertEquals("hashtable", h.encoding());
        HashValue c = h.copy();
        h.set(b("g"), b("w"), 0, 64);
        assertEquals(Map.of("f", "v"), contents(c));
        byte[][] pair = new byte[2][];
        c.randomPair(pair);
        assertSame(c.get(b("f")), pair[1]);
    }

    @Test
    void randomFuzzAgainstHashMap() {
        Random rnd = new Random(42);
        HashValue h = new HashValue();
        Map<String, String> model = new HashMap<>();
        for (int step = 0; step < 20000; step++) {
            String f = "f" + rnd.nextInt(200);
            String v = "v".repeat(rnd.nextInt(5)) + rnd.nextInt(1000);
            int op = rnd.nextInt(3);
            if (op == 0) {
                assertEquals(!model.containsKey(f), h.set(b(f), b(v), 150, 64));
                model.put(f, v);
            } else if (op == 1) {
                assertEquals(model.remove(f) != null ? 1 : 0, h.delete(new byte[][] {b(f)}, 0));
            } else {
                String f2 = "f" + rnd.nextInt(200);
                int created = (model.containsKey(f) ? 0 : 1) + (model.containsKey(f2) || f2.equals(f) ? 0 : 1);
                assertEquals(created, h.setAll(new byte[][] {b(f), b(v), b(f2), b(v)}, 0, 150, 64));
                model.put(f, v);
                model.put(f2, v);
            }
            assertEquals(model.size(), h.size());
        }
        assertEquals(model, contents(h));
    }

    /** Pairs set in one call keep Redis's order in the pack (updates in place, new fields appended) and convert as Redis's. */
    @Test
    void setAllOfAnyPairCountKeepsInsertionOrder() {
        Random rnd = new Random(7);
        for (int round = 0; round < 3_000; round++) {
            HashValue h = new HashValue();
            Map<String, String> model = new java.util.LinkedHashMap<>();
            int start = rnd.nextInt(40);
            for (int i = 0; i < start; i++) {
                h.set(b("f" + i), b("v" + i), 128, 64);
                model.put("f" + i, "v" + i);
            }
            int pairs = 1 + rnd.nextInt(20);
            byte[][] args = new byte[2 + 2 * pairs][];
            args[0] = b("HSET");
            args[1] = b("key");
            int created = 0;
            for (int p = 0; p < pairs; p++) {
                // Values of one- and two-byte length headers, growing and shrinking in place.
                String f = "f" + rnd.nextInt(start + 10), v = rnd.nextInt(4) == 0 ? "x".repeat(rnd.nextInt(300)) : "w" + rnd.nextInt(1000);
                args[2 + 2 * p] = b(f);
                args[3 + 2 * p] = b(v);
                if (model.put(f, v) == null) created++;
            }
            long maxEntries = 20 + rnd.nextInt(30);
            assertEquals(created, h.setAll(args, 2, maxEntries, 300));
            assertEquals(model.size() > maxEntries ? "hashtable" : "listpack", h.encoding());
            if (h.encoding().equals("listpack")) {
                List<String> order = new ArrayList<>();
                h.forEach((f, fo, fl, v, vo, vl) -> order.add(new String(f, fo, fl) + "=" + new String(v, vo, vl)));
                assertEquals(model.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList(), order);
            } else {
                assertEquals(model, contents(h));
            }
        }
    }
}
