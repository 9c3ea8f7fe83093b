package io.cinnabar.keyspace;

import io.cinnabar.util.Numbers;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * A set. Sets whose members are all integers (in Redis's canonical string2ll form) start as an
 * {@link IntSet}; they turn into a {@link BytesSet} hashtable, for good, when a non-integer is
 * added or they grow past {@code set-max-intset-entries} (Redis 7.0 has no listpack sets).
 */
public final class SetValue implements TypedValue, MemberSet {
    /** Redis caps set-max-intset-entries at 1G "due to intset internals". */
    private static final long INTSET_CAP = 1L << 30;

    /** Non-null while intset-encoded. */
    private IntSet ints;
    /** Non-null once hashtable-encoded. */
    private BytesSet table;

    private SetValue(IntSet ints, BytesSet table) {
        this.ints = ints;
        this.table = table;
    }

    /** An empty intset, the starting point of SINTERSTORE/SUNION/SDIFF results. */
    public static SetValue empty() {
        return new SetValue(new IntSet(), null);
    }

    /** An empty hashtable set sized for about n members (RDB loading of large sets). */
    public static SetValue hashtable(int n) {
        return new SetValue(null, new BytesSet(n));
    }

    /**
     * A loaded intset, kept as it is (width included) unless it holds more than maxIntsetEntries
     * members, as rdbLoadObject converts it then.
     */
    public static SetValue loadedIntset(IntSet ints, long maxIntsetEntries) {
        SetValue s = new SetValue(ints, null);
        if (ints.size() > maxIntsetEntries) s.toHashtable();
        return s;
    }

    /** An empty set in the encoding that can hold first (Redis's setTypeCreate). */
    public static SetValue forMember(byte[] first) {
        return Numbers.isLong(first) ? empty() : new SetValue(null, new BytesSet());
    }

    @Override
    public ValueType type() {
        return ValueType.SET;
    }

    @Override
    public String encoding() {
        return ints != null ? "intset" : "hashtable";
    }

    @Override
    public SetValue copy() {
        return ints != null ? new SetValue(ints.copy(), null) : new SetValue(null, table.copy());
    }

    public boolean isIntset() {
        return ints != null;
    }

    /** The intset while intset-encoded, else null; read-only for callers. */
    public IntSet intset() {
        return ints;
    }

    public int size() {
        return ints != null ? ints.size() : table.size();
    }

    /** Adds member; false if present. maxIntsetEntries is set-max-intset-entries. */
    public boolean add(byte[] member, long maxIntsetEntries) {
        if (ints == null) return table.add(member);
        long[] v = new long[1];
        if (!Numbers.parseLong(member, v)) {
            toHashtable();
            return table.add(member);
        }
        return addToIntset(v[0], maxIntsetEntries);
    }

    /** Adds an integer member without formatting it while the set is an intset. */
    public boolean add(long member, long maxIntsetEntries) {
        if (ints == null) return table.add(Numbers.toBytes(member));
        return addToIntset(member, maxIntsetEntries);
    }

    private boolean addToIntset(long v, long maxIntsetEntries) {
        if (!ints.add(v)) return false;
        if (ints.size() > Math.min(maxIntsetEntries, INTSET_CAP)) toHashtable();
        return true;
    }

    public boolean remove(byte[] member) {
        if (ints == null) return table.remove(member);
        long[] v = new long[1];
        return Numbers.parseLong(member, v) && ints.remove(v[0]);
    }

    public boolean remove(long member) {
        return ints != null ? ints.remove(member) : table.remove(Numbers.toBytes(member));
    }

    public boolean contains(byte[] member) {
        if (ints == null) return table.contains(member);
        long[] v = new long[1];
        return Numbers.parseLong(member, v) && ints.contains(v[0]);
    }

    public boolean contains(long member) {
        return ints != null ? ints.contains(member) : table.contains(Numbers.toBytes(member));
    }

    /** A random member as bytes (formats intset values). */
    public byte[] randomMember() {
        if (ints != null) return Numbers.toBytes(randomInt());
        return table.randomMember();
    }

    /** A random value of an intset-encoded set. */
    public long randomInt() {
        return ints.get(ThreadLocalRandom.current().nextInt(ints.size()));
    }

    /** Visits every member as bytes: intsets in ascending order (formatted), hashtables in bucket order. */
    public void forEach(Consumer<byte[]> visitor) {
        if (ints != null) {
            for (int i = 0; i < ints.size(); i++) visitor.accept(Numbers.toBytes(ints.get(i)));
        } else {
            table.forEach(visitor);
        }
    }

    /** One SSCAN step over the hashtable; callers return intsets whole, as Redis does. */
    @Override
    public void forEachMember(Consumer<byte[]> visitor) {
        forEach(visitor);
    }

    public long scan(long cursor, Consumer<byte[]> visitor) {
        return table.scan(cursor, visitor);
    }

    private void toHashtable() {
        BytesSet t = new BytesSet(ints.size());
        for (int i = 0; i < ints.size(); i++) t.add(Numbers.toBytes(ints.get(i)));
        table = t;
        ints = null;
    }

    /** A flat estimate per element (bookkeeping plus small element bytes); O(1), unlike a walk. */
    @Override
    public long memoryUsage() {
        return 48 + 56L * size();
    }
}
