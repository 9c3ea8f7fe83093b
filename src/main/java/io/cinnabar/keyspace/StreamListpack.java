package io.cinnabar.keyspace;

import io.cinnabar.util.Numbers;

import java.util.Arrays;

/**
 * A growable listpack in Redis 7.0's exact byte layout (total bytes u32 LE, element count u16 LE,
 * entries, 0xFF), used as one stream node. Keeping the node in Redis's own format makes its size
 * (which decides when a node is full: stream-node-max-bytes) and its RDB form the same as
 * Redis's, with no conversion on save or load. The array may have spare room at its end; the
 * header's total is the listpack's real length.
 * <p>
 * Elements are read forward with a {@link Cursor}; appends and in-place integer replacement are
 * all the stream needs (entries are never inserted in the middle, and a reverse walk collects
 * entry positions first).
 */
public final class StreamListpack {
    static final int HEADER_SIZE = 6;
    private static final int COUNT_UNKNOWN = 0xffff;
    private static final int EOF = 0xff;

    byte[] buf;
    /** Bytes in use, terminator included (the header's total). */
    int bytes;

    StreamListpack(int capacity) {
        buf = new byte[Math.max(HEADER_SIZE + 1, capacity)];
        bytes = HEADER_SIZE + 1;
        buf[HEADER_SIZE] = (byte) EOF;
        writeHeader(0);
    }

    /** Adopts a listpack read from a file (already validated). */
    StreamListpack(byte[] lp) {
        buf = lp;
        bytes = lp.length;
    }

    StreamListpack copy() {
        return new StreamListpack(Arrays.copyOf(buf, bytes));
    }

    /** The listpack as Redis stores it: exactly its bytes. */
    public byte[] toBytes() {
        return bytes == buf.length ? buf : Arrays.copyOf(buf, bytes);
    }

    int bytes() {
        return bytes;
    }

    /** Drops spare room (a node that stopped growing: Redis's lpShrinkToFit). */
    void shrinkToFit() {
        if (buf.length != bytes) buf = Arrays.copyOf(buf, bytes);
    }

    /** Position of the first element (the terminator when empty). */
    static int first() {
        return HEADER_SIZE;
    }

    boolean isEnd(int p) {
        return p >= bytes - 1;
    }

    /** Where the end marker is: just past the last element. */
    int end() {
        return bytes - 1;
    }

    /** The start of the element that ends just before p, found from its backlen (lpPrev). */
    int previous(int p) {
        long l = 0;
        int shift = 0;
        int at = p - 1;
        while (true) {
            int b = buf[at] & 0xff;
            l |= (long) (b & 127) << shift;
            if ((b & 128) == 0) break;
            shift += 7;
            at--;
        }
        return (int) (at - l);
    }

    private int count() {
        return (buf[4] & 0xff) | (buf[5] & 0xff) << 8;
    }

    private void writeHeader(int count) {
        buf[0] = (byte) bytes;
        buf[1] = (byte) (bytes >>> 8);
        buf[2] = (byte) (bytes >>> 16);
        buf[3] = (byte) (bytes >>> 24);
        buf[4] = (byte) count;
        buf[5] = (byte) (count >>> 8);
    }

    // ---- appending ----

    void appendInteger(long v) {
        int len = encodedIntegerSize(v);
        int p = reserve(len + backlenSize(len));
        writeInteger(buf, p, v, len);
        finishAppend(p + len, len);
    }

    /** Appends a string, stored as an integer when it is one in canonical form (lpAppend). */
    void appendString(byte[] s, long[] scratch) {
        if (s.length <= 20 && Numbers.parseLong(s, 0, s.length, scratch)) {
            appendInteger(scratch[0]);
            return;
        }
        int header = stringHeaderSize(s.length);
        int p = reserve(header + s.length + backlenSize(header + s.length));
        p = writeStringHeader(buf, p, s.length, header);
        System.arraycopy(s, 0, buf, p, s.length);
        finishAppend(p + s.length, header + s.length);
    }

    private int reserve(int n) {
        int need = bytes + n;
        if (need > buf.length) buf = Arrays.copyOf(buf, Math.max(need, Math.min(buf.length * 2, need + 4096)));
        return bytes - 1;
    }

    private void finishAppend(int p, int entrySize) {
        p = writeBacklen(buf, p, entrySize);
        buf[p] = (byte) EOF;
        bytes = p + 1;
        int count = count();
        writeHeader(count == COUNT_UNKNOWN ? COUNT_UNKNOWN : count + 1);
    }

    // ---- replacing ----

    /** Replaces the integer element at p with v (its size may change, moving what follows). */
    void replaceInteger(int p, long v) {
        int oldLen = elementLength(p);
        int len = encodedIntegerSize(v);
        int newLen = len + backlenSize(len);
        if (newLen != oldLen) {
            int delta = newLen - oldLen;
            if (bytes + delta > buf.length) buf = Arrays.copyOf(buf, bytes + delta);
            System.arraycopy(buf, p + oldLen, buf, p + newLen, bytes - p - oldLen);
            bytes += delta;
            writeHeader(count());
        }
        writeInteger(buf, p, v, len);
        writeBacklen(buf, p + len, len);
    }

