package io.cinnabar.keyspace;

/** An entry with a TTL; also indexed in its database's volatile array for active expiry. */
final class VolatileEntry extends Entry {
    long expireAt;
    int volatileIndex;

    VolatileEntry(byte[] key, int hash, Object value, int lru, long expireAt) {
        super(key, hash, value, lru);
        this.expireAt = expireAt;
    }

    @Override
    public long expireAt() {
        return expireAt;
    }
}
