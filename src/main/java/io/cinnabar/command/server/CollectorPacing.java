package io.cinnabar.command.server;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Under load, has Shenandoah start its own cycle once the garbage outgrows what lives (at least
 * {@link #BUSY_GARBAGE}), where its compact heuristics would wait for 10% of the maximum heap
 * (600 MB of a 6 GB default) to be allocated. They start a cycle once ShenandoahAllocationThreshold
 * percent (10) of the soft maximum heap has been allocated since the last one, so the soft maximum
 * is kept at ten times the garbage allowed.
 *
 * <p>Asking for those cycles with System.gc() instead, as {@link HeapReturn} once did, made the
 * collector uncommit every empty region right after each (an explicit cycle shrinks the heap at
 * once), and the next second's allocations faulted fresh pages in: redis-benchmark SET -d 4096
 * at -c 50 took 1.3-2.1 page faults and ~15 us of system time per request, 0.01-0.06 faults
 * and ~10 us paced this way. Regions left empty still go back to the system after
 * ShenandoahUncommitDelay (1 s with the compact heuristics).
 */
final class CollectorPacing {
    /**
     * The garbage allowed when little lives. Each cycle costs the collector's threads ~20 ms of
     * CPU however little lives: SET -d 4096 at -c 50 (250 MB allocated a second) spent 1.4 us per
     * request in them at 64 MB (five cycles a second), 1.0 at 128 MB, 0.8 at 192 MB. 1M keys under
     * redis-benchmark -t set,get -c 50 -n 2000000 -r 1000000 -d 32 peaked at 380, 387 and 451 MB
     * RSS (803-810 MB with the heuristics alone).
     */
    static final long BUSY_GARBAGE = 128L << 20;
    private static final long DEFAULT_ALLOCATION_THRESHOLD_PERCENT = 10;
    /** Changes smaller than this fraction of the soft maximum are not worth a call into the VM. */
    private static final int SETTLE_DIVISOR = 8;

    private final HotSpotDiagnosticMXBean hotspot;
    private final long maxHeap;
    private final long allocationThresholdPercent;
    private long softMax;

    private CollectorPacing(HotSpotDiagnosticMXBean hotspot, long maxHeap, long allocationThresholdPercent) {
        this.hotspot = hotspot;
        this.maxHeap = maxHeap;
        this.allocationThresholdPercent = allocationThresholdPercent;
        this.softMax = maxHeap;
    }

    /** The pacing of this JVM's collector, or null where it is not Shenandoah's compact heuristics. */
    static CollectorPacing ofThisJvm() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (hotspot == null || !Boolean.parseBoolean(hotspot.getVMOption("UseShenandoahGC").getValue())
                    || !"compact".equals(hotspot.getVMOption("ShenandoahGCHeuristics").getValue())
                    || !hotspot.getVMOption("SoftMaxHeapSize").isWriteable()) {
                return null;
            }
            long maxHeap = Long.parseLong(hotspot.getVMOption("MaxHeapSize").getValue());
            long threshold = allocationThresholdPercent(ManagementFactory.getRuntimeMXBean().getInputArguments());
            return threshold > 0 ? new CollectorPacing(hotspot, maxHeap, threshold) : null;
        } catch (RuntimeException | LinkageError notHotSpot) {
            return null;
        }
    }

    /** ShenandoahAllocationThreshold as the command line sets it (experimental: not readable from the VM). */
    static long allocationThresholdPercent(List<String> jvmArguments) {
        long percent = DEFAULT_ALLOCATION_THRESHOLD_PERCENT;
        String prefix = "-XX:ShenandoahAllocationThreshold=";
        for (String argument : jvmArguments) {
            if (!argument.startsWith(prefix)) continue;
            try {
                percent = Long.parseLong(argument.substring(prefix.length()));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return percent;
    }

    /** The soft maximum heap that starts a cycle once the garbage allowed for live bytes is allocated. */
    static long softMaxFor(long live, long maxHeap, long allocationThresholdPercent) {
        long garbage = Math.max(BUSY_GARBAGE, live);
        if (garbage >= maxHeap / 100 * allocationThresholdPercent) return maxHeap;
        return garbage * 100 / allocationThresholdPercent;
    }

    /** Paces the collector for what the last cycle left live. */
    void paceFor(long live) {
        long target = softMaxFor(live, maxHeap, allocationThresholdPercent);
        if (Math.abs(target - softMax) < softMax / SETTLE_DIVISOR) return;
        try {
            hotspot.setVMOption("SoftMaxHeapSize", Long.toString(target));
            softMax = target;
        } catch (RuntimeException refused) {
            // Outside what the flag accepts: the collector keeps its own pace.
        }
    }
}
