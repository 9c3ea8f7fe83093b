package io.cinnabar.command.server;

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
 * heap in use for 113 MB of live keys), holds more garbage than live data while busy (the
 * collector's own trigger lets it grow to 10% of the maximum heap), or refuses writes for memory
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
     * For a server that owns its process: once a second, a quiet heap holding much garbage gets
     * a cycle. Not for embedded servers, whose heap belongs to the application around them.
     */
    public static void watchQuietPeriods() {
        if (!CONCURRENT || !WATCHING.compareAndSet(false, true)) return;
        List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported())
                .toList();
        Thread t = new Thread(() -> {
            // From the start: start-up leaves its own garbage (~20 MB) for the first quiet second.
            long previousUsed = used(heapPools);
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
                if (worthACycle(previousUsed, used, live)) collectSoon();
                previousUsed = used;
            }
        }, "cinnabar-heap-return");
        t.setDaemon(true);
        t.start();
    }

    /** Heap in use a second ago and now, and what the last cycle left: quiet, with much garbage? */
    static boolean worthACycle(long previousUsed, long used, long live) {
        // A drop means a cycle ran meanwhile: the next second tells whether it is quiet.
        boolean quiet = used >= previousUsed && used - previousUsed < QUIET_ALLOCATION_PER_SECOND;
        if (quiet) return used - live > Math.max(MIN_GARBAGE, live / 4);
        return used - live > Math.max(BUSY_GARBAGE, live);
    }

    /**
     * Under load, garbage worth a cycle anyway: this much, or as much as the last cycle left live,
     * if more. Shenandoah's compact heuristics wait for 10% of the maximum heap (600 MB of a 6 GB
     * default) to be allocated: measured with 1M keys under redis-benchmark -t set,get -c 50 -n
     * 2000000 -r 1000000 -d 32, the RSS peak went from 803-810 MB to 466-471 MB, CPU per request
     * 10.3-11.4 us without, 10.8-10.9 us with. Half the live heap gave a 394-398 MB peak but cost
     * 11.6-11.9 us per request.
     */
    private static final long BUSY_GARBAGE = 64L << 20;

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
