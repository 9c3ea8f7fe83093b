package io.cinnabar.command;

import java.util.Map;
import java.util.TreeMap;

/** Server-wide counters for INFO; keyspace thread only. */
public final class ServerStats {
    /**
     * Distinct error codes errorstats tracks. Redis 7.0.15 has no bound (7.2 added this one,
     * ERROR_STATS_NUMBER): scripts can reply errors with any code, and each would stay forever.
     */
    private static final int MAX_ERROR_CODES = 128;

    public long totalConnectionsReceived;
    public long totalCommandsProcessed;
    public long rejectedConnections;
    /** INFO's sync_full, sync_partial_ok and sync_partial_err: what replicas' SYNC and PSYNC got. */
    public long syncFull, syncPartialOk, syncPartialErr;
    /** Clients closed by maxmemory-clients (INFO evicted_clients). */
    public long evictedClients;
    public long totalErrorReplies;
    /** Reads from client sockets and their bytes; added to by the event loops. */
    public final java.util.concurrent.atomic.LongAdder reads = new java.util.concurrent.atomic.LongAdder();
    public final java.util.concurrent.atomic.LongAdder netInputBytes = new java.util.concurrent.atomic.LongAdder();
    public long netOutputBytes;
    /** Replies handed to a connection (total_writes_processed). */
    public long writes;
    /** instantaneous_ops_per_sec, instantaneous_input_kbps, instantaneous_output_kbps. */
    public final InstantaneousMetric opsPerSecond = new InstantaneousMetric();
    public final InstantaneousMetric inputPerSecond = new InstantaneousMetric();
    public final InstantaneousMetric outputPerSecond = new InstantaneousMetric();
    private long lastSampleMs;
    public long unexpectedErrorReplies;
    /**
     * INFO total_forks and latest_fork_usec: background saves (BGSAVE, AOF rewrites) started, and
     * how long the last one held the keyspace thread while taking its point-in-time view, where
     * Redis's fork() would have held it. Tools and Redis's tests watch total_forks to see one start.
     */
    public long backgroundSavesStarted;
    public long lastBackgroundSaveStartMicros;
    /** INFO errorstats: error code (the message's first word) to count, sorted as Redis's rax. */
    private final Map<String, long[]> errorCodes = new TreeMap<>();

    /**
     * Counts one error reply, by its code as Redis's afterErrorReply finds it: the first word when
     * a space comes within the reply's first 32 bytes ("-" included), else "ERR".
     */
    public void errorReply(String message) {
        totalErrorReplies++;
        int space = message.indexOf(' ');
        String code = space >= 0 && space < 31 ? message.substring(0, space) : "ERR";
        long[] n = errorCodes.get(code);
        if (n == null) {
            if (errorCodes.size() >= MAX_ERROR_CODES) return;
            errorCodes.put(code, n = new long[1]);
        }
        n[0]++;
    }

    /** From the cron: a sample of each instantaneous metric every 100 ms, as Redis's serverCron. */
    void sampleRates(long nowMs) {
        if (nowMs - lastSampleMs < 100) return;
        lastSampleMs = nowMs;
        opsPerSecond.sample(nowMs, totalCommandsProcessed);
        inputPerSecond.sample(nowMs, netInputBytes.sum());
        outputPerSecond.sample(nowMs, netOutputBytes);
    }

    public Map<String, long[]> errorCodes() {
        return errorCodes;
    }

    public void reset(long nowMs) {
        totalConnectionsReceived = 0;
        totalCommandsProcessed = 0;
        rejectedConnections = 0;
        syncFull = syncPartialOk = syncPartialErr = 0;
        evictedClients = 0;
        totalErrorReplies = 0;
        netInputBytes.reset();
        reads.reset();
        writes = 0;
        netOutputBytes = 0;
        opsPerSecond.reset(nowMs);
        inputPerSecond.reset(nowMs);
        outputPerSecond.reset(nowMs);
        unexpectedErrorReplies = 0;
        backgroundSavesStarted = 0;
        lastBackgroundSaveStartMicros = 0;
        errorCodes.clear();
    }
}
