package io.cinnabar.command.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CollectorPacingTest {
    private static final long MB = 1 << 20;
    private static final long MAX_HEAP = 6 * 1024 * MB;

    @Test
    void theSoftMaximumIsTenTimesTheGarbageAllowed() {
        assertEquals(1280 * MB, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, 10), "little lives: the 128 MB floor");
        assertEquals(3000 * MB, CollectorPacing.softMaxFor(300 * MB, MAX_HEAP, 10), "as much garbage as lives");
        assertEquals(640 * MB, CollectorPacing.softMaxFor(8 * MB, MAX_HEAP, 20));
    }

    @Test
    void aLargeHeapKeepsTheMaximum() {
        assertEquals(MAX_HEAP, CollectorPacing.softMaxFor(1024 * MB, MAX_HEAP, 10));
        assertEquals(512 * MB, CollectorPacing.softMaxFor(8 * MB, 512 * MB, 10), "-Xmx512m");
        assertEquals(MAX_HEAP, CollectorPacing.softMaxFor(Long.MAX_VALUE / 2, MAX_HEAP, 10));
    }

    @Test
    void theAllocationThresholdComesFromTheCommandLine() {
        assertEquals(10, CollectorPacing.allocationThresholdPercent(List.of("-XX:+UseShenandoahGC")));
        assertEquals(25, CollectorPacing.allocationThresholdPercent(List.of("-XX:ShenandoahAllocationThreshold=25")));
        assertEquals(0, CollectorPacing.allocationThresholdPercent(List.of("-XX:ShenandoahAllocationThreshold=x")), "unreadable: no pacing");
    }
}
