package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;

/**
 * A chained hash table from byte[] to V with power-of-two buckets, like Redis's dict: the large
 * encoding of hashes, sets and sorted sets. Its {@link #scan} step uses the reverse-binary cursor,
 * so HSCAN/SSCAN/ZSCAN return every element present for the whole scan, across resizes. Keys are
 * stored as given and must not be mutated afterwards.
 */
public final class BytesMap<V> {
    private static final int MIN_BUCKETS = 4;

    /**
     * One element; exposed read-only so callers can walk without allocating. Not final so a
     * value type in this package can make its own element objects double as dict nodes (the
     * sorted set's skiplist nodes), saving one object per element.
     */
    public static class Node<V> {
        final byte[] key;
        final int hash;
        V value;
        Node<V> next;

        Node(byte[] key, int hash, V value) {
            this.key = key;
            this.hash = hash;
            this.value = value;
        }

        public byte[] key() {
            return key;
        }

        public V value() {
            return value;
        }

        public void value(V v) {
            value = v;
        }
    }

    private Node<V>[] table = newTable(MIN_BUCKETS);
    private int size;

    public BytesMap() {
    }

    /** Sized for n elements up front (conversion from a compact encoding). */
    public BytesMap(int n) {
        int buckets = MIN_BUCKETS;
        while (buckets < n) buckets <<= 1;
        table = newTable(buckets);
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public Node<V> node(byte[] key) {
        int h = Database.hash(key);
        for (Node<V> n = table[h & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) return n;
        }
        return null;
    }

    public V get(byte[] key) {
        Node<V> n = node(key);
        return n == null ? null : n.value;
    }

    public boolean containsKey(byte[] key) {
        return node(key) != null;
    }

    /** Stores value; returns the previous value or null. */
    public V put(byte[] key, V value) {
        int h = Database.hash(key);
        for (Node<V> n = table[h & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) {
                V old = n.value;
                n.value = value;
                return old;
            }
        }
        if (size >= table.length) resize(table.length * 2);
        int i = h & (table.length - 1);
        Node<V> added = new Node<>(key, h, value);
        added.next = table[i];
        table[i] = added;
        size++;
        return null;
    }

    /** Links a caller-made node whose key is known to be absent (see {@link Node}). */
    void putNode(Node<V> added) {
        if (size >= table.length) resize(table.length * 2);
        int i = added.hash & (table.length - 1);
        added.next = table[i];
        table[i] = added;
        size++;
    }

    /** Removes key; returns its node (so callers can read the value) or null. */
    public Node<V> remove(byte[] key) {
        int h = Database.hash(key);
        int i = h & (table.length - 1);
        Node<V> prev = null;
        for (Node<V> n = table[i]; n != null; prev = n, n = n.next) {
            if (n.hash == h && Arrays.equals(n.key, key)) {
                if (prev == null) table[i] = n.next; else prev.next = n.next;
                n.next = null;
                size--;
                if (table.length > MIN_BUCKETS && size * 10L < table.length) {
                    resize(Math.max(MIN_BUCKETS, Integer.highestOneBit(Math.max(1, size)) * 2));
                }
                return n;
            }
        }
        return null;
    }

    /** Visits every element; the visitor must not modify the map. */
    public void forEach(BiConsumer<byte[], V> visitor) {
        for (Node<V> head : table) {
            for (Node<V> n = head; n != null; n = n.next) visitor.accept(n.key, n.value);
        }
    }

    /** Visits every node; the visitor must not add or remove elements. */
    public void forEachNode(java.util.function.Consumer<Node<V>> visitor) {
        for (Node<V> head : table) {
            for (Node<V> n = head; n != null; n = n.next) visitor.accept(n);
        }
    }

    /**
     * One SCAN step: visits the bucket the cursor names and returns the next cursor (0 when
     * done), with Redis's reverse-binary increment.
     */
    public long scan(long cursor, BiConsumer<byte[], V> visitor) {
        if (size == 0) return 0;
        long mask = table.length - 1;
        for (Node<V> n = table[(int) (cursor & mask)]; n != null; n = n.next) visitor.accept(n.key, n.value);
        return ScanCursor.next(cursor, mask);
    }

    /** A random element (uniform over buckets, then within the chain, as Redis's dictGetRandomKey). */
    public Node<V> randomNode() {
        if (size == 0) return null;
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Node<V> n;
        do {
            n = table[rnd.nextInt(table.length)];
        } while (n == null);
        int chain = 0;
        for (Node<V> x = n; x != null; x = x.next) chain++;
        for (int pick = rnd.nextInt(chain); pick > 0; pick--) n = n.next;
        return n;
    }

    public BytesMap<V> copy(java.util.function.UnaryOperator<V> copyValue) {
        BytesMap<V> out = new BytesMap<>(size);
        forEach((k, v) -> out.put(k, copyValue.apply(v)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <V> Node<V>[] newTable(int n) {
        return (Node<V>[]) new Node[n];
    }

    private void resize(int buckets) {
        Node<V>[] fresh = newTable(buckets);
        int mask = buckets - 1;
        for (Node<V> head : table) {
            Node<V> n = head;
            while (n != null) {
                Node<V> next = n.next;
                int i = n.hash & mask;
                n.next = fresh[i];
                fresh[i] = n;
                n = next;
            }
        }
        table = fresh;
    }
}
