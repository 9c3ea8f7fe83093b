package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * The length of a table and the table library as Lua 5.1 has them. Where a table has holes,
 * "#t" may be any border; scripts see the one Lua 5.1's luaH_getn finds, which depends on the
 * size of the table's array part (#{1, nil, 3} is 3, luaj says 1), and table.insert, remove,
 * sort, concat, getn and unpack all start from it. table.sort is Lua 5.1's quicksort, making
 * the same comparisons in the same order, so ties, inconsistent comparators and holes come out
 * as they do in Redis.
 *
 * The array part is luaj's own (its sizes follow Lua's rules), read through a VarHandle: luaj
 * keeps it protected and offers no border but its own.
 */
final class Lua51Tables {
    private Lua51Tables() {}

    private static final VarHandle ARRAY, HASH, HASH_ENTRIES;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(LuaTable.class, MethodHandles.lookup());
            ARRAY = l.findVarHandle(LuaTable.class, "array", LuaValue[].class);
            HASH = l.findVarHandle(LuaTable.class, "hash", Class.forName("[Lorg.luaj.vm2.LuaTable$Slot;"));
            HASH_ENTRIES = l.findVarHandle(LuaTable.class, "hashEntries", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** luaH_getn: a border of t, the one Lua 5.1 finds. */
    static int length(LuaTable t) {
        LuaValue[] array = (LuaValue[]) ARRAY.get(t);
        int j = array.length;
        if (j > 0 && isNil(array[j - 1])) {
            int i = 0;
            while (j - i > 1) {
                int m = (i + j) >>> 1;
                if (isNil(array[m - 1])) j = m; else i = m;
            }
            return i;
        }
        if (((Object[]) HASH.get(t)).length == 0) return j;
        return unboundSearch(t, j);
    }

    private static boolean isNil(LuaValue v) {
        return v == null || v.isnil();
    }

    /** Past the array part: doubling probes, then a binary search between the last hit and the first miss. */
    private static int unboundSearch(LuaTable t, int j) {
        long i = j, k = (long) j + 1;
        while (!t.rawget((int) k).isnil()) {
            i = k;
            k *= 2;
            if (k > Integer.MAX_VALUE) {
                int n = 1;
                while (!t.rawget(n).isnil()) n++;
                return n - 1;
            }
        }
        while (k - i > 1) {
            long m = (i + k) / 2;
            if (t.rawget((int) m).isnil()) k = m; else i = m;
        }
        return (int) i;
    }

    /** A table just made by a constructor: its array part exactly as large as the constructor said, as in Lua 5.1. */
    static void sizeNew(LuaTable t, int size) {
        LuaValue[] array = (LuaValue[]) ARRAY.get(t);
        if (array.length == size) return;
        for (LuaValue v : array) {
            if (v != null) return;
        }
        ARRAY.set(t, size == 0 ? new LuaValue[0] : new LuaValue[size]);
    }

    /**
     * A table whose array part holds the values of keys 1..n (some nil), laid out as Lua 5.1's
     * stores of them one by one into a new table leave it ({@link Lua51Stores}): its array part
     * that large, the rest of the values in its hash part, which exists where Lua's does.
     */
    static void layOutAsStored(LuaTable t, int n) {
        LuaValue[] values = (LuaValue[]) ARRAY.get(t);
        boolean[] present = new boolean[n];
        for (int i = 0; i < n; i++) present[i] = !isNil(values[i]);
        int[] sizes = Lua51Stores.sizesAfter(present, n);
        int size = sizes[0], inHash = 0;
        for (int k = size + 1; k <= n; k++) if (present[k - 1]) inHash++;
        // Room for them all, so that luaj does not rehash on the way.
        t.presize(0, sizes[1] > 0 ? Math.max(inHash, 1) : 0);
        ARRAY.set(t, java.util.Arrays.copyOf(values, size));
        for (int k = size + 1; k <= n; k++) {
            if (present[k - 1]) t.rawset(k, values[k - 1]);
        }
    }

    /** The size of t's array part now. */
    private static int arraySize(LuaTable t) {
        return ((LuaValue[]) ARRAY.get(t)).length;
    }

    /**
     * SETLIST's luaH_resizearray, before the stores: a constructor's array part grows to exactly
     * its last index when that is past its size, the entries 1..last in it (from the hash part,
     * where they may be).
     */
    static void growArray(LuaTable t, int last) {
        if (arraySize(t) < last) growArrayTo(t, last);
    }

    /** Grows t's array part to size, moving the entries of keys now in its range there from the hash part. */
    private static void growArrayTo(LuaTable t, int size) {
        LuaValue[] array = (LuaValue[]) ARRAY.get(t);
        LuaValue[] grown = java.util.Arrays.copyOf(array, size);
        if (((Object[]) HASH.get(t)).length > 0) {
            for (int k = array.length + 1; k <= size; k++) {
                LuaValue v = t.rawget(k);
                if (v.isnil()) continue;
                grown[k - 1] = v;
                t.rawset(k, LuaValue.NIL);
            }
        }
        ARRAY.set(t, grown);
    }

    /**
     * Before target[key] = value makes a new entry: luaj's rehash, which a new key in a full hash
     * part starts, counts the keys of the array part as if its size were a power of two, as
     * luaj's own sizes are. Over the exact sizes Lua 5.1's constructors give (sizeNew, growArray)
     * it miscounts and can leave the new entry no bucket at all (an ArrayIndexOutOfBoundsException
     * for "local t = {1, 2, 3}; t.x = 1"). Lua 5.1 rehashes at that same moment, to a power of two;
     * the array part first grows to one here, and luaj's rehash then sizes it from right counts.
     */
    static void beforeSet(LuaValue target, LuaValue key, LuaValue value) {
        if (!(target instanceof LuaTable t)) return;
        // Redis's readonly tables refuse any store first, whatever the key; Lua 5.1 then refuses
        // the key before it looks for __newindex, which luaj calls with it.
        if (ReadOnlyTable.refuses(t)) throw new ReadOnlyTable.Refused();
        String badKey = t.getmetatable() == null ? null : FailedInstruction.badKey(key);
        if (badKey != null) throw new LuaError(badKey);
        if (value.isnil()) return;
        LuaValue[] array = (LuaValue[]) ARRAY.get(t);
        int n = array.length;
        if ((n & (n - 1)) == 0) return;
        if (key.isinttype() && key.toint() >= 1 && key.toint() <= n) return;
        if ((int) HASH_ENTRIES.get(t) < ((Object[]) HASH.get(t)).length || !t.rawget(key).isnil()) return;
        growToPowerOfTwo(t, n);
    }

    /** A table whose array part luaj's weak-table rehash will count: sized as luaj sizes it. */
    static void beforeRehash(LuaValue target) {
        if (target instanceof LuaTable t) growToPowerOfTwo(t, arraySize(t));
    }

    /** An array part of n entries, n not a power of two, grown to the next one (luaj's rehash counts on that). */
    private static void growToPowerOfTwo(LuaTable t, int n) {
        if ((n & (n - 1)) != 0) growArrayTo(t, Integer.highestOneBit(n) << 1);
    }

    static void install(LuaTable table, LuaTable globals) {
        table.rawset("getn", fn(a -> LuaValue.valueOf(length(a.checktable(1)))));
        table.rawset("insert", fn(a -> ReadOnlyTable.raisedInC(() -> insert(a))));
        table.rawset("remove", fn(a -> ReadOnlyTable.raisedInC(() -> remove(a))));
        table.rawset("sort", fn(a -> ReadOnlyTable.raisedInC(() -> sort(a))));
        table.rawset("concat", fn(Lua51Tables::concat));
        globals.rawset("unpack", fn(Lua51Tables::unpack));
        // Lua 5.1's own, where luaj has Lua 5.2's table.pack and table.unpack.
        table.rawset("pack", LuaValue.NIL);
        table.rawset("unpack", LuaValue.NIL);
        table.rawset("foreach", fn(Lua51Tables::foreach));
        table.rawset("foreachi", fn(Lua51Tables::foreachi));
        table.rawset("setn", fn(a -> {
            a.checktable(1);
            throw new LuaError("'setn' is obsolete");
        }));
    }

    /** table.foreach(t, f): f(k, v) for each pair until f returns something other than nil, which is returned. */
    private static Varargs foreach(Varargs a) {
        LuaTable t = a.checktable(1);
        LuaValue f = a.checkfunction(2);
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) return LuaValue.NONE;
            LuaValue r = f.call(k, n.arg(2));
            if (!r.isnil()) return r;
        }
    }

    /** table.foreachi(t, f): f(i, t[i]) for i = 1..#t until f returns something other than nil. */
    private static Varargs foreachi(Varargs a) {
        LuaTable t = a.checktable(1);
        int n = length(t);
        LuaValue f = a.checkfunction(2);
        for (int i = 1; i <= n; i++) {
            LuaValue r = f.call(LuaValue.valueOf(i), t.rawget(i));
            if (!r.isnil()) return r;
        }
        return LuaValue.NONE;
    }

    /** table.insert(t, [pos,] value): what is at pos and after moves up one. */
    private static Varargs insert(Varargs a) {
        LuaTable t = a.checktable(1);
        int end = length(t) + 1;
        int pos;
        switch (a.narg()) {
            case 2 -> pos = end;
            case 3 -> {
                pos = ArgumentErrors.integer(a, 2, "insert");
                if (pos > end) end = pos;
                for (int i = end; i > pos; i--) set(t, i, t.rawget(i - 1));
            }
            default -> throw new LuaError("wrong number of arguments to 'insert'");
        }
        set(t, pos, a.arg(a.narg()));
        return LuaValue.NONE;
    }

    private static void set(LuaTable t, int key, LuaValue value) {
        LuaValue k = LuaValue.valueOf(key);
        beforeSet(t, k, value);
        t.rawset(k, value);
    }

    /** table.remove(t [, pos]): the value at pos (the last by default), what follows moving down; nothing when out of range. */
    private static Varargs remove(Varargs a) {
        LuaTable t = a.checktable(1);
        int end = length(t);
        int pos = a.isnoneornil(2) ? end : a.checkint(2);
        if (pos < 1 || pos > end) return LuaValue.NONE;
        LuaValue removed = t.rawget(pos);
        for (; pos < end; pos++) t.rawset(pos, t.rawget(pos + 1));
        t.rawset(end, LuaValue.NIL);
        return removed;
    }

    /** unpack(t [, i [, j]]): t[i] .. t[j], j being #t by default. */
    private static Varargs unpack(Varargs a) {
        LuaTable t = a.checktable(1);
        int i = a.isnoneornil(2) ? 1 : a.checkint(2);
        int j = a.isnoneornil(3) ? length(t) : a.checkint(3);
        if (i > j) return LuaValue.NONE;
        long n = (long) j - i + 1;
        if (n >= 8000) throw new LuaError("too many results to unpack");
        LuaValue[] out = new LuaValue[(int) n];
        for (int k = 0; k < n; k++) out[k] = t.rawget(i + k);
        return LuaValue.varargsOf(out);
    }

    /**
     * table.concat(list [, sep [, i [, j]]]), numbers written as Lua 5.1 does, with Lua 5.1's
     * error (its arguments' types checked in Lua 5.1's order: {@link ArgumentErrors}).
     */
    private static Varargs concat(Varargs a) {
        LuaTable list = a.checktable(1);
        LuaString sep = a.isnil(2) ? LuaValue.EMPTYSTRING : Lua51.text(a.arg(2));
        int i = a.isnoneornil(3) ? 1 : a.checkint(3);
        int j = a.isnoneornil(4) ? length(list) : a.checkint(4);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int k = i; k <= j; k++) {
            LuaValue v = list.rawget(k);
            if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) {
                throw new LuaError("invalid value (" + v.typename() + ") at index " + k + " in table for 'concat'");
            }
            out.writeBytes(LuaToReply.bytes(Lua51.text(v)));
            if (k != j) out.writeBytes(LuaToReply.bytes(sep));
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    /** table.sort(t [, comp]): a comp that is no function is refused by {@link ArgumentErrors}. */
    private static Varargs sort(Varargs a) {
        LuaTable t = a.checktable(1);
        int n = length(t);
        new QuickSort(t, a.arg(2)).sort(1, n);
        return LuaValue.NONE;
    }

    /**
     * Lua 5.1's auxsort: median of three, pivot kept at u-1, partition, recursion on the smaller
     * part and a loop on the larger. Elements are read and written raw, as there.
     */
    private record QuickSort(LuaTable t, LuaValue comp) {
        /** The comparator, or Lua 5.1's "<", whose errors carry no position when raised inside sort. */
        boolean less(LuaValue x, LuaValue y) {
            if (!comp.isnil()) return comp.call(x, y).toboolean();
            int tx = x.type(), ty = y.type();
            if (tx == ty && (tx == LuaValue.TNUMBER || tx == LuaValue.TSTRING || x.getmetatable() != null && !x.getmetatable().rawget("__lt").isnil())) {
                return x.lt_b(y);
            }
            String what = tx == ty ? "two " + x.typename() + " values" : x.typename() + " with " + y.typename();
            throw new PositionlessError(LuaValue.valueOf("attempt to compare " + what));
        }

        void swap(int i, int j) {
            LuaValue x = t.rawget(i);
            t.rawset(i, t.rawget(j));
            t.rawset(j, x);
        }

        void sort(int l, int u) {
            while (l < u) {
                if (less(t.rawget(u), t.rawget(l))) swap(l, u);
                if (u - l == 1) return;
                int i = (l + u) >>> 1;
                if (less(t.rawget(i), t.rawget(l))) {
                    swap(i, l);
                } else if (less(t.rawget(u), t.rawget(i))) {
                    swap(i, u);
                }
                if (u - l == 2) return;
                LuaValue pivot = t.rawget(i);
                swap(i, u - 1);
                int j = u - 1;
                i = l;
                while (true) {
                    while (less(t.rawget(++i), pivot)) {
                        if (i > u) throw new LuaError("invalid order function for sorting");
                    }
                    while (less(pivot, t.rawget(--j))) {
                        if (j < l) throw new LuaError("invalid order function for sorting");
                    }
                    if (j < i) break;
                    swap(i, j);
                }
                swap(u - 1, i);
                if (i - l < u - i) {
                    sort(l, i - 1);
                    l = i + 1;
                } else {
                    sort(i + 1, u);
                    u = i - 1;
                }
            }
        }
    }
}