    /** Total bytes of the element at p, backlen included. */
    int elementLength(int p) {
        int enc = buf[p] & 0xff;
        int l;
        if (enc < 0x80) l = 1;
        else if (enc < 0xc0) l = 1 + (enc & 0x3f);
        else if (enc < 0xe0) l = 2;
        else if (enc < 0xf0) l = 2 + (((enc & 0x0f) << 8) | (buf[p + 1] & 0xff));
        else if (enc == 0xf0) l = 5 + (int) le(buf, p + 1, 4);
        else l = 1 + (enc == 0xf1 ? 2 : enc == 0xf2 ? 3 : enc == 0xf3 ? 4 : 8);
        return l + backlenSize(l);
    }

    // ---- reading ----

    /** Reads elements forward from a position; after {@link #next} the element's value is in the fields. */
    static final class Cursor {
        final StreamListpack lp;
        int pos;
        boolean isInt;
        long intValue;
        int strOff, strLen;

        Cursor(StreamListpack lp, int pos) {
            this.lp = lp;
            this.pos = pos;
        }

        /** Decodes the element at pos and moves past it. */
        Cursor next() {
            byte[] b = lp.buf;
            int p = pos;
            int enc = b[p] & 0xff;
            int l;
            if (enc < 0x80) {
                isInt = true;
                intValue = enc;
                l = 1;
            } else if (enc < 0xc0) {
                isInt = false;
                strOff = p + 1;
                strLen = enc & 0x3f;
                l = 1 + strLen;
            } else if (enc < 0xe0) {
                isInt = true;
                long u = ((enc & 0x1f) << 8) | (b[p + 1] & 0xff);
                intValue = u >= 1 << 12 ? u - (1 << 13) : u;
                l = 2;
            } else if (enc < 0xf0) {
                isInt = false;
                strLen = ((enc & 0x0f) << 8) | (b[p + 1] & 0xff);
                strOff = p + 2;
                l = 2 + strLen;
            } else if (enc == 0xf0) {
                isInt = false;
                strLen = (int) le(b, p + 1, 4);
                strOff = p + 5;
                l = 5 + strLen;
            } else {
                isInt = true;
                int n = enc == 0xf1 ? 2 : enc == 0xf2 ? 3 : enc == 0xf3 ? 4 : 8;
                int unused = 64 - 8 * n;
                intValue = (le(b, p + 1, n) << unused) >> unused;
                l = 1 + n;
            }
            pos = p + l + backlenSize(l);
            return this;
        }

        long nextInt() {
            next();
            return isInt ? intValue : Numbers.parseLongOr(bytes(), 0);
        }

        /** The current element as bytes (integers in decimal, as lpGet gives them). */
        byte[] bytes() {
            return isInt ? Numbers.toBytes(intValue) : Arrays.copyOfRange(lp.buf, strOff, strOff + strLen);
        }

        boolean equalsBytes(byte[] s) {
            if (isInt) return Arrays.equals(Numbers.toBytes(intValue), s);
            return Arrays.equals(lp.buf, strOff, strOff + strLen, s, 0, s.length);
        }

        void skip(long n) {
            for (long i = 0; i < n; i++) pos += lp.elementLength(pos);
        }
    }

    // ---- encodings (Redis's listpack.c), shared with the RDB codec's listpack builder ----

    private static long le(byte[] b, int p, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) v |= (b[p + i] & 0xffL) << (8 * i);
        return v;
    }

    /** Bytes of the narrowest integer encoding of v (backlen excluded). */
    public static int encodedIntegerSize(long v) {
        if (v >= 0 && v <= 127) return 1;
        if (v >= -4096 && v <= 4095) return 2;
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) return 3;
        if (v >= -(1 << 23) && v < (1 << 23)) return 4;
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) return 5;
        return 9;
    }

    /** Writes v at p in the encoding of len bytes ({@link #encodedIntegerSize}). */
    public static void writeInteger(byte[] b, int p, long v, int len) {
        switch (len) {
            case 1 -> b[p] = (byte) v;
            case 2 -> {
                long u = v & 0x1fff;
                b[p] = (byte) (0xc0 | (u >>> 8));
                b[p + 1] = (byte) u;
            }
            default -> {
                b[p] = (byte) (len == 3 ? 0xf1 : len == 4 ? 0xf2 : len == 5 ? 0xf3 : 0xf4);
                for (int i = 0; i < len - 1; i++) b[p + 1 + i] = (byte) (v >>> (8 * i));
            }
        }
    }

    public static int stringHeaderSize(int len) {
        return len < 64 ? 1 : len < 4096 ? 2 : 5;
    }

    /** Writes the header of a string of len bytes; returns where its data goes. */
    public static int writeStringHeader(byte[] b, int p, int len, int header) {
        if (header == 1) {
            b[p++] = (byte) (0x80 | len);
        } else if (header == 2) {
            b[p++] = (byte) (0xe0 | (len >>> 8));
            b[p++] = (byte) len;
        } else {
            b[p++] = (byte) 0xf0;
            for (int i = 0; i < 4; i++) b[p++] = (byte) (len >>> (8 * i));
        }
        return p;
    }

    /** Bytes of the backlen of an entry of l bytes (note Redis's strict '<' bounds). */
    public static int backlenSize(long l) {
        if (l <= 127) return 1;
        if (l < 16383) return 2;
        if (l < 2097151) return 3;
        if (l < 268435455) return 4;
        return 5;
    }

    /** Writes the backlen of an entry of l bytes at p: high groups first, every byte but the first flagged. */
    public static int writeBacklen(byte[] b, int p, long l) {
        int n = backlenSize(l);
        for (int i = 0; i < n; i++) {
            int shift = 7 * (n - 1 - i);
            int group = (int) ((l >>> shift) & 127);
            b[p + i] = (byte) (i == 0 ? group : group | 128);
        }
        return p + n;
    }
}
