package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IntSetTest {
    @Test
    void widthUpgradesOnlyWhenNeeded() {
        IntSet s = new IntSet();
        assertTrue(s.add(5));
        assertTrue(s.add(-32768));
        assertEquals(2, s.width());
        assertTrue(s.add(32768));
        assertEquals(4, s.width());
        assertTrue(s.add(Long.MIN_VALUE));
        assertEquals(8, s.width());
        assertEquals(Long.MIN_VALUE, s.get(0));
        assertEquals(32768, s.get(3));
        // Removing the wide value does not narrow the encoding (Redis never downgrades).
        assertTrue(s.remove(Long.MIN_VALUE));
        assertEquals(8, s.width());
        assertEquals(-32768, s.get(0));
    }

    @Test
    void upgradeAppendsOrPrependsTheWideValue() {
        IntSet s = new IntSet();
        for (int i = -10; i <= 10; i++) s.add(i);
        s.add(1L << 40);
        assertEquals(1L << 40, s.get(s.size() - 1));
        s.add(-(1L << 40));
        assertEquals(-(1L << 40), s.get(0));
        assertEquals(23, s.size());
    }

    @Test
    void containsAndRemoveOutsideWidth() {
        IntSet s = new IntSet();
        s.add(1);
        assertFalse(s.contains(1L << 33));
        assertFalse(s.remove(1L << 33));
        assertFalse(s.add(1));
        assertTrue(s.contains(1));
    }

    @Test
    void matchesSortedSetUnderRandomOperations() {
        Random rnd = new Random(42);
        IntSet s = new IntSet();
        TreeSet<Long> model = new TreeSet<>();
        for (int i = 0; i < 20000; i++) {
            long v = switch (rnd.nextInt(3)) {
                case 0 -> rnd.nextInt(65536) - 32768;
                case 1 -> rnd.nextInt();
                default -> rnd.nextLong();
            };
            if (rnd.nextInt(3) == 0) {
                assertEquals(model.remove(v), s.remove(v));
                Long some = model.isEmpty() ? null : model.first();
                if (some != null && rnd.nextBoolean()) assertEquals(model.remove(some), s.remove(some));
            } else {
                assertEquals(model.add(v), s.add(v));
            }
        }
        assertEquals(model.size(), s.size());
        int i = 0;
        for (long v : model) {
            assertEquals(v, s.get(i++));
            assertTrue(s.contains(v));
        }
        IntSet copy = s.copy();
        copy.add(12345);
        assertEquals(model.size(), s.size());
    }
}
