package io.cinnabar.persistence;

import io.cinnabar.util.Numbers;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer of commands in the form the AOF and replication carry them: RESP
 * multibulk arrays {@code *<n>\r\n$<len>\r\n<bytes>\r\n...}, exactly as Redis's
 * catAppendOnlyGenericCommand writes them. Not thread-safe: one owner fills it, then hands the
 * bytes over ({@link #toByteArray()}) or writes them out ({@link #writeTo(OutputStream)}).
 */
public final class RespCommandBuffer {
    private static final byte[] SELECT = {'S', 'E', 'L', 'E', 'C', 'T'};
    /** Java's practical limit for an array length. */
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;

    private byte[] buf;
    private int len;

    public RespCommandBuffer() {
        this(256);
    }

    public RespCommandBuffer(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    /** One whole command: the array header and every argument as a bulk string. */
    public static byte[] encode(byte[]... argv) {
        int size = 16;
        for (byte[] a : argv) size += a.length + 16;
        return new RespCommandBuffer(size).command(argv).toByteArray();
    }

    public RespCommandBuffer command(byte[]... argv) {
        arrayHeader(argv.length);
        for (byte[] a : argv) bulk(a);
        return this;
    }

    /** {@code SELECT <db>}, which Redis writes whenever the target database changes. */
    public RespCommandBuffer select(int db) {
        return arrayHeader(2).bulk(SELECT).bulk(db);
    }

    /** {@code *<n>\r\n}: the caller then writes n bulk strings. */
    public RespCommandBuffer arrayHeader(long n) {
        return prefixedNumber('*', n);
    }

    public RespCommandBuffer bulk(byte[] b) {
        return bulk(b, 0, b.length);
    }

    public RespCommandBuffer bulk(byte[] b, int off, int n) {
        prefixedNumber('$', n);
        ensure(n + 2);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        buf[len++] = '\r';
        buf[len++] = '\n';
        return this;
    }

    /** A number as a bulk string of its decimal digits (Redis's rioWriteBulkLongLong). */
    public RespCommandBuffer bulk(long v) {
        int digits = Numbers.decimalLength(v);
        prefixedNumber('$', digits);
        ensure(digits + 2);
        writeDecimal(v, digits);
        buf[len++] = '\r';
        buf[len++] = '\n';
        return this;
    }

    /** Bytes copied verbatim, for annotations such as {@code #TS:...\r\n} or pre-encoded commands. */
    public RespCommandBuffer raw(byte[] b) {
        return raw(b, 0, b.length);
    }

    public RespCommandBuffer raw(byte[] b, int off, int n) {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    public int size() {
        return len;
    }

    public boolean isEmpty() {
        return len == 0;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    public void writeTo(OutputStream out) throws IOException {
        out.write(buf, 0, len);
    }

    /** Lends the bytes, which end at feed offset end, to writer for one call; what it returns. */
    boolean writeTo(WriteFeed.PendingWriter writer, long end) {
        return writer.write(buf, 0, len, end);
    }

    /** The array holding the bytes, its first {@link #size()}; lent until the buffer changes. */
    public byte[] array() {
        return buf;
    }

    /** The array holding the bytes (its first {@link #size()}); the buffer goes on, empty, in next. */
    byte[] detach(byte[] next) {
        byte[] out = buf;
        buf = next;
        len = 0;
        return out;
    }

    /** Drops the first n bytes; the rest moves to the front. */
    void discardFirst(int n) {
        System.arraycopy(buf, n, buf, 0, len - n);
        len -= n;
    }

    /** Empties the buffer but keeps its capacity for the next batch. */
    public void clear() {
        len = 0;
    }

    private RespCommandBuffer prefixedNumber(char prefix, long v) {
        int digits = Numbers.decimalLength(v);
        ensure(digits + 3);
        buf[len++] = (byte) prefix;
        writeDecimal(v, digits);
        buf[len++] = '\r';
        buf[len++] = '\n';
        return this;
    }

    private void writeDecimal(long v, int digits) {
        len += digits;
        Numbers.writeDecimal(buf, len, v);
    }

    private void ensure(int extra) {
        long needed = (long) len + extra;
        if (needed <= buf.length) return;
        if (needed > MAX_CAPACITY) throw new OutOfMemoryError("RESP command buffer would exceed 2 GB");
        long grown = Math.max(needed, Math.min(MAX_CAPACITY, (long) buf.length * 2));
        buf = Arrays.copyOf(buf, (int) grown);
    }
}
