package io.cinnabar.keyspace;

/**
 * Redis's performEvictions over the keyspace (evict.c): victims are chosen by sampling
 * maxmemory-samples keys per database into a pool of the 16 best candidates seen so far
 * (idlest for LRU, least frequent for LFU, nearest expiry for volatile-ttl), or at random; each
 * is deleted and reported ({@link Keyspace#onKeyEvicted}). Bytes are the running estimate's
 * ({@link Entry#memory()}), so what is freed is known exactly and at once.
 */
public final class Eviction {
    /** Redis's EVPOOL_SIZE. */
    static final int POOL_SIZE = 16;

    public enum Result {
        /** Freed what was asked. */
        DONE,
        /** The time limit came first: call again (Redis's EVICT_RUNNING). */
        RUNNING,
        /** Nothing (more) may be evicted under the policy (EVICT_FAIL). */
        NOTHING
    }

    private final Keyspace keyspace;
    /** The pool, sorted by rank ascending: the best victim is at the right end. */
    private final long[] poolRank = new long[POOL_SIZE];
    private final byte[][] poolKey = new byte[POOL_SIZE][];
    private final int[] poolDb = new int[POOL_SIZE];
    private Entry[] sample = new Entry[5];
    private int nextDb;

    Eviction(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /**
     * Evicts until toFree bytes are freed, nothing is left to evict, or (checked every 16 keys,
     * as Redis does) timeLimitNanos has passed.
     */
    public Result evict(EvictionPolicy policy, long toFree, int samples, long timeLimitNanos) {
        if (!policy.evicts()) return Result.NOTHING;
        long start = System.nanoTime();
        long freed = 0;
        int keys = 0;
        while (freed < toFree) {
            Database db = null;
            Entry victim = null;
            if (policy.rank == EvictionPolicy.Rank.RANDOM) {
                for (int i = 0; i < keyspace.databaseCount() && victim == null; i++) {
                    db = keyspace.db(nextDb = (nextDb + 1) % keyspace.databaseCount());
                    victim = db.randomEntry(policy.volatileOnly);
                }
            } else {
                victim = fromPool(policy, samples);
                if (victim != null) db = keyspace.db(victimDb);
            }
            if (victim == null) return Result.NOTHING;
            freed += victim.memory();
            db.evict(victim);
            keys++;
            if (keys % 16 == 0 && System.nanoTime() - start > timeLimitNanos) return Result.RUNNING;
        }
        return Result.DONE;
    }

    private int victimDb;

    /** The best candidate of the pool that still exists, refilling the pool from fresh samples. */
    private Entry fromPool(EvictionPolicy policy, int samples) {
        while (true) {
            long keys = 0;
            for (int i = 0; i < keyspace.databaseCount(); i++) {
                Database db = keyspace.db(i);
                int n = policy.volatileOnly ? db.volatileCount() : db.size();
                if (n == 0) continue;
                keys += n;
                populate(i, db, policy, samples);
            }
            if (keys == 0) return null;
            for (int k = POOL_SIZE - 1; k >= 0; k--) {
                if (poolKey[k] == null) continue;
                byte[] key = poolKey[k];
                poolKey[k] = null;
                poolRank[k] = 0;
                Entry e = keyspace.db(poolDb[k]).evictionCandidate(key, policy.volatileOnly);
                if (e != null) {
                    victimDb = poolDb[k];
                    return e;
                }
                // A ghost: deleted since it was sampled. Try the next best.
            }
        }
    }

    /** Redis's evictionPoolPopulate: samples keys of db and keeps the best in the sorted pool. */
    private void populate(int dbIndex, Database db, EvictionPolicy policy, int samples) {
        if (sample.length < samples) sample = new Entry[samples];
        int n = db.sample(sample, samples, policy.volatileOnly);
        for (int j = 0; j < n; j++) {
            Entry e = sample[j];
            sample[j] = null;
            long rank = switch (policy.rank) {
                case LRU -> keyspace.idleSeconds(e) * 1000;
                case LFU -> 255 - keyspace.lfuFrequency(e);
                // Sooner expiry ranks higher: unsigned, as Redis's ULLONG_MAX - expire.
                default -> Long.MAX_VALUE - e.expireAt();
            };
            int k = 0;
            while (k < POOL_SIZE && poolKey[k] != null && poolRank[k] < rank) k++;
            if (k == 0 && poolKey[POOL_SIZE - 1] != null) {
                continue; // worse than everything in a full pool
            } else if (k < POOL_SIZE && poolKey[k] == null) {
                // an empty slot: insert here
            } else if (poolKey[POOL_SIZE - 1] == null) {
                // room on the right: shift the better ones right
                System.arraycopy(poolRank, k, poolRank, k + 1, POOL_SIZE - k - 1);
                System.arraycopy(poolKey, k, poolKey, k + 1, POOL_SIZE - k - 1);
                System.arraycopy(poolDb, k, poolDb, k + 1, POOL_SIZE - k - 1);
            } else {
                // full: drop the worst (leftmost) and shift the worse ones left
                k--;
                System.arraycopy(poolRank, 1, poolRank, 0, k);
                System.arraycopy(poolKey, 1, poolKey, 0, k);
                System.arraycopy(poolDb, 1, poolDb, 0, k);
            }
            poolRank[k] = rank;
            poolKey[k] = e.key();
            poolDb[k] = dbIndex;
        }
    }
}
