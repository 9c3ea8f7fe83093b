package io.cinnabar.command;

import io.cinnabar.config.ConfigOptions;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * maxmemory as Redis's processCommand enforces it before running a command: past the limit, with
 * nothing to evict, commands that may grow memory (deny-oom, and anything queued in MULTI) are
 * refused with OOM. Eviction itself is not implemented yet, so only the noeviction policy (the
 * default) refuses; under other policies commands run as before. Nothing is refused during a
 * CLIENT PAUSE, when Redis does not evict either.
 */
public final class MemoryLimit {
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";

    private MemoryLimit() {}

    public static boolean outOfMemory(ServerContext server) {
        long max = server.config().getLong(ConfigOptions.MAXMEMORY);
        if (max == 0 || server.pause().isActive()) return false;
        if (!"noeviction".equals(server.config().getString(ConfigOptions.MAXMEMORY_POLICY))) return false;
        return liveHeap() > max;
    }

    /**
     * Heap in use as of the last collection when the JVM reports it (garbage not yet collected
     * is not data), else the heap in use now.
     */
    private static long liveHeap() {
        long afterGc = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP) continue;
            MemoryUsage u = pool.getCollectionUsage();
            if (u != null) afterGc += u.getUsed();
        }
        if (afterGc > 0) return afterGc;
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
