package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The hashtable encoding of sets: {@link BytesMap} without values, so a member costs a 24-byte
 * node instead of 32 (a set of a million members is a few megabytes smaller). Same
 * power-of-two chained buckets, same resize points and the same reverse-binary {@link #scan}, so
 * SSCAN returns every member present for the whole scan, across resizes. Members are stored as
 * given and must not be mutated afterwards.
 */
public final class BytesSet {
    private static final int MIN_BUCKETS = 4;
    /** Redis's dictGetFairRandomKey samples this many members. */
    private static final int FAIR_SAMPLE = 15;

    private static final class Node {
        final byte[] key;
        final int hash;
        Node next;

        Node(byte[] key, int hash, Node next) {
            this.key = key;
            this.hash = hash;
            this.next = next;
        }
    }

    private Node[] table;
    private int size;

    public BytesSet() {
        table = new Node[MIN_BUCKETS];
    }

    /** Sized for n members up front (conversion from an intset, copies). */
    public BytesSet(int n) {
        int buckets = MIN_BUCKETS;
        while (buckets < n) buckets <<= 1;
        table = new Node[buckets];
    }

    public int size() {
        return size;
    }

    public boolean contains(byte[] key) {
        int h = Database.hash(key);
        for (Node n = table[h & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) return true;
        }
        return false;
    }

    /** Adds key; false if it was already present. */
    public boolean add(byte[] key) {
        int h = Database.hash(key);
        for (Node n = table[h & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) return false;
        }
        if (size >= table.length) resize(table.length * 2);
        int i = h & (table.length - 1);
        table[i] = new Node(key, h, table[i]);
        size++;
        return true;
    }

    /** Removes key; false if it was absent. Shrinks below 10% fill, as Redis's htNeedsResize. */
    public boolean remove(byte[] key) {
        int h = Database.hash(key);
        int i = h & (table.length - 1);
        Node prev = null;
        for (Node n = table[i]; n != null; prev = n, n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) {
                if (prev == null) table[i] = n.next; else prev.next = n.next;
                size--;
                if (table.length > MIN_BUCKETS && size * 10L < table.length) {
                    resize(Math.max(MIN_BUCKETS, Integer.highestOneBit(Math.max(1, size)) * 2));
                }
                return true;
            }
        }
        return false;
    }

    /** Visits every member; the visitor must not modify the set. */
    public void forEach(Consumer<byte[]> visitor) {
        for (Node head : table) {
            for (Node n = head; n != null; n = n.next) visitor.accept(n.key);
        }
    }

    /** One SCAN step: visits the bucket the cursor names and returns the next cursor (0 when done). */
    public long scan(long cursor, Consumer<byte[]> visitor) {
        if (size == 0) return 0;
        long mask = table.length - 1;
        for (Node n = table[(int) (cursor & mask)]; n != null; n = n.next) visitor.accept(n.key);
        return ScanCursor.next(cursor, mask);
    }

    /**
     * A random member, as Redis's dictGetFairRandomKey: collect up to 15 members from consecutive
     * buckets starting at a random one and pick among them, so members in long chains are not
     * under-represented the way "random bucket, then random chain element" would make them.
     */
    public byte[] randomMember() {
        if (size == 0) return null;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int want = Math.min(FAIR_SAMPLE, size);
        byte[][] picked = new byte[want][];
        int stored = 0;
        int mask = table.length - 1;
        int i = rnd.nextInt(table.length);
        int emptyRun = 0;
        for (int steps = want * 10; stored < want && steps > 0; steps--) {
            Node n = table[i];
            if (n == null) {
                // Jump elsewhere after a long run of empty buckets, as dictGetSomeKeys does.
                if (++emptyRun >= 5 && emptyRun > want) {
                    i = rnd.nextInt(table.length);
                    emptyRun = 0;
                    continue;
                }
            } else {
                emptyRun = 0;
                for (; n != null && stored < want; n = n.next) picked[stored++] = n.key;
            }
            i = (i + 1) & mask;
        }
        if (stored == 0) return anyMember(rnd);
        return picked[rnd.nextInt(stored)];
    }

    /** Random non-empty bucket, then a random element of its chain (Redis's dictGetRandomKey). */
    private byte[] anyMember(ThreadLocalRandom rnd) {
        Node n;
        do {
            n = table[rnd.nextInt(table.length)];
        } while (n == null);
        int chain = 0;
        for (Node x = n; x != null; x = x.next) chain++;
        for (int pick = rnd.nextInt(chain); pick > 0; pick--) n = n.next;
        return n.key;
    }

    /** A copy sharing the (immutable) member arrays but no nodes. */
    public BytesSet copy() {
        BytesSet out = new BytesSet(size);
        forEach(out::add);
        return out;
    }

    private void resize(int buckets) {
        Node[] fresh = new Node[buckets];
        int mask = buckets - 1;
        for (Node head : table) {
            Node n = head;
            while (n != null) {
                Node next = n.next;
                int i = n.hash & mask;
                n.next = fresh[i];
                fresh[i] = n;
                n = next;
            }
        }
        table = fresh;
    }
}
