package io.cinnabar.command.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeapReturnTest {
    private static final long MB = 1 << 20;

    @Test
    void aQuietHeapHoldingMuchGarbageGetsACycle() {
        // After a bulk load: 600 MB in use, 113 MB left by the last cycle, 1 MB allocated in the last second.
        assertTrue(HeapReturn.worthACycle(599 * MB, 600 * MB, 113 * MB));
    }

    @Test
    void aBusyHeapIsLeftToTheCollector() {
        assertFalse(HeapReturn.worthACycle(400 * MB, 600 * MB, 113 * MB));
    }

    @Test
    void littleGarbageIsNotWorthACycle() {
        assertFalse(HeapReturn.worthACycle(20 * MB, 20 * MB, 8 * MB));
        // A quarter of what lives is the bar for large heaps: 2 GB live, 400 MB garbage.
        assertFalse(HeapReturn.worthACycle(2448 * MB, 2448 * MB, 2048 * MB));
        assertTrue(HeapReturn.worthACycle(2648 * MB, 2648 * MB, 2048 * MB));
    }

    @Test
    void aSecondInWhichACycleRanIsNotJudged() {
        assertFalse(HeapReturn.worthACycle(600 * MB, 150 * MB, 113 * MB));
    }
}
