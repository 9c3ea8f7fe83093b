package io.cinnabar.command;

/**
 * One command's latencies in nanoseconds, laid out as the HDR histogram Redis keeps per command
 * (hdr_init(1, 1_000_000_000, 2)): 256 linear sub-buckets per power of two (the lower half shared
 * with the previous power), so a value is kept to two significant digits. The same layout gives
 * INFO latencystats and LATENCY HISTOGRAM the same numbers Redis prints. Recording is a clamp,
 * a leading-zeros count, a shift and an array increment; the 24 KB of counts are allocated on a
 * command's first call. Keyspace thread only.
 */
public final class LatencyHistogram {
    static final long MIN_VALUE = 1;
    static final long MAX_VALUE = 1_000_000_000L;
    private static final int SUB_BUCKET_COUNT = 256;
    private static final int SUB_BUCKET_HALF_COUNT = 128;
    private static final int SUB_BUCKET_HALF_COUNT_MAGNITUDE = 7;
    private static final long SUB_BUCKET_MASK = SUB_BUCKET_COUNT - 1;
    /** Powers of two past the first 256 values until MAX_VALUE is covered (hdr's bucket_count). */
    private static final int BUCKET_COUNT = 23;
    private static final int COUNTS_LEN = (BUCKET_COUNT + 1) * SUB_BUCKET_HALF_COUNT;

    private final long[] counts = new long[COUNTS_LEN];
    private long totalCount;

    /** Records one duration, clamped to 1 ns .. 1 s as Redis's updateCommandLatencyHistogram does. */
    public void record(long nanos) {
        long v = nanos < MIN_VALUE ? MIN_VALUE : Math.min(nanos, MAX_VALUE);
        counts[countsIndex(v)]++;
        totalCount++;
    }

    public long totalCount() {
        return totalCount;
    }

    private static int bucketIndex(long value) {
        int pow2ceiling = 64 - Long.numberOfLeadingZeros(value | SUB_BUCKET_MASK);
        return pow2ceiling - (SUB_BUCKET_HALF_COUNT_MAGNITUDE + 1);
    }

    private static int countsIndex(long value) {
        int bucket = bucketIndex(value);
        int sub = (int) (value >> bucket);
        return ((bucket + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub - SUB_BUCKET_HALF_COUNT;
    }

    private static long valueAtIndex(int index) {
        int bucket = (index >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1;
        int sub = (index & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
        if (bucket < 0) {
            sub -= SUB_BUCKET_HALF_COUNT;
            bucket = 0;
        }
        return (long) sub << bucket;
    }

    private static long rangeSize(long value) {
        int bucket = bucketIndex(value);
        int sub = (int) (value >> bucket);
        return 1L << (sub >= SUB_BUCKET_COUNT ? bucket + 1 : bucket);
    }

    private static long lowestEquivalent(long value) {
        int bucket = bucketIndex(value);
        return (value >> bucket) << bucket;
    }

    private static long highestEquivalent(long value) {
        return lowestEquivalent(value) + rangeSize(value) - 1;
    }

    /** hdr_value_at_percentile, in nanoseconds. */
    public long valueAtPercentile(double percentile) {
        double requested = Math.min(percentile, 100.0);
        long countAt = Math.max(1, (long) (requested / 100 * totalCount + 0.5));
        long seen = 0, value = 0;
        for (int i = 0; i < COUNTS_LEN; i++) {
            seen += counts[i];
            if (seen >= countAt) {
                value = valueAtIndex(i);
                break;
            }
        }
        return percentile == 0.0 ? lowestEquivalent(value) : highestEquivalent(value);
    }

    /** Receives one step of the cumulative distribution. */
    public interface StepConsumer {
        void step(long micros, long cumulativeCount);
    }

    /**
     * Redis's fillCommandCDF: hdr's logarithmic iteration from 1024 ns doubling each step; each
     * step that added calls reports the highest value of the bucket it stopped at, in
     * microseconds, with the calls up to there.
     */
    public void cumulativeSteps(StepConsumer out) {
        int index = -1;
        long cumulative = 0, previous = 0, value = 0, highest = 0;
        long level = 1024, levelLowest = lowestEquivalent(level);
        while (cumulative < totalCount || (index < COUNTS_LEN && index + 1 < COUNTS_LEN
                && valueAtIndex(index + 1) > levelLowest)) {
            boolean stepped = false;
            while (!stepped) {
                if (value >= levelLowest) {
                    level *= 2;
                    levelLowest = lowestEquivalent(level);
                    stepped = true;
                } else if (++index >= COUNTS_LEN) {
                    stepped = true;
                } else {
                    cumulative += counts[index];
                    value = valueAtIndex(index);
                    highest = lowestEquivalent(value) + rangeSize(value) - 1;
                }
            }
            if (cumulative > previous) out.step(highest / 1000, cumulative);
            previous = cumulative;
            if (index >= COUNTS_LEN) break;
        }
    }
}
