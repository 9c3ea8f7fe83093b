package io.cinnabar.command;

/**
 * A rate INFO prints as instantaneous_* (ops/sec, input/output bytes/sec): Redis's
 * trackInstantaneousMetric, sampled every 100 ms by the cron, the mean of the last 16 samples.
 * Keyspace thread only.
 */
public final class InstantaneousMetric {
    private static final int SAMPLES = 16;
    private final long[] samples = new long[SAMPLES];
    private int next;
    private long lastSampleMs;
    private long lastCount;

    /** Records the rate since the previous sample; count is the counter's current reading. */
    void sample(long nowMs, long count) {
        long elapsed = nowMs - lastSampleMs;
        samples[next] = elapsed > 0 ? (count - lastCount) * 1000 / elapsed : 0;
        next = (next + 1) % SAMPLES;
        lastSampleMs = nowMs;
        lastCount = count;
    }

    /** Per second, the mean of the samples. */
    public long perSecond() {
        long sum = 0;
        for (long s : samples) sum += s;
        return sum / SAMPLES;
    }

    void reset(long nowMs) {
        java.util.Arrays.fill(samples, 0);
        next = 0;
        lastSampleMs = nowMs;
        lastCount = 0;
    }
}
