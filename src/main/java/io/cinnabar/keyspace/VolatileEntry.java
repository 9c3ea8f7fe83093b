package io.cinnabar.keyspace;

/** An entry with a TTL; also indexed in its database's volatile array for active expiry. */
final class VolatileEntry extends Entry {
    long expireAt;
    int volatileIndex;

    VolatileEntry(byte[] key, int hash, Object value, int lru, long expireAt) {
        this(key, hash, value, lru, expireAt, true);
    }

    VolatileEntry(byte[] key, int hash, Object value, int lru, long expireAt, boolean pack) {
        super(key, hash, value, lru, pack);
        this.expireAt = expireAt;
    }

    /** from's key, value and access time, with a TTL. */
    VolatileEntry(Entry from, long expireAt) {
        super(from);
        this.expireAt = expireAt;
    }

    @Override
    public long expireAt() {
        return expireAt;
    }
}
