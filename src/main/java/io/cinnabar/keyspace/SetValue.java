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
    /** Header and fields of a SetValue; of a BytesSet; of one of its nodes, with its bucket slot. */
    private static final int OBJECT_BYTES = 24, TABLE_BYTES = 48, TABLE_MEMBER_BYTES = 32;
    /** Redis caps set-max-intset-entries at 1G "due to intset internals". */
    private static final long INTSET_CAP = 1L << 30;

    /** Non-null while intset-encoded. */
    private IntSet ints;
    /** Non-null once hashtable-encoded. */
    private BytesSet table;
    /** Heap bytes of the hashtable's member arrays, kept as they change ({@link #memoryUsage}). */
    private long memberBytes;

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
        if (ints != null) return new SetValue(ints.copy(), null);
        SetValue s = new SetValue(null, table.copy());
        s.memberBytes = memberBytes;
        return s;
    }

    public boolean isIntset() {
        return ints != null;
    }

    /** DEBUG HTSTATS-KEY's text of the hashtable encoding; null for an intset. */
    public String tableStats() {
        return table == null ? null : table.tableStats();
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
        if (ints == null) return addToTable(member);
        long[] v = new long[1];
        if (!Numbers.parseLong(member, v)) {
            toHashtable();
            return addToTable(member);
        }
        return addToIntset(v[0], maxIntsetEntries);
    }

    /** Adds an integer member without formatting it while the set is an intset. */
    public boolean add(long member, long maxIntsetEntries) {
        if (ints == null) return addToTable(Numbers.toBytes(member));
        return addToIntset(member, maxIntsetEntries);
    }

    private boolean addToIntset(long v, long maxIntsetEntries) {
        if (!ints.add(v)) return false;
        if (ints.size() > Math.min(maxIntsetEntries, INTSET_CAP)) toHashtable();
        return true;
    }

    public boolean remove(byte[] member) {
        if (ints == null) return removeFromTable(member);
        long[] v = new long[1];
        return Numbers.parseLong(member, v) && ints.remove(v[0]);
    }

    public boolean remove(long member) {
        return ints != null ? ints.remove(member) : removeFromTable(Numbers.toBytes(member));
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
        IntSet old = ints;
        table = new BytesSet(old.size());
        ints = null;
        for (int i = 0; i < old.size(); i++) addToTable(Numbers.toBytes(old.get(i)));
    }

    private boolean addToTable(byte[] member) {
        if (!table.add(member)) return false;
        memberBytes += Entry.arrayBytes(member.length);
        return true;
    }

    private boolean removeFromTable(byte[] member) {
        if (!table.remove(member)) return false;
        memberBytes -= Entry.arrayBytes(member.length);
        return true;
    }

    /**
     * Heap bytes, O(1): this object and its intset; or the hashtable's nodes and bucket slots
     * (~32 bytes a member) and the member arrays it holds.
     */
    @Override
    public long memoryUsage() {
        if (ints != null) return OBJECT_BYTES + ints.memoryUsage();
        return OBJECT_BYTES + TABLE_BYTES + TABLE_MEMBER_BYTES * (long) table.size() + memberBytes;
    }
}
