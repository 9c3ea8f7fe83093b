package io.cinnabar.keyspace;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A hash table from byte[] to V (a {@link ChainedTable}): the large encoding of hashes, sets and
 * sorted sets. HSCAN/ZSCAN return every element present for the whole scan, across resizes. Keys
 * are stored as given and must not be mutated afterwards.
 */
public final class BytesMap<V> {
    /**
     * One element; exposed read-only so callers can walk without allocating. Not final so a
     * value type in this package can make its own element objects double as dict nodes (the
     * sorted set's skiplist nodes), saving one object per element.
     */
    public static class Node<V> extends ChainedTable.Link<Node<V>> {
        V value;

        Node(byte[] key, int hash, V value) {
            super(key, hash);
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

    private final ChainedTable<Node<V>> table;

    public BytesMap() {
        table = new ChainedTable<>();
    }

    /** Sized for n elements up front (conversion from a compact encoding). */
    public BytesMap(int n) {
        table = new ChainedTable<>(n);
    }

    public int size() {
        return table.size();
    }

    /** The table's shape as Redis's DEBUG HTSTATS-KEY prints a dict's. */
    public String tableStats() {
        return table.stats();
    }

    public boolean isEmpty() {
        return table.size() == 0;
    }

    public Node<V> node(byte[] key) {
        return table.find(key);
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
        int h = ChainedTable.hash(key);
        Node<V> n = table.find(key, h);
        if (n != null) {
            V old = n.value;
            n.value = value;
            return old;
        }
        table.insert(new Node<>(key, h, value));
        return null;
    }

    /** Links a caller-made node whose key is known to be absent (see {@link Node}). */
    void putNode(Node<V> added) {
        table.insert(added);
    }

    /** Removes key; returns its node (so callers can read the value) or null. Shrinks below 10% fill, as Redis. */
    public Node<V> remove(byte[] key) {
        Node<V> n = table.find(key);
        if (n == null) return null;
        table.unlink(n);
        table.shrinkIfSparse();
        return n;
    }

    /** Visits every element; the visitor must not modify the map. */
    public void forEach(BiConsumer<byte[], V> visitor) {
        table.forEach(n -> visitor.accept(n.key, n.value));
    }

    /** Visits every node; the visitor must not add or remove elements. */
    public void forEachNode(Consumer<Node<V>> visitor) {
        table.forEach(visitor);
    }

    /** One SCAN step: visits the buckets the cursor names and returns the next cursor (0 when done). */
    public long scan(long cursor, BiConsumer<byte[], V> visitor) {
        return table.scan(cursor, n -> visitor.accept(n.key, n.value));
    }

    /** An exactly uniform random element (HRANDFIELD); null when empty. */
    public Node<V> randomNode() {
        return table.uniformElement(java.util.concurrent.ThreadLocalRandom.current());
    }

    public BytesMap<V> copy(java.util.function.UnaryOperator<V> copyValue) {
        BytesMap<V> out = new BytesMap<>(size());
        forEach((k, v) -> out.put(k, copyValue.apply(v)));
        return out;
    }
}
