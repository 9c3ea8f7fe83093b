package io.cinnabar.command.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeapReturnTest {
    private static final long MB = 1 << 20;

    @Test
    void aQuietHeapHoldingMuchGarbageGetsACycle() {
        // After a bulk load: 600 MB in use, 113 MB left by the last cycle, 1 MB allocated in the last second.
        assertTrue(HeapReturn.worthACycle(599 * MB, 600 * MB, 113 * MB, false, false, false));
    }

    @Test
    void aBusyHeapGetsACycleOnceItsGarbageOutgrowsWhatLives() {
        // 200 MB allocated in the last second: busy. The collector's own trigger would wait for 600 MB.
        assertTrue(HeapReturn.worthACycle(400 * MB, 600 * MB, 113 * MB, false, false, false));
        assertFalse(HeapReturn.worthACycle(150 * MB, 230 * MB, 113 * MB, false, false, false), "117 MB of garbage: under the 128 MB floor");
        assertTrue(HeapReturn.worthACycle(150 * MB, 250 * MB, 113 * MB, false, false, false));
        assertFalse(HeapReturn.worthACycle(3500 * MB, 4000 * MB, 2048 * MB, false, false, false), "1952 MB: under the 2 GB that lives");
        assertTrue(HeapReturn.worthACycle(3700 * MB, 4200 * MB, 2048 * MB, false, false, false));
    }

    @Test
    void aBusyHeapIsLeftToACollectorPacedToCollectItself() {
        assertFalse(HeapReturn.worthACycle(400 * MB, 600 * MB, 113 * MB, true, false, false));
        assertTrue(HeapReturn.worthACycle(599 * MB, 600 * MB, 113 * MB, true, false, false), "quiet: the heap goes back now");
    }

    @Test
    void littleGarbageIsNotWorthACycle() {
        assertFalse(HeapReturn.worthACycle(20 * MB, 20 * MB, 8 * MB, false, false, false));
        // A quarter of what lives is the bar for large heaps: 2 GB live, 400 MB garbage.
        assertFalse(HeapReturn.worthACycle(2448 * MB, 2448 * MB, 2048 * MB, false, false, false));
        assertTrue(HeapReturn.worthACycle(2648 * MB, 2648 * MB, 2048 * MB, false, false, false));
    }

    @Test
    void theFirstQuietSecondAfterABurstCollectsWhatTheBurstLeft() {
        // The last cycle ended late in a load of ~950k keys: it counted 151 MB, 115 MB of which live.
        assertFalse(HeapReturn.worthACycle(184 * MB, 185 * MB, 151 * MB, true, false, false), "34 MB: under a quarter of 151 MB");
        assertTrue(HeapReturn.worthACycle(184 * MB, 185 * MB, 151 * MB, true, true, false));
        assertFalse(HeapReturn.worthACycle(160 * MB, 160 * MB, 151 * MB, true, true, false), "9 MB: under the 16 MB floor");
    }

    @Test
    void aBurstInWhichACycleEndedIsCollectedWhenItEnds() {
        // The last cycle of a ~950k-key load ended 0.2 s before the load: it counted 159 MB, 119 MB of them live.
        assertTrue(HeapReturn.worthACycle(175 * MB, 175 * MB, 159 * MB, true, true, true));
        assertFalse(HeapReturn.worthACycle(175 * MB, 175 * MB, 159 * MB, true, true, false), "16 MB seen: not over the floor");
        assertFalse(HeapReturn.worthACycle(175 * MB, 175 * MB, 159 * MB, true, false, true), "judged once, at the burst's end");
        assertFalse(HeapReturn.worthACycle(175 * MB, 400 * MB, 159 * MB, true, true, true), "still busy");
    }

    @Test
    void aSecondInWhichACycleRanIsNotJudged() {
        assertFalse(HeapReturn.worthACycle(600 * MB, 150 * MB, 113 * MB, false, false, false));
    }
}
