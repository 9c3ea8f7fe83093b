package io.cinnabar.keyspace;

/** Counters INFO stats reports for the keyspace; reset by CONFIG RESETSTAT. */
public final class KeyspaceStats {
    public long expiredKeys;
    public long expiredStalePercentTimes;
    public long keyspaceHits;
    public long keyspaceMisses;
    public long evictedKeys;
    /** expired_stale_perc: stale keys among those the active cycles sampled, a moving average (0..1). */
    public double expiredStalePerc;
    /** expire_cycle_cpu_milliseconds, in microseconds. */
    public long expireCycleMicros;

    public void reset() {
        expiredKeys = 0;
        expiredStalePercentTimes = 0;
        keyspaceHits = 0;
        keyspaceMisses = 0;
        evictedKeys = 0;
        expiredStalePerc = 0;
        expireCycleMicros = 0;
    }
}
