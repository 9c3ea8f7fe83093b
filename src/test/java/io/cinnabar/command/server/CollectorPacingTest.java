package io.cinnabar.command.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectorPacingTest {
    private static final long MB = 1 << 20;
    private static final long MAX_HEAP = 6 * 1024 * MB;
    private static final CollectorPacing.Percents DEFAULTS = CollectorPacing.Percents.DEFAULTS;

    private static CollectorPacing.Percents threshold(long percent) {
        return new CollectorPacing.Percents(percent, 10, 5);
    }

    @Test
    void theSoftMaximumIsTenTimesTheGarbageAllowed() {
        assertEquals(1280 * MB, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, DEFAULTS), "little lives: the 128 MB floor");
        assertEquals(3000 * MB, CollectorPacing.softMaxFor(300 * MB, MAX_HEAP, DEFAULTS), "as much garbage as lives");
        assertEquals(640 * MB, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, threshold(20)));
    }

    @Test
    void aLargeHeapKeepsTheMaximum() {
        assertEquals(MAX_HEAP, CollectorPacing.softMaxFor(1024 * MB, MAX_HEAP, DEFAULTS));
        assertEquals(512 * MB, CollectorPacing.softMaxFor(8 * MB, 512 * MB, DEFAULTS), "-Xmx512m");
        assertEquals(MAX_HEAP, CollectorPacing.softMaxFor(Long.MAX_VALUE / 2, MAX_HEAP, DEFAULTS));
    }

    @Test
    void theSoftMaximumLeavesRoomForTheEvacuationReserve() {
        // -Xmx64g: the reserve is 3.2 GB; 1280 MB would leave the free-memory trigger nothing.
        long bigHeap = 64 * 1024 * MB;
        long softMax = CollectorPacing.softMaxFor(8 * MB, bigHeap, DEFAULTS);
        long free = softMax - bigHeap / 100 * 5 - 8 * MB - softMax / 10;
        assertTrue(free >= softMax / 10, "free " + free / MB + " MB of " + softMax / MB + " MB when the allocation trigger fires");
        assertEquals((8 * MB + bigHeap / 100 * 5) / 70 * 100, softMax);
        // ShenandoahAllocationThreshold=40 on a 6 GB heap: 320 MB would leave 8 MB free.
        assertEquals((8 * MB + MAX_HEAP / 100 * 5) / 40 * 100, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, threshold(40)));
        assertEquals(MAX_HEAP, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, threshold(90)), "no room at all: no pacing");
    }

    @Test
    void theHeuristicsFlagsComeFromTheCommandLine() {
        assertEquals(DEFAULTS, CollectorPacing.Percents.of(List.of("-XX:+UseShenandoahGC")));
        assertEquals(new CollectorPacing.Percents(25, 15, 8), CollectorPacing.Percents.of(List.of(
                "-XX:ShenandoahAllocationThreshold=25", "-XX:ShenandoahMinFreeThreshold=15", "-XX:ShenandoahEvacReserve=8")));
        assertNull(CollectorPacing.Percents.of(List.of("-XX:ShenandoahAllocationThreshold=x")), "unreadable: no pacing");
        assertNull(CollectorPacing.Percents.of(List.of("-XX:ShenandoahAllocationThreshold=0")));
    }
}
