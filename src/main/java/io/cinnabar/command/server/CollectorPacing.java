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
 *
 * <p>The heuristics also start a cycle whenever the memory free under the soft maximum falls below
 * ShenandoahMinFreeThreshold percent (10) of it, and what they count as free leaves out the
 * evacuation reserve, ShenandoahEvacReserve percent (5) of the whole heap. So the soft maximum
 * also leaves room for that reserve and what lives: with -Xmx64g (a 3.2 GB reserve) a soft
 * maximum of 1280 MB had no free memory at all, and the collector ran back to back (845 cycles
 * in 8 s of SET -d 4096, at 43k requests a second instead of 73k).
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
    private static final long DEFAULT_MIN_FREE_PERCENT = 10;
    private static final long DEFAULT_EVAC_RESERVE_PERCENT = 5;
    /** Percent of the soft maximum kept free beyond what the heuristics need: live data drifts between cycles. */
    private static final long SLACK_PERCENT = 10;
    /** Changes smaller than this fraction of the soft maximum are not worth a call into the VM. */
    private static final int SETTLE_DIVISOR = 8;

    private final HotSpotDiagnosticMXBean hotspot;
    private final long maxHeap;
    private final Percents percents;
    private long softMax;

    /** The heuristics' flags this pacing depends on, in percent. */
    record Percents(long allocationThreshold, long minFree, long evacReserve) {
        static final Percents DEFAULTS = new Percents(DEFAULT_ALLOCATION_THRESHOLD_PERCENT, DEFAULT_MIN_FREE_PERCENT,
                DEFAULT_EVAC_RESERVE_PERCENT);

        /** As the command line sets them (experimental flags: not readable from the VM); null if one is unreadable. */
        static Percents of(List<String> jvmArguments) {
            long threshold = flag(jvmArguments, "ShenandoahAllocationThreshold", DEFAULT_ALLOCATION_THRESHOLD_PERCENT);
            long minFree = flag(jvmArguments, "ShenandoahMinFreeThreshold", DEFAULT_MIN_FREE_PERCENT);
            long reserve = flag(jvmArguments, "ShenandoahEvacReserve", DEFAULT_EVAC_RESERVE_PERCENT);
            if (threshold <= 0 || minFree < 0 || reserve < 0) return null;
            return new Percents(threshold, minFree, reserve);
        }

        private static long flag(List<String> jvmArguments, String name, long defaultPercent) {
            long percent = defaultPercent;
            String prefix = "-XX:" + name + "=";
            for (String argument : jvmArguments) {
                if (!argument.startsWith(prefix)) continue;
                try {
                    percent = Long.parseLong(argument.substring(prefix.length()));
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
            return percent;
        }
    }

    private CollectorPacing(HotSpotDiagnosticMXBean hotspot, long maxHeap, Percents percents) {
        this.hotspot = hotspot;
        this.maxHeap = maxHeap;
        this.percents = percents;
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
            Percents percents = Percents.of(ManagementFactory.getRuntimeMXBean().getInputArguments());
            return percents != null ? new CollectorPacing(hotspot, maxHeap, percents) : null;
        } catch (RuntimeException | LinkageError notHotSpot) {
            return null;
        }
    }

    /**
     * The soft maximum heap that starts a cycle once the garbage allowed for live bytes is
     * allocated, and leaves room enough that the free-memory trigger does not come first: what
     * lives, the evacuation reserve and the garbage allowed, with {@link #SLACK_PERCENT} to spare.
     */
    static long softMaxFor(long live, long maxHeap, Percents p) {
        long garbage = Math.max(BUSY_GARBAGE, live);
        long reserve = maxHeap / 100 * p.evacReserve();
        long roomPercent = 100 - p.minFree() - p.allocationThreshold() - SLACK_PERCENT;
        if (garbage >= maxHeap / 100 * p.allocationThreshold() || roomPercent <= 0 || live + reserve >= maxHeap) {
            return maxHeap;
        }
        long softMax = Math.max(garbage * 100 / p.allocationThreshold(), (live + reserve) / roomPercent * 100);
        return Math.min(softMax, maxHeap);
    }

    /** Paces the collector for what the last cycle left live. */
    void paceFor(long live) {
        long target = softMaxFor(live, maxHeap, percents);
        if (Math.abs(target - softMax) < softMax / SETTLE_DIVISOR) return;
        try {
            hotspot.setVMOption("SoftMaxHeapSize", Long.toString(target));
            softMax = target;
        } catch (RuntimeException refused) {
            // Outside what the flag accepts: the collector keeps its own pace.
        }
    }
}
