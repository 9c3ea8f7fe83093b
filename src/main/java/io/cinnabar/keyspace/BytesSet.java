package io.cinnabar.keyspace;

import java.util.function.Consumer;

/**
 * The hashtable encoding of sets: a {@link ChainedTable} of members without values, so a member
 * costs a 24-byte node instead of {@link BytesMap}'s 32 (a set of a million members is a few
 * megabytes smaller). SSCAN returns every member present for the whole scan, across resizes.
 * Members are stored as given and must not be mutated afterwards.
 */
public final class BytesSet {
    private static final class Node extends ChainedTable.Link<Node> {
        Node(byte[] key, int hash) {
            super(key, hash);
        }
    }

    private final ChainedTable<Node> table;

    public BytesSet() {
        table = new ChainedTable<>();
    }

    /** Sized for n members up front (conversion from an intset, copies). */
    public BytesSet(int n) {
        table = new ChainedTable<>(n);
    }

    public int size() {
        return table.size();
    }

    /** The table's shape as Redis's DEBUG HTSTATS-KEY prints a dict's. */
    public String tableStats() {
        return table.stats();
    }

    public boolean contains(byte[] key) {
        return table.find(key) != null;
    }

    /** Adds key; false if it was already present. */
    public boolean add(byte[] key) {
        int h = ChainedTable.hash(key);
        if (table.find(key, h) != null) return false;
        table.insert(new Node(key, h));
        return true;
    }

    /** Removes key; false if it was absent. Shrinks below 10% fill, as Redis's htNeedsResize. */
    public boolean remove(byte[] key) {
        Node n = table.find(key);
        if (n == null) return false;
        table.unlink(n);
        table.shrinkIfSparse();
        return true;
    }

    /** Visits every member; the visitor must not modify the set. */
    public void forEach(Consumer<byte[]> visitor) {
        table.forEach(n -> visitor.accept(n.key));
    }

    /** One SCAN step: visits the buckets the cursor names and returns the next cursor (0 when done). */
    public long scan(long cursor, Consumer<byte[]> visitor) {
        return table.scan(cursor, n -> visitor.accept(n.key));
    }

    /** A random member, each with the same chance (SRANDMEMBER, SPOP); null when empty. */
    public byte[] randomMember() {
        Node n = table.uniformElement(java.util.concurrent.ThreadLocalRandom.current());
        return n == null ? null : n.key;
    }

    /** A copy sharing the (immutable) member arrays but no nodes. */
    public BytesSet copy() {
        BytesSet out = new BytesSet(size());
        forEach(out::add);
        return out;
    }
}
