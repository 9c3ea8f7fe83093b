package io.cinnabar.keyspace;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The hash table under databases, and under the large encodings of hashes, sets and sorted sets,
 * as Redis's dict: power-of-two chained buckets of {@link Link}s, so SCAN's reverse-binary cursor
 * returns every element present for the whole scan, across resizes.
 * <p>
 * A resize moves the links a few buckets at a time, as Redis's incremental rehash: each lookup
 * moves one bucket, {@link #rehashFor} more. Moving a million keys at once stalled the command
 * that crossed the threshold for ~57 ms. While a resize runs, bucket b of the old array has moved
 * iff b is below {@link #rehashIndex}; a key lives in the array {@link #arrayFor} names for its hash.
 * Keys are stored as given and must not be mutated afterwards.
 */
final class ChainedTable<N extends ChainedTable.Link<N>> {
    static final int MIN_BUCKETS = 4;

    /**
     * What a table chains: a key, its hash and the next link of the bucket. An {@link Entry} may
     * hold its string after its key in the same array, and compares its keys itself.
     */
    abstract static class Link<N> {
        byte[] key;
        final int hash;
        N next;

        Link(byte[] key, int hash) {
            this.key = key;
            this.hash = hash;
        }
    }

    private Link<N>[] table;
    /** The array a resize moves the links to; null when no resize runs. */
    private Link<N>[] resized;
    /** While a resize runs: the old array's buckets below this one have moved. */
    private int rehashIndex;
    /** Above 0 while chains are being walked (scan, forEach): no bucket moves then. */
    private int rehashPaused;
    private int size;
    /** Resizes ended so far: a walk by bucket number ({@link #bucket}) starts over when this changes. */
    private int reshapes;
    /** The longest chain {@link #uniformElement} has met (at least 4); it fills the object's padding. */
    private int longestChainSeen = 4;

    ChainedTable() {
        table = newArray(MIN_BUCKETS);
    }

    /** Sized for n elements up front (conversion from a compact encoding, copies). */
    ChainedTable(int n) {
        int buckets = MIN_BUCKETS;
        while (buckets < n) buckets <<= 1;
        table = newArray(buckets);
    }

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    static int hash(byte[] key) {
        int h = 0x9747b28c ^ key.length;
        int i = 0, n = key.length;
        for (; i + 4 <= n; i += 4) {
            // One 4-byte load instead of four (the JIT does not merge them): 3% of a pipelined SET.
            int k = (int) INT_LE.get(key, i);
            k *= 0xcc9e2d51;
            k = Integer.rotateLeft(k, 15);
            k *= 0x1b873593;
            h ^= k;
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        switch (n - i) {
            case 3: k ^= (key[i + 2] & 0xff) << 16; // fall through
            case 2: k ^= (key[i + 1] & 0xff) << 8; // fall through
            case 1:
                k ^= key[i] & 0xff;
                k *= 0xcc9e2d51;
                k = Integer.rotateLeft(k, 15);
                k *= 0x1b873593;
                h ^= k;
                break;
            default:
                break;
        }
        h ^= n;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    N find(byte[] key, int h) {
        if (resized != null && rehashPaused == 0) rehashStep(1);
        Link<N>[] t = arrayFor(h);
        for (Link<N> n = t[h & (t.length - 1)]; n != null; n = (Link<N>) n.next) {
            if (n.hash == h && (n instanceof Entry e ? e.hasKey(key) : Arrays.equals(n.key, key))) return (N) n;
        }
        return null;
    }

    /** True when this very link is in the table. */
    boolean holds(N link) {
        Link<N>[] t = arrayFor(link.hash);
        for (Link<N> n = t[link.hash & (t.length - 1)]; n != null; n = (Link<N>) n.next) {
            if (n == link) return true;
        }
        return false;
    }

    N find(byte[] key) {
        return find(key, hash(key));
    }

    /** Links an element whose key is known to be absent. */
    void insert(N added) {
        insert(added, null);
    }

    /** Redis's HASHTABLE_MAX_LOAD_FACTOR: past this load a table grows whatever maxmemory says. */
    private static final double MAX_LOAD_FACTOR = 1.618;

    /**
     * As {@link #insert(Link)}; a growth of the bucket array is first offered to mayGrow (its
     * extra bytes), which may refuse it while the chains are not too long (Redis's
     * dictExpandAllowed: a resize must not push the server over maxmemory).
     */
    void insert(N added, java.util.function.LongPredicate mayGrow) {
        if (resized == null && size >= table.length
                && (mayGrow == null || size > table.length * MAX_LOAD_FACTOR || mayGrow.test(table.length * 8L))) {
            startResize(table.length * 2);
        }
        Link<N>[] t = arrayFor(added.hash);
        int i = added.hash & (t.length - 1);
        added.next = elementAt(t, i);
        t[i] = added;
        size++;
    }

    /** Unlinks an element of this table. */
    void unlink(N e) {
        Link<N>[] t = arrayFor(e.hash);
        int i = e.hash & (t.length - 1);
        if (t[i] == e) {
            t[i] = e.next;
        } else {
            N p = elementAt(t, i);
            while (p.next != e) p = p.next;
            p.next = e.next;
        }
        e.next = null;
        size--;
    }

    /** Puts replacement (same key) where old is in its chain. */
    void replace(N old, N replacement) {
        Link<N>[] t = arrayFor(old.hash);
        int i = old.hash & (t.length - 1);
        replacement.next = old.next;
        if (t[i] == old) {
            t[i] = replacement;
        } else {
            N p = elementAt(t, i);
            while (p.next != old) p = p.next;
            p.next = replacement;
        }
        old.next = null;
    }

    /** Starts shrinking when the table is mostly empty (Redis's htNeedsResize + dictResize). */
    void shrinkIfSparse() {
        if (resized == null && table.length > MIN_BUCKETS && size * 10L < table.length) {
            startResize(Math.max(MIN_BUCKETS, Integer.highestOneBit(Math.max(1, size)) * 2));
        }
    }

    boolean resizing() {
        return resized != null;
    }

    /** Moves buckets of a running resize for about budgetNanos (Redis's activerehashing). */
    void rehashFor(long budgetNanos) {
        if (resized == null) return;
        long start = System.nanoTime();
        do {
            rehashStep(100);
        } while (resized != null && System.nanoTime() - start < budgetNanos);
    }

    /**
     * Buckets as a walk by number sees them: the table's, then those of the array a running
     * resize fills. Links move only from the first part to the second, so a walk in this order
     * meets each; when a resize ends ({@link #reshapes} changes) the numbering starts anew.
     */
    int bucketCount() {
        return resized == null ? table.length : table.length + resized.length;
    }

    N bucket(int b) {
        return b < table.length ? elementAt(table, b) : elementAt(resized, b - table.length);
    }

    int reshapes() {
        return reshapes;
    }

    /**
     * One SCAN step: visits the buckets the cursor names and returns the next cursor (0 when
     * done), with Redis's reverse-binary increment. The visitor may unlink what it is given.
     */
    long scan(long cursor, Consumer<N> visitor) {
        if (size == 0) return 0;
        rehashPaused++;
        try {
            if (resized == null) {
                long mask = table.length - 1;
                visitChain(elementAt(table, (int) (cursor & mask)), visitor);
                return ScanCursor.next(cursor, mask);
            }
            // As Redis's dictScan while rehashing: the smaller array's bucket, then every bucket
            // of the larger one that it expands to.
            Link<N>[] small = table.length <= resized.length ? table : resized;
            Link<N>[] large = small == table ? resized : table;
            long smallMask = small.length - 1;
            long largeMask = large.length - 1;
            visitChain(elementAt(small, (int) (cursor & smallMask)), visitor);
            do {
                visitChain(elementAt(large, (int) (cursor & largeMask)), visitor);
                cursor = ScanCursor.next(cursor, largeMask);
            } while ((cursor & (smallMask ^ largeMask)) != 0);
            return cursor;
        } finally {
            rehashPaused--;
        }
    }

    private static <N extends Link<N>> void visitChain(N e, Consumer<N> visitor) {
        while (e != null) {
            N next = e.next;
            visitor.accept(e);
            e = next;
        }
    }

    /** Visits every element; the visitor must not add or remove any. */
    void forEach(Consumer<N> visitor) {
        rehashPaused++;
        try {
            for (int b = 0, n = bucketCount(); b < n; b++) {
                for (N e = bucket(b); e != null; e = e.next) visitor.accept(e);
            }
        } finally {
            rehashPaused--;
        }
    }

    /** Random non-empty bucket, then a random element of its chain (Redis's dictGetRandomKey); null when empty. */
    N anyElement(ThreadLocalRandom rnd) {
        if (size == 0) return null;
        // A resize's two arrays skew the pick: each pick moves it on, as Redis's does.
        if (resized != null && rehashPaused == 0) rehashStep(1);
        N n;
        do {
            n = bucket(rnd.nextInt(bucketCount()));
        } while (n == null);
        int chain = 0;
        for (N x = n; x != null; x = x.next) chain++;
        for (int pick = rnd.nextInt(chain); pick > 0; pick--) n = n.next;
        return n;
    }

    /**
     * A uniform random element, null when empty: a random bucket, then a slot among the first k
     * of its chain, retried when the slot is empty, so every element has the same chance whatever
     * its chain's length (HRANDFIELD's and SRANDMEMBER's distributions are checked by chi-square
     * in Redis's tests; {@link #anyElement} would favour elements of short chains). That holds
     * while k is at least the longest chain: k is the longest this table's picks have met, kept
     * from pick to pick. Started afresh at 4 for each pick, the members of a chain of 6 among 300
     * members came up about half as often as the others (chi-square ~950 where 299 is the mean).
     * Redis's dictGetFairRandomKey, which sets used before, picks among ~15 elements of
     * consecutive buckets: on those 300 members Redis 7.0.15 scores ~17,000, and it reads ~15
     * elements a pick where this reads one or two. SRANDMEMBER of a 10k set, count -1000, ran at
     * 0.83-0.89x Redis's rate with it, 1.31x with this.
     */
    N uniformElement(ThreadLocalRandom rnd) {
        if (size == 0) return null;
        if (resized != null && rehashPaused == 0) rehashStep(1);
        while (true) {
            N head = bucket(rnd.nextInt(bucketCount()));
            int len = 0;
            for (N x = head; x != null; x = x.next) len++;
            if (len == 0) continue;
            if (len > longestChainSeen) longestChainSeen = len;
            int j = rnd.nextInt(longestChainSeen);
            if (j >= len) continue;
            N n = head;
            while (j-- > 0) n = n.next;
            return n;
        }
    }

    /**
     * Up to count distinct elements from consecutive buckets starting at a random one, jumping
     * elsewhere after a long run of empty buckets (Redis's dictGetSomeKeys: eviction samples).
     * Returns how many were stored in out.
     */
    int someElements(Object[] out, int count) {
        int want = Math.min(count, size);
        if (want == 0) return 0;
        if (resized != null && rehashPaused == 0) rehashStep(1);
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int stored = 0;
        int buckets = bucketCount();
        int i = rnd.nextInt(buckets);
        int emptyRun = 0;
        for (int steps = want * 10; stored < want && steps > 0; steps--) {
            N n = bucket(i);
            if (n == null) {
                if (++emptyRun >= 5 && emptyRun > want) {
                    i = rnd.nextInt(buckets);
                    emptyRun = 0;
                    continue;
                }
            } else {
                emptyRun = 0;
                for (; n != null && stored < want; n = n.next) out[stored++] = n;
            }
            i = i + 1 == buckets ? 0 : i + 1;
        }
        return stored;
    }

    @SuppressWarnings("unchecked")
    private static <N> N elementAt(Link<N>[] array, int i) {
        return (N) array[i];
    }

    @SuppressWarnings("unchecked")
    private static <N> Link<N>[] newArray(int n) {
        return (Link<N>[]) new Link[n];
    }

    /** Redis's dictGetStats text (DEBUG HTSTATS): the array in use, then a running resize's target. */
    String stats() {
        String main = arrayStats(table).describe(0);
        return resized == null ? main : main + arrayStats(resized).describe(1);
    }

    private static TableStats arrayStats(Link<?>[] array) {
        TableStats stats = new TableStats(array.length);
        for (Link<?> head : array) {
            long length = 0;
            for (Link<?> n = head; n != null; n = (Link<?>) n.next) length++;
            stats.bucket(length);
        }
        return stats;
    }

    /** The array where a key of hash h lives (and goes): while a resize runs, its bucket may have moved. */
    private Link<N>[] arrayFor(int h) {
        return resized != null && (h & (table.length - 1)) < rehashIndex ? resized : table;
    }

    private void startResize(int buckets) {
        resized = newArray(buckets);
        rehashIndex = 0;
    }

    /** Moves up to {@code buckets} non-empty buckets (visiting at most ten times as many empty ones), as Redis's dictRehash. */
    private void rehashStep(int buckets) {
        int emptyVisits = buckets * 10;
        int mask = resized.length - 1;
        while (buckets > 0 && rehashIndex < table.length) {
            N e = elementAt(table, rehashIndex);
            if (e == null) {
                rehashIndex++;
                if (--emptyVisits == 0) break;
                continue;
            }
            while (e != null) {
                N next = e.next;
                int i = e.hash & mask;
                e.next = elementAt(resized, i);
                resized[i] = e;
                e = next;
            }
            table[rehashIndex++] = null;
            buckets--;
        }
        if (rehashIndex < table.length) return;
        table = resized;
        resized = null;
        rehashIndex = 0;
        reshapes++;
    }
}
