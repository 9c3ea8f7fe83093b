package io.cinnabar.keyspace;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Redis's intset: distinct longs kept sorted ascending and packed at the narrowest width (2, 4 or
 * 8 bytes) that holds them all. Adding a value that needs a wider width re-packs everything
 * (the new value then goes first or last); the width never narrows again, as in Redis.
 */
public final class IntSet {
    private static final VarHandle INT16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final byte[] EMPTY = new byte[0];
    /** Header and fields of an IntSet. */
    private static final int OBJECT_BYTES = 24;

    private int width = 2;
    private int size;
    private byte[] data = EMPTY;

    public IntSet() {
    }

    private IntSet(int width, int size, byte[] data) {
        this.width = width;
        this.size = size;
        this.data = data;
    }

    /**
     * An intset over size values stored little endian, width bytes each, at b[off...]: Redis's own
     * layout, so an RDB intset blob loads with one copy and keeps its width. The caller vouches
     * for the order (RDB loading checks it when sanitizing, as Redis does).
     */
    public static IntSet fromLittleEndian(int width, int size, byte[] b, int off) {
        if (width != 2 && width != 4 && width != 8) throw new IllegalArgumentException("width " + width);
        return new IntSet(width, size, Arrays.copyOfRange(b, off, off + size * width));
    }

    public int size() {
        return size;
    }

    /** Bytes per element: 2, 4 or 8. */
    public int width() {
        return width;
    }

    /** The i-th smallest value. */
    public long get(int i) {
        return read(data, width, i);
    }

    public boolean contains(long v) {
        return widthFor(v) <= width && search(v) >= 0;
    }

    /** Adds v; false if it was already present. */
    public boolean add(long v) {
        int need = widthFor(v);
        if (need > width) {
            upgradeAndAdd(v, need);
            return true;
        }
        int pos = search(v);
        if (pos >= 0) return false;
        pos = -pos - 1;
        ensureCapacity(size + 1);
        System.arraycopy(data, pos * width, data, (pos + 1) * width, (size - pos) * width);
        write(data, width, pos, v);
        size++;
        return true;
    }

    /** Removes v; false if it was absent. */
    public boolean remove(long v) {
        if (widthFor(v) > width) return false;
        int pos = search(v);
        if (pos < 0) return false;
        System.arraycopy(data, (pos + 1) * width, data, pos * width, (size - pos - 1) * width);
        size--;
        if (size * 2 < data.length / width - 8) data = Arrays.copyOf(data, size * width);
        return true;
    }

    /** Heap bytes: this object and its array. */
    long memoryUsage() {
        return OBJECT_BYTES + Entry.arrayBytes(data.length);
    }

    /** A copy sized exactly, sharing nothing. */
    public IntSet copy() {
        return new IntSet(width, size, Arrays.copyOf(data, size * width));
    }

    /** Binary search: the index of v, or -(insertion point) - 1. */
    private int search(long v) {
        if (size == 0) return -1;
        // Fast paths for appends and prepends, the common case when loading ascending ids.
        if (v > get(size - 1)) return -size - 1;
        if (v < get(0)) return -1;
        int lo = 0, hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long m = get(mid);
            if (m < v) lo = mid + 1;
            else if (m > v) hi = mid - 1;
            else return mid;
        }
        return -lo - 1;
    }

    private void upgradeAndAdd(long v, int newWidth) {
        byte[] fresh = new byte[(size + 1 + (size >> 2)) * newWidth];
        // A value too wide for the old encoding is below or above every stored one.
        boolean prepend = v < 0;
        int offset = prepend ? 1 : 0;
        for (int i = 0; i < size; i++) write(fresh, newWidth, i + offset, get(i));
        write(fresh, newWidth, prepend ? 0 : size, v);
        data = fresh;
        width = newWidth;
        size++;
    }

    private void ensureCapacity(int n) {
        if (n * width <= data.length) return;
        // Grow by a quarter: amortises the copy while staying close to Redis's exact-size blob.
        int elements = Math.max(4, n + (n >> 2));
        data = Arrays.copyOf(data, elements * width);
    }

    static int widthFor(long v) {
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) return 2;
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) return 4;
        return 8;
    }

    private static long read(byte[] data, int width, int i) {
        switch (width) {
            case 2: return (short) INT16.get(data, i << 1);
            case 4: return (int) INT32.get(data, i << 2);
            default: return (long) INT64.get(data, i << 3);
        }
    }

    private static void write(byte[] data, int width, int i, long v) {
        switch (width) {
            case 2 -> INT16.set(data, i << 1, (short) v);
            case 4 -> INT32.set(data, i << 2, (int) v);
            default -> INT64.set(data, i << 3, v);
        }
    }
}
