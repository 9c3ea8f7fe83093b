package io.cinnabar.keyspace;

/**
 * One key in a {@link Database}'s chained hash table. Kept to 32 bytes: keys without a TTL pay
 * nothing for expiry, which lives in {@link VolatileEntry}.
 */
public class Entry {
    final byte[] key;
    final int hash;
    Object value;
    Entry next;
    /** Last access, in seconds of the server's LRU clock (OBJECT IDLETIME). */
    int lru;

    Entry(byte[] key, int hash, Object value, int lru) {
        this.key = key;
        this.hash = hash;
        this.value = value;
        this.lru = lru;
    }

    public final byte[] key() {
        return key;
    }

    public final Object value() {
        return value;
    }

    /** Absolute expiry in unix milliseconds, or -1. */
    public long expireAt() {
        return -1;
    }

    public final int lru() {
        return lru;
    }
}
