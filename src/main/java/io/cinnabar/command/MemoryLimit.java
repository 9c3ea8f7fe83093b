package io.cinnabar.command;

import io.cinnabar.command.server.HeapReturn;
import io.cinnabar.config.ConfigOption;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Eviction;
import io.cinnabar.keyspace.EvictionPolicy;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;

/**
 * maxmemory as Redis's processCommand enforces it before running a command (performEvictions):
 * past the limit, keys are evicted under the maxmemory-policy; when nothing may be evicted,
 * commands that may grow memory (deny-oom, and anything queued in MULTI) are refused with OOM.
 * Nothing is evicted or refused during a CLIENT PAUSE, as in Redis.
 * <p>
 * Used memory is {@link #usedMemory}: the keyspace's running estimate of its data (not the JVM
 * heap, whose garbage comes and goes) plus what an empty server reports, the clients and the
 * replication buffers; maxmemory holds it without the replication buffers past
 * repl-backlog-size, as Redis's freeMemoryGetNotCountedMemory. Eviction that takes
 * longer than maxmemory-eviction-tenacity allows goes on in a timer task, so latency stays flat.
 * <p>
 * The JVM's maximum heap is also a hard limit, which Redis does not have: data may fill
 * {@link #IMPLICIT_SHARE} of it, whatever the policy, and writes are refused past that, so
 * that the heap never runs out under a server that keeps answering reads, DEL and FLUSHALL.
 */
public final class MemoryLimit {
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    /** The collector needs room to work in: the rest of the heap is its. */
    static final double IMPLICIT_SHARE = 0.75;
    private static final long IMPLICIT_LIMIT = (long) (Runtime.getRuntime().maxMemory() * IMPLICIT_SHARE);
    /** used_memory_startup: what Redis 7.0.15 reports before it holds any data. */
    public static final long STARTUP_BYTES = 875_960;

