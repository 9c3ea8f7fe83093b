package io.cinnabar.command;

/** Per-command counters for INFO commandstats and latencystats; keyspace thread only. */
public final class CommandStats {
    public long calls;
    public long micros;
    public long rejectedCalls;
    public long failedCalls;
    /** Latencies while latency-tracking is on; null until the first (as Redis allocates it). */
    public LatencyHistogram histogram;

    void recordLatency(long nanos) {
        if (histogram == null) histogram = new LatencyHistogram();
        histogram.record(nanos);
    }

    public void resetCounters() {
        calls = micros = rejectedCalls = failedCalls = 0;
        histogram = null;
    }
}
