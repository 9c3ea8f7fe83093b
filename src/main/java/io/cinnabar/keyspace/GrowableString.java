package io.cinnabar.keyspace;

import java.util.Arrays;

/**
 * A string value that APPEND, SETRANGE, SETBIT or BITFIELD edits in place, with room to grow as
 * Redis's sds has (sdsMakeRoomFor: double up to 1 MB, then 1 MB more), so that repeated appends
 * copy the string O(log n) times instead of once each; and BITOP's result, which the next BITOP
 * into the same key writes over ({@link Database#overwritable}). Only those commands see it
 * ({@link Database#growable}); every other reader gets a plain {@code byte[]} ({@link Entry#value()}
 * trims it once), so plain SET/GET values carry no indirection.
 * <p>
 * The buffer may start out shared with a stored array (replies, snapshots hold those): it is
 * copied before the first write. Bytes past the length are zero.
 */
public final class GrowableString {
    private static final int MAX_PREALLOC = 1024 * 1024;
    /** Java arrays stop just short of 2 GiB. */
    private static final int ARRAY_LIMIT = Integer.MAX_VALUE - 8;

    private byte[] buf;
    private int length;
    private boolean shared;
    /** Bytes copied into new buffers so far: what the greedy growth keeps linear. */
    private long copied;

    /** Wraps a stored string without copying it (yet). */
    GrowableString(byte[] value) {
        this(value, true);
    }

    private GrowableString(byte[] value, boolean shared) {
        this.buf = value;
        this.length = value.length;
        this.shared = shared;
    }

    /** A string in value, which nothing else holds: the first write goes into it. */
    static GrowableString owning(byte[] value) {
        return new GrowableString(value, false);
    }

    /** Whether the buffer is this string's own and exactly length bytes long. */
    boolean ownsExactly(int length) {
        return !shared && buf.length == length;
    }

    public int length() {
        return length;
    }

    /** The bytes to read: valid up to {@link #length()}, zeros after; not to be written or kept. */
    public byte[] array() {
        return buf;
    }

    /** Bytes of heap the buffer takes, spare room included (MEMORY USAGE counts sds free space too). */
    public int capacity() {
        return buf.length;
    }

    /** Bytes copied into new buffers over this string's life. */
    public long copiedBytes() {
        return copied;
    }

    /**
     * The buffer to write into, owned by this string and at least minLength long; the string
     * grows (zero padded) to minLength if shorter.
     */
    public byte[] writable(int minLength) {
        if (minLength > buf.length || shared) {
            int capacity = minLength > buf.length ? greedy(minLength) : buf.length;
            buf = Arrays.copyOf(buf, capacity);
            copied += length;
            shared = false;
        }
        if (minLength > length) length = minLength;
        return buf;
    }

    public void append(byte[] tail) {
        int at = length;
        System.arraycopy(tail, 0, writable(length + tail.length), at, tail.length);
    }

    /** Redis's sdsMakeRoomFor policy. */
    private static int greedy(int needed) {
        long capacity = needed < MAX_PREALLOC ? 2L * needed : (long) needed + MAX_PREALLOC;
        return (int) Math.max(needed, Math.min(capacity, ARRAY_LIMIT));
    }

    /**
     * The string as a plain array of its length: the buffer itself when that is exact, shared from
     * then on (the next write copies it first).
     */
    byte[] toBytes() {
        if (length != buf.length) return Arrays.copyOf(buf, length);
        shared = true;
        return buf;
    }
}
