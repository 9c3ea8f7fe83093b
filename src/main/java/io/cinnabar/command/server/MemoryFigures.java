package io.cinnabar.command.server;

import io.cinnabar.command.MemoryLimit;
import io.cinnabar.command.ServerContext;
import io.cinnabar.keyspace.Keyspace;

/**
 * The figures INFO memory and MEMORY STATS/DOCTOR report, computed once per request as Redis's
 * getMemoryOverheadData: used memory is the data's estimate plus the overheads; the JVM heap
 * (in use, committed) plays the allocator's part and RSS is the process's.
 */
record MemoryFigures(long used, long peak, long startup, long scripts, long clients, long replicationBacklog,
                     long replicaClients, long overhead, long dataset, long keys, long heapUsed, long heapCommitted, long rss,
                     long[] dbTableBytes) {

    static MemoryFigures of(ServerContext server) {
        MemoryLimit limit = server.memoryLimit();
        Keyspace ks = server.keyspace();
        long allClients = limit.measureClientsNow();
        long replication = limit.replicationBytes();
        long used = limit.usedMemory();
        long peak = limit.peak(used);
        long scripts = used - MemoryLimit.STARTUP_BYTES - ks.dataBytes() - allClients - replication;
        // As Redis's getMemoryOverheadData: with replicas, the replication buffers past the backlog's size are theirs.
        long backlogSize = server.config().getLong(io.cinnabar.config.Config.option("repl-backlog-size"));
        var replicas = server.component(io.cinnabar.command.ReplicaLinks.class, null);
        boolean shared = replicas != null && replicas.hasReplicas() && replication > backlogSize;
        long[] tables = new long[ks.databaseCount()];
        long tableBytes = 0;
        for (int i = 0; i < tables.length; i++) {
            if (ks.db(i).size() == 0) continue;
            tables[i] = ks.db(i).tableBytes();
            tableBytes += tables[i];
        }
        long overhead = MemoryLimit.STARTUP_BYTES + scripts + allClients + replication + tableBytes;
        Runtime rt = Runtime.getRuntime();
        long committed = rt.totalMemory();
        return new MemoryFigures(used, peak, MemoryLimit.STARTUP_BYTES, scripts, limit.normalClientBytes(),
                shared ? backlogSize : replication, shared ? replication - backlogSize : 0, overhead, used - overhead,
                ks.totalKeys(), committed - rt.freeMemory(), committed, residentSetSize(committed), tables);
    }

    /** What the data adds to an empty server. */
    long netUsage() {
        return Math.max(0, used - startup);
    }

    double datasetPercentage() {
        return netUsage() == 0 ? 0 : dataset * 100.0 / netUsage();
    }

    double peakPercentage() {
        return peak == 0 ? 0 : used * 100.0 / peak;
    }

    long bytesPerKey() {
        return keys == 0 ? 0 : netUsage() / keys;
    }

    static double ratio(long a, long b) {
        return b == 0 ? 0 : (double) a / b;
    }

    static long residentSetSize(long fallback) {
        long rss = ProcStats.residentBytes();
        return rss < 0 ? fallback : rss;
    }
}
