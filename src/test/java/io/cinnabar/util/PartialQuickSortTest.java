package io.cinnabar.util;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class PartialQuickSortTest {
    /** Elements whose key is compared, told apart by their position in the input. */
    private record Item(int key, int id) {}

    private static final Comparator<Item> BY_KEY = Comparator.comparingInt(Item::key);

    @Test
    void theRangeHoldsWhatAFullSortPutsThere() {
        Random random = new Random(7);
        for (int round = 0; round < 2000; round++) {
            int n = 1 + random.nextInt(120);
            Item[] items = new Item[n];
            for (int i = 0; i < n; i++) items[i] = new Item(random.nextInt(1 + random.nextInt(n)), i);
            int from = random.nextInt(n), to = from + random.nextInt(n - from);
            int[] expected = Arrays.stream(items).mapToInt(Item::key).sorted().toArray();
            Item[] partial = items.clone();
            PartialQuickSort.sort(partial, BY_KEY, from, to);
            for (int i = from; i <= to; i++) assertEquals(expected[i], partial[i].key(), "n=" + n + " at " + i);
            assertEquals(n, Arrays.stream(partial).mapToInt(Item::id).distinct().count());
        }
    }

    @Test
    void equalElementsComeInRedisPqsortOrder() {
        // Seven equal elements: the middle one becomes the pivot and moves to the front, the rest stay.
        Item[] seven = new Item[7];
        for (int i = 0; i < 7; i++) seven[i] = new Item(0, i);
        PartialQuickSort.sort(seven, BY_KEY, 0, 0);
        assertArrayEquals(new int[] {3, 1, 2, 0, 4, 5, 6}, Arrays.stream(seven).mapToInt(Item::id).toArray());
    }
}
