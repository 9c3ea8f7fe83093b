package io.cinnabar.command.server;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gives the heap that garbage holds back to the system within seconds, not at the collector's
 * next periodic cycle (30 s with Shenandoah's compact heuristics), by asking for one concurrent
 * cycle when the server has just dropped many keys (a flush), has gone quiet after a burst of
 * allocation (a bulk load leaves hundreds of MB of request garbage behind, measured: 590 MB of
 * heap in use for 113 MB of live keys), holds more garbage than live data while busy where the
 * collector cannot be paced to collect it by itself ({@link CollectorPacing}), or refuses writes for memory
 * by what the last cycle counted ({@link io.cinnabar.command.MemoryLimit}: keys deleted since then
 * free room). Only where an explicit collection runs concurrently (ExplicitGCInvokesConcurrent: on
 * by default with Shenandoah): a stop-the-world full collection of a large heap is exactly the
 * pause this must not cause.
 */
public final class HeapReturn {
    /** Below this many keys the collector's own pace is soon enough. */
    private static final long MIN_DROPPED_KEYS = 10_000;
    /** Heap allocated per second below which the server counts as quiet. */
    private static final long QUIET_ALLOCATION_PER_SECOND = 4L << 20;
    /** Garbage worth a cycle: this much, or a quarter of what the last cycle left, if more. */
    private static final long MIN_GARBAGE = 16L << 20;
    private static final boolean CONCURRENT = explicitGcIsConcurrent();
    /** One request at a time: flushes in a row need one cycle, not a queue of them. */
    private static final AtomicBoolean REQUESTED = new AtomicBoolean();
    private static final AtomicBoolean WATCHING = new AtomicBoolean();

    private HeapReturn() {}

    static void afterFlush(long droppedKeys) {
        if (droppedKeys >= MIN_DROPPED_KEYS) collectSoon();
    }

    /**
     * For a server that owns its process: a cycle now, for what start-up left behind (the JIT
     * warm-up's requests: ~20 MB, which the quiet rule's floor let stay), then once a second, a
     * quiet heap holding much garbage gets a cycle. Not for embedded servers, whose heap belongs
     * to the application around them.
     */
    public static void watchQuietPeriods() {
        if (!CONCURRENT || !WATCHING.compareAndSet(false, true)) return;
        collectSoon();
        List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported())
                .toList();
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        CollectorPacing pacing = CollectorPacing.ofThisJvm();
        Thread t = new Thread(() -> {
            long previousUsed = used(heapPools);
            long previousCollections = collections(collectors);
            boolean busyBefore = false;
            boolean inBurst = false;
            boolean cycledInBurst = false;
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long used = used(heapPools);
                long live = 0;
                for (MemoryPoolMXBean pool : heapPools) {
                    MemoryUsage afterLastCycle = pool.getCollectionUsage();
                    if (afterLastCycle != null) live += afterLastCycle.getUsed();
                }
                if (pacing != null) pacing.paceFor(live);
                long collections = collections(collectors);
                // A burst: seconds of growth, and the seconds of the cycles that ran meanwhile.
                if (used - previousUsed >= QUIET_ALLOCATION_PER_SECOND) inBurst = true;
                if (inBurst && collections != previousCollections) cycledInBurst = true;
                if (worthACycle(previousUsed, used, live, pacing != null, busyBefore, cycledInBurst)) collectSoon();
                boolean quiet = quiet(previousUsed, used);
                if (quiet) inBurst = cycledInBurst = false;
                busyBefore = !quiet;
                previousUsed = used;
                previousCollections = collections;
            }
        }, "cinnabar-heap-return");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Heap in use a second ago and now, and what the last cycle left: quiet, with much garbage? Or
     * busy, holding more garbage than live data (at least {@link CollectorPacing#BUSY_GARBAGE}), with
     * a collector that is not paced to collect it by itself?
     * <p>
     * The first quiet second after a busy one needs only {@link #MIN_GARBAGE}: what the last cycle
     * left then counts what was allocated while it ran, so a cycle that ended near the end of a
     * burst leaves "live" far above the truth. Measured after loading ~950k keys: the last cycle
     * reported 151 MB for ~115 MB of keys, the 34 MB garbage stayed under a quarter of that, and
     * the heap stayed at 188 MB (RSS 260 MB instead of 183) until the periodic cycle 30 s later.
     * And when a cycle ended during the burst, the garbage it counted as live is not even seen
     * (cycledInBurst): the quiet second collects whatever it measures. Measured: the last cycle of
     * a load ended 0.2 s before the load did, counting 159 MB, and the heap settled at 175 MB used
     * (RSS 244 MB) where a cycle leaves 119 MB (RSS 182 MB).
     */
    static boolean worthACycle(long previousUsed, long used, long live, boolean paced, boolean busyBefore,
            boolean cycledInBurst) {
        if (quiet(previousUsed, used)) {
            if (busyBefore && cycledInBurst) return true;
            return used - live > (busyBefore ? MIN_GARBAGE : Math.max(MIN_GARBAGE, live / 4));
        }
        return !paced && used - live > Math.max(CollectorPacing.BUSY_GARBAGE, live);
    }

    /** Little allocated in the second, and no cycle ran (a drop: the next second tells whether it is quiet). */
    private static boolean quiet(long previousUsed, long used) {
        return used >= previousUsed && used - previousUsed < QUIET_ALLOCATION_PER_SECOND;
    }

    /** Collections (cycles and pauses) counted so far: a change says one ran. */
    private static long collections(List<GarbageCollectorMXBean> collectors) {
        long n = 0;
        for (GarbageCollectorMXBean c : collectors) n += Math.max(0, c.getCollectionCount());
        return n;
    }

    private static long used(List<MemoryPoolMXBean> pools) {
        long used = 0;
        for (MemoryPoolMXBean pool : pools) used += pool.getUsage().getUsed();
        return used;
    }

    /** Asks for one concurrent cycle, unless one was asked for and has not ended yet. */
    public static void collectSoon() {
        if (!CONCURRENT || !REQUESTED.compareAndSet(false, true)) return;
        // System.gc() waits for the whole cycle: not on the keyspace thread.
        Thread t = new Thread(() -> {
            try {
                System.gc();
            } finally {
                REQUESTED.set(false);
            }
        }, "cinnabar-heap-return-cycle");
        t.setDaemon(true);
        t.start();
    }

    private static boolean explicitGcIsConcurrent() {
        try {
            var hotspot = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return hotspot != null && Boolean.parseBoolean(hotspot.getVMOption("ExplicitGCInvokesConcurrent").getValue())
                    && !Boolean.parseBoolean(hotspot.getVMOption("DisableExplicitGC").getValue());
        } catch (RuntimeException | LinkageError notHotSpot) {
            return false;
        }
    }
}
