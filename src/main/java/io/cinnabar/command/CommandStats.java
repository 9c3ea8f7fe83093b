package io.cinnabar.command;

/** Per-command counters for INFO commandstats and latencystats; keyspace thread only. */
public final class CommandStats {
    public long calls;
    /** Time spent, summed in nanoseconds ({@link #usec()}). */
    private long nanos;
    public long rejectedCalls;
    public long failedCalls;
    /** Latencies while latency-tracking is on; null until the first (as Redis allocates it). */
    public LatencyHistogram histogram;

    void addTime(long nanos) {
        this.nanos += nanos;
    }

    /**
     * INFO's usec: the sum in microseconds. Each command's time truncated to whole microseconds
     * would count those under one as 0, where Redis's ustime() deltas average out to the true time.
     */
    public long usec() {
        return nanos / 1000;
    }

    void recordLatency(long nanos) {
        if (histogram == null) histogram = new LatencyHistogram();
        histogram.record(nanos);
    }

    public void resetCounters() {
        calls = nanos = rejectedCalls = failedCalls = 0;
        histogram = null;
    }
}
