package io.cinnabar.keyspace;

/** Counters INFO stats reports for the keyspace; reset by CONFIG RESETSTAT. */
public final class KeyspaceStats {
    public long expiredKeys;
    public long expiredStalePercentTimes;
    public long keyspaceHits;
    public long keyspaceMisses;
    public long evictedKeys;

    public void reset() {
        expiredKeys = 0;
        expiredStalePercentTimes = 0;
        keyspaceHits = 0;
        keyspaceMisses = 0;
        evictedKeys = 0;
    }
}
