package io.cinnabar.command.server;

import java.lang.management.ManagementFactory;

/**
 * After a flush drops many keys, asks the collector for a cycle so that the heap they held is
 * collected and given back to the system within seconds, not at the collector's next periodic
 * cycle (30 s with Shenandoah's compact heuristics). Only where an explicit collection runs
 * concurrently (ExplicitGCInvokesConcurrent: on by default with Shenandoah): a stop-the-world
 * full collection of a large heap is exactly the pause this must not cause.
 */
final class HeapReturn {
    /** Below this many keys the collector's own pace is soon enough. */
    private static final long MIN_DROPPED_KEYS = 10_000;
    private static final boolean CONCURRENT = explicitGcIsConcurrent();
    /** One request at a time: flushes in a row need one cycle, not a queue of them. */
    private static final java.util.concurrent.atomic.AtomicBoolean REQUESTED = new java.util.concurrent.atomic.AtomicBoolean();

    private HeapReturn() {}

    static void afterFlush(long droppedKeys) {
        if (!CONCURRENT || droppedKeys < MIN_DROPPED_KEYS || !REQUESTED.compareAndSet(false, true)) return;
        // System.gc() waits for the whole cycle: not on the keyspace thread.
        Thread t = new Thread(() -> {
            try {
                System.gc();
            } finally {
                REQUESTED.set(false);
            }
        }, "cinnabar-heap-return");
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
