package io.cinnabar.keyspace;

/** A score interval as ZRANGEBYSCORE takes it: "(" makes a bound exclusive (Redis's zrangespec). */
public final class ScoreRange {
    public final double min, max;
    public final boolean minExclusive, maxExclusive;

    public ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {
        this.min = min;
        this.max = max;
        this.minExclusive = minExclusive;
        this.maxExclusive = maxExclusive;
    }

    public boolean gteMin(double v) {
        return minExclusive ? v > min : v >= min;
    }

    public boolean lteMax(double v) {
        return maxExclusive ? v < max : v <= max;
    }

    /** True when no score can fall inside (min above max, or a point with an open bound). */
    public boolean isEmpty() {
        return min > max || (min == max && (minExclusive || maxExclusive));
    }
}
