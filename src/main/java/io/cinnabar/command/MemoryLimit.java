package io.cinnabar.command;

import io.cinnabar.command.server.HeapReturn;
import io.cinnabar.config.ConfigOptions;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * maxmemory as Redis's processCommand enforces it before running a command: past the limit, with
 * nothing to evict, commands that may grow memory (deny-oom, and anything queued in MULTI) are
 * refused with OOM. Eviction itself is not implemented yet, so only the noeviction policy (the
 * default) refuses; under other policies commands run as before. Nothing is refused during a
 * CLIENT PAUSE, when Redis does not evict either.
 * <p>
 * With maxmemory 0 the JVM's maximum heap is still a hard limit, which Redis does not have: data
 * may fill {@link #IMPLICIT_SHARE} of it, whatever the policy, and writes are refused past that,
 * so that the heap never runs out under a server that keeps answering reads, DEL and FLUSHALL.
 */
public final class MemoryLimit {
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    /** The collector needs room to work in: the rest of the heap is its. */
    static final double IMPLICIT_SHARE = 0.75;
    private static final long IMPLICIT_LIMIT = (long) (Runtime.getRuntime().maxMemory() * IMPLICIT_SHARE);

    private MemoryLimit() {}

    public static boolean outOfMemory(ServerContext server) {
        if (server.pause().isActive()) return false;
        long max = server.config().getLong(ConfigOptions.MAXMEMORY);
        if (max == 0) return overImplicitLimit();
        if (!"noeviction".equals(server.config().getString(ConfigOptions.MAXMEMORY_POLICY))) return false;
        return over(max);
    }

    private static boolean overImplicitLimit() {
        Runtime rt = Runtime.getRuntime();
        // Cheap first (two counters): below the limit with the garbage counted, the data is too.
        if (rt.totalMemory() - rt.freeMemory() <= IMPLICIT_LIMIT) return false;
        return over(IMPLICIT_LIMIT);
    }

    private static boolean over(long limit) {
        if (liveHeap() <= limit) return false;
        // What the last collection left may have been deleted since (DEL, FLUSHALL): a fresh
        // count lets writes in again, instead of at the collector's next periodic cycle.
        HeapReturn.collectSoon();
        return true;
    }

    /**
     * Heap in use as of the last collection when the JVM reports it (garbage not yet collected
     * is not data), else the heap in use now.
     */
    private static long liveHeap() {
        long afterGc = 0;
        for (MemoryPoolMXBean pool : HeapPools.ALL) {
            MemoryUsage u = pool.getCollectionUsage();
            if (u != null) afterGc += u.getUsed();
        }
        if (afterGc > 0) return afterGc;
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** Loaded on first use only: the management classes cost tens of ms of a server's first start. */
    private static final class HeapPools {
        static final List<MemoryPoolMXBean> ALL = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
    }
}
