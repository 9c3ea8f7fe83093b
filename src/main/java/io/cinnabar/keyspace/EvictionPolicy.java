package io.cinnabar.keyspace;

/** maxmemory-policy: which keys may go (all, or those with a TTL) and how the victim is chosen. */
public enum EvictionPolicy {
    VOLATILE_LRU(true, Rank.LRU), VOLATILE_LFU(true, Rank.LFU), VOLATILE_RANDOM(true, Rank.RANDOM),
    VOLATILE_TTL(true, Rank.TTL), ALLKEYS_LRU(false, Rank.LRU), ALLKEYS_LFU(false, Rank.LFU),
    ALLKEYS_RANDOM(false, Rank.RANDOM), NOEVICTION(false, Rank.NONE);

    enum Rank { LRU, LFU, TTL, RANDOM, NONE }

    final boolean volatileOnly;
    final Rank rank;

    EvictionPolicy(boolean volatileOnly, Rank rank) {
        this.volatileOnly = volatileOnly;
        this.rank = rank;
    }

    /** The policy named as in the config ("allkeys-lru"). */
    public static EvictionPolicy of(String name) {
        return valueOf(name.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }

    public boolean evicts() {
        return rank != Rank.NONE;
    }

    /** Victims are the least recently used: snapshots keep each key's idle time (Redis's MAXMEMORY_FLAG_LRU). */
    public boolean lru() {
        return rank == Rank.LRU;
    }

    /** Entries count accesses (LFU) rather than stamping them (LRU). */
    public boolean lfu() {
        return rank == Rank.LFU;
    }
}