    /** maxmemory-samples goes to INT_MAX as in Redis; more than this per database only costs time. */
    private static final int MAX_SAMPLES = 1024;
    private static final ConfigOption REPL_BACKLOG_SIZE = io.cinnabar.config.Config.option("repl-backlog-size");
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MemoryLimit.class);
    private final ServerContext server;
    private EvictionPolicy policy;
    private boolean evictionTaskRunning;

    MemoryLimit(ServerContext server) {
        this.server = server;
        configChanged(ConfigOptions.MAXMEMORY_POLICY);
        server.keyspace().tableGrowth(bytes -> {
            long max = server.config().getLong(ConfigOptions.MAXMEMORY);
            return max == 0 || countedMemory() + bytes <= max;
        });
        server.config().onChange(this::configChanged);
    }

    private void configChanged(ConfigOption o) {
        var config = server.config();
        if (o == ConfigOptions.MAXMEMORY_POLICY || o == ConfigOptions.LFU_LOG_FACTOR || o == ConfigOptions.LFU_DECAY_TIME) {
            policy = EvictionPolicy.of(config.getString(ConfigOptions.MAXMEMORY_POLICY));
            server.keyspace().accessTracking(policy, config.getInt(ConfigOptions.LFU_LOG_FACTOR),
                    config.getInt(ConfigOptions.LFU_DECAY_TIME));
        } else if (o == ConfigOptions.MAXMEMORY) {
            // Redis's updateMaxmemory: a lower limit starts evicting now, not at the next command.
            server.thread().execute(() -> {
                long max = config.getLong(ConfigOptions.MAXMEMORY), used = countedMemory();
                if (max > 0 && max < used) {
                    log.warn("WARNING: the new maxmemory value set via CONFIG SET ({}) is smaller than the current memory "
                            + "usage ({}). This will result in key eviction and/or the inability to accept new write "
                            + "commands depending on the maxmemory-policy.", max, used);
                }
                startEvictionTask();
            });
        }
    }

    /**
     * Redis's used_memory: the data's estimate plus what an empty server holds, the scripts and the clients.
     * Every command asks when maxmemory is set, so it costs a sum over the databases only: the
     * scripts' share (a walk of the script cache) is refreshed by the cron, the clients' as
     * {@link #clientBytes} says.
     */
    public long usedMemory() {
        return heldBytes() + clientBytes() + replicationBytes;
    }

    /**
     * What maxmemory is held to: used memory but the replication buffers past repl-backlog-size
     * (Redis's freeMemoryGetNotCountedMemory), so that a slow replica does not evict the data.
     */
    private long countedMemory() {
        return usedMemory() - notCountedForEvict();
    }

    /** INFO's mem_not_counted_for_evict. */
    public long notCountedForEvict() {
        return Math.max(0, replicationBytes - server.config().getLong(REPL_BACKLOG_SIZE));
    }

    /**
     * INFO's mem_total_replication_buffers: the backlog's blocks and the stream queued for the
     * replicas (one copy they share), as of the last measure of the clients.
     */
    public long replicationBytes() {
        return replicationBytes;
    }

    /** The non-replica clients' share of used memory (INFO's mem_clients_normal), as of the last measure. */
    public long normalClientBytes() {
        return normalClientBytes;
    }

    /** used_memory without the clients' buffers (mostly direct memory, not the heap's). */
    private long heldBytes() {
        return STARTUP_BYTES + server.keyspace().dataBytes() + scriptBytes;
    }

    /**
     * Clients' buffers count as Redis's do (its allocator sees them): a sum over the clients,
     * taken by the cron while maxmemory is set, by INFO, and, after a client's buffers grew by a
     * big request or reply, by the next command that asks, at most once a millisecond.
     */
    private long clientBytes() {
        if (clientsGrew) {
            long now = System.nanoTime();
            if (now - clientsMeasuredNanos >= 1_000_000L) measureClients(now);
        }
        return clientBytes;
    }

    /**
     * The clients' share of {@link #usedMemory} for INFO mem_clients_normal and MEMORY STATS:
     * measured anew unless the last measure is under a millisecond old and no client's buffers
     * grew by a big request or reply since. The walk over the clients was a sixth of INFO memory's
     * CPU with 50 clients polling it; Redis keeps the sum as its clients change instead.
     */
    public long measureClientsNow() {
        long now = System.nanoTime();
        if (clientsGrew || now - clientsMeasuredNanos >= 1_000_000L) measureClients(now);
        return clientBytes;
    }

    private long clientBytes;
    private long normalClientBytes;
    private long replicationBytes;
    private long clientsMeasuredNanos;
    /** Set from any event loop; read on the keyspace thread. */
    private volatile boolean clientsGrew;

    /** A big request is arriving or a big reply was queued: used memory counts it from the next command on. */
    public void clientBuffersGrew() {
        if (!clientsGrew) clientsGrew = true;
    }

    private void measureClients(long now) {
        clientsGrew = false;
        clientsMeasuredNanos = now;
        long total = 0, normal = 0;
        for (Client c : server.clients()) {
            c.memoryCounted = c.leaving() ? 0 : ClientMemory.of(c, null);
            if (c.isReplica()) {
                // Its queue holds the stream, which the replicas share: counted once, below.
                c.memoryCounted -= Math.min(c.memoryCounted, c.channel().pendingOutputBytes());
            } else {
                normal += c.memoryCounted;
            }
            total += c.memoryCounted;
        }
        clientBytes = total;
        normalClientBytes = normal;
        ReplicationBacklog backlog = server.history().backlog();
        ReplicaLinks replicas = server.component(ReplicaLinks.class, null);
        replicationBytes = (backlog != null ? backlog.allocated() : 0) + (replicas != null ? replicas.pendingBytes() : 0);
    }

    /** A client is gone: what it held leaves used memory now, as Redis frees it when it frees the client. */
    public void clientLeft(Client c) {
        clientBytes = Math.max(0, clientBytes - c.memoryCounted);
        if (!c.isReplica()) {
            normalClientBytes = Math.max(0, normalClientBytes - c.memoryCounted);
        } else {
            clientsGrew = true; // what it alone was owed leaves the replication buffers
        }
        c.memoryCounted = 0;
    }

    private long scriptBytes;

    private void measureScripts() {
        var engine = server.component(io.cinnabar.command.scripting.ScriptEngine.class, null);
        if (engine == null) return;
        var m = engine.memory();
        scriptBytes = m.scriptsEvalBytes() + m.functionsBytes();
    }

    private long peak;

    /** used_memory_peak: the highest used memory seen, now included. */
    public long peak(long usedNow) {
        peak = Math.max(peak, usedNow);
        return peak;
    }

    public EvictionPolicy policy() {
        return policy;
    }

    /**
     * Before a command: evicts if over maxmemory; true when the command, if it may grow memory
     * (mayGrowMemory), must be refused with OOM.
     */
    boolean beforeCommand(boolean mayGrowMemory) {
        if (server.pause().isActive()) return false;
        boolean oom = server.config().getLong(ConfigOptions.MAXMEMORY) > 0 && performEvictions() == Eviction.Result.NOTHING;
        return mayGrowMemory && (oom || overImplicitLimit());
    }

    /** Whether a command that may grow memory would be refused now (scripts without allow-oom). */
    public boolean outOfMemory() {
        if (server.pause().isActive()) return false;
        long max = server.config().getLong(ConfigOptions.MAXMEMORY);
        return (max > 0 && countedMemory() > max) || overImplicitLimit();
    }

    /** Redis's performEvictions: DONE when under the limit (now or already). */
    Eviction.Result performEvictions() {
        long max = server.config().getLong(ConfigOptions.MAXMEMORY);
        if (server.keyspace().isLoading() || MasterLink.ignoresMaxmemory(server)) return Eviction.Result.DONE;
        long used = countedMemory();
        if (max == 0 || used <= max) {
            overLimit(false);
            return Eviction.Result.DONE;
        }
        overLimit(true);
        if (!policy.evicts()) return Eviction.Result.NOTHING;
        Eviction.Result r = server.keyspace().eviction().evict(policy, used - max,
                Math.min(server.config().getInt(ConfigOptions.MAXMEMORY_SAMPLES), MAX_SAMPLES), timeLimitNanos());
        if (r == Eviction.Result.RUNNING) startEvictionTask();
        returnEvictedHeap(used - countedMemory(), max);
        return r;
    }

    /**
     * Under steady eviction, what evicted values held is garbage the collector would leave on the
     * heap until its own next cycle, and the process's RSS grows far past maxmemory: after every
     * quarter of maxmemory evicted (16 MB at least), a concurrent cycle gives it back.
     */
    private void returnEvictedHeap(long freed, long max) {
        evictedSinceCycle += Math.max(0, freed);
        if (evictedSinceCycle >= Math.max(16L << 20, max / 4)) {
            evictedSinceCycle = 0;
            HeapReturn.collectSoon();
        }
    }

    private long evictedSinceCycle;
    /** When used memory last went over maxmemory (System.nanoTime), 0 while under it. */
    private long overSince;
    private long overTotalNanos;

    /** Redis's stat_last_eviction_exceeded_time bookkeeping. */
    private void overLimit(boolean over) {
        if (over && overSince == 0) {
            overSince = System.nanoTime();
        } else if (!over && overSince != 0) {
            overTotalNanos += System.nanoTime() - overSince;
            overSince = 0;
        }
    }

    /** INFO's current_eviction_exceeded_time: ms for which used memory has been over maxmemory, 0 when under. */
    public long currentExceededMs() {
        return overSince == 0 ? 0 : (System.nanoTime() - overSince) / 1_000_000;
    }

    /** INFO's total_eviction_exceeded_time: ms spent over maxmemory since start-up or CONFIG RESETSTAT. */
    public long totalExceededMs() {
        return overTotalNanos / 1_000_000 + currentExceededMs();
    }

    /** CONFIG RESETSTAT. */
    public void resetStats() {
        overTotalNanos = 0;
        overSince = 0;
    }

    /** Redis's evictionTimeLimitUs: 50 us per tenacity point up to 10, then 15% more per point; 100 is unlimited. */
    private long timeLimitNanos() {
        int tenacity = server.config().getInt(ConfigOptions.MAXMEMORY_EVICTION_TENACITY);
        if (tenacity <= 10) return 50_000L * tenacity;
        if (tenacity < 100) return (long) (500_000.0 * Math.pow(1.15, tenacity - 10.0));
        return Long.MAX_VALUE;
    }

    /** Redis's startEvictionTimeProc: eviction goes on between commands until under the limit. */
    private void startEvictionTask() {
        if (evictionTaskRunning) return;
        evictionTaskRunning = true;
        server.thread().schedule(0, this::evictionTask);
    }

    private void evictionTask() {
        evictionTaskRunning = false;
        if (server.pause().isActive()) return;
        server.keyspace().beginCommand();
        try {
            if (performEvictions() == Eviction.Result.RUNNING) startEvictionTask();
        } finally {
            server.keyspace().endCommand();
            // Each eviction's DEL goes out on its own, as the active expire cycle's.
            server.propagation().endUnit(false);
        }
    }

    /** serverCron's share: still over the limit (a write grew a value), eviction goes on. */
    void cron() {
        measureScripts();
        // A pass over every client: only while maxmemory needs it (INFO measures for itself).
        if (server.config().getLong(ConfigOptions.MAXMEMORY) > 0) measureClients(System.nanoTime());
        peak(usedMemory());
        if (server.config().getLong(ConfigOptions.MAXMEMORY) > 0 && !server.pause().isActive() && !MasterLink.ignoresMaxmemory(server)
                && countedMemory() > server.config().getLong(ConfigOptions.MAXMEMORY) && policy.evicts()) {
            startEvictionTask();
        }
    }

    private boolean overImplicitLimit() {
        // Data well below the limit needs no look at the heap (two calls into the JVM per write):
        // even doubled, as values a snapshot keeps for itself can double it, it stays under. The
        // clients' share is left out: measuring it walks the clients.
        if (heldBytes() <= IMPLICIT_LIMIT / 2) return false;
        Runtime rt = Runtime.getRuntime();
        // Cheap first, as every write asks: a committed heap below the limit (the usual case)
        // holds less data than that; then the heap in use, garbage counted.
        long committed = rt.totalMemory();
        if (committed <= IMPLICIT_LIMIT || committed - rt.freeMemory() <= IMPLICIT_LIMIT) return false;
        if (liveHeap() <= IMPLICIT_LIMIT) return false;
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
