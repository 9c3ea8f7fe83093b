package io.cinnabar.protocol;

import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Encodes replies into one growable byte array. The keyspace thread keeps one writer, fills it
 * with a batch's replies for one client and hands the bytes over: the client's connection copies
 * them out ({@link #bytes()}, then {@link #reset()}) or takes a copy ({@link #takeBytes()}).
 * Nothing here touches Netty.
 */
public class RespWriter implements Reply {
    private static final int SHRINK_ABOVE = 1 << 20;
    private static final int COPY_LOOP_BELOW = 16;
    private static final int CRLF = '\r' | '\n' << 8;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int len;
    private int protocol = 2;

    public RespWriter() {
        this(4096);
    }

    public RespWriter(int initialCapacity) {
        buf = new byte[initialCapacity];
    }

    public void protocol(int protocol) {
        this.protocol = protocol;
    }

    @Override
    public int protocol() {
        return protocol;
    }

    public int size() {
        return len;
    }

    /** Drops everything written after {@code mark} (e.g. a reply that turned into an error). */
    public void truncate(int mark) {
        len = mark;
    }

    /** Copies out the encoded bytes and resets the writer for the next client. */
    public byte[] takeBytes() {
        byte[] out = Arrays.copyOf(buf, len);
        reset();
        return out;
    }

    /** The encoded bytes are the first {@link #size()} of this array, until the next write or {@link #reset()}. */
    public byte[] bytes() {
        return buf;
    }

    /** Empties the writer for the next client, once its bytes were copied out. */
    public void reset() {
        len = 0;
        if (buf.length > SHRINK_ABOVE) buf = new byte[4096];
    }

    // ---- Reply ----

    @Override
    public void simple(String s) {
        put((byte) '+');
        putText(s);
        crlf();
    }

    @Override
    public void simple(byte[] s) {
        put((byte) '+');
        put(s, 0, s.length);
        crlf();
    }

    @Override
    public void error(String message) {
        put((byte) '-');
        // An error line cannot hold a newline; Redis replaces them with spaces.
        int start = len;
        putText(message);
        for (int i = start; i < len; i++) {
            if (buf[i] == '\r' || buf[i] == '\n') buf[i] = ' ';
        }
        crlf();
    }

    @Override
    public void integer(long v) {
        header((byte) ':', v);
    }

    @Override
    public void bulk(byte[] b) {
        bulk(b, 0, b.length);
    }

    @Override
    public void bulk(byte[] b, int offset, int length) {
        // Room for the header, the value and its CRLF at once: a big value then costs one copy
        // instead of a doubling for the value and another for the CRLF after it.
        ensure(length + 24);
        byte[] buf = this.buf;
        int p = len;
        // Most values are short (LRANGE of redis-benchmark's "xxx"): their header goes in as one
        // or two stores, and below COPY_LOOP_BELOW bytes a loop copies faster than a call to
        // the array copy stub.
        if (length < 10) {
            INT.set(buf, p, '$' | ('0' + length) << 8 | CRLF << 16);
            p += 4;
        } else if (length < 100) {
            INT.set(buf, p, '$' | ('0' + length / 10) << 8 | ('0' + length % 10) << 16 | '\r' << 24);
            buf[p + 4] = '\n';
            p += 5;
        } else {
            buf[p] = '$';
            len = p + 1;
            putLong(length);
            p = len;
            SHORT.set(buf, p, (short) CRLF);
            p += 2;
        }
        if (length < COPY_LOOP_BELOW) {
            for (int i = 0; i < length; i++) buf[p + i] = b[offset + i];
        } else {
            System.arraycopy(b, offset, buf, p, length);
        }
        p += length;
        SHORT.set(buf, p, (short) CRLF);
        len = p + 2;
    }

    @Override
    public void bulk(String s) {
        bulk(BinaryText.encode(s));
    }

    @Override
    public void bulk(long v) {
        header((byte) '$', Numbers.decimalLength(v));
        ensure(22);
        putLong(v);
        crlf();
    }

    @Override
    public void nullBulk() {
        raw(protocol == 3 ? RespConstants.NULL_3 : RespConstants.NULL_BULK_2);
    }

    @Override
    public void nullArray() {
        raw(protocol == 3 ? RespConstants.NULL_3 : RespConstants.NULL_ARRAY_2);
    }

    @Override
    public void array(int n) {
        header((byte) '*', n);
    }

    @Override
    public void map(int n) {
        if (protocol == 3) header((byte) '%', n); else header((byte) '*', 2L * n);
    }

    @Override
    public void set(int n) {
        header(protocol == 3 ? (byte) '~' : (byte) '*', n);
    }

    @Override
    public void push(int n) {
        header(protocol == 3 ? (byte) '>' : (byte) '*', n);
    }

    @Override
    public void doubleValue(double d) {
        doubleText(io.cinnabar.util.DoubleFormat.reply(d));
    }

    @Override
    public void humanDouble(double d) {
        doubleText(io.cinnabar.util.DoubleFormat.human(d));
    }

    /** A double already formatted: ",text" in RESP3, a bulk string in RESP2. */
    private void doubleText(String s) {
        if (protocol == 3) {
            put((byte) ',');
            putAscii(s);
            crlf();
        } else {
            bulk(RespConstants.ascii(s));
        }
    }

    @Override
    public void bool(boolean b) {
        if (protocol == 3) {
            putAscii(b ? "#t\r\n" : "#f\r\n");
        } else {
            raw(b ? RespConstants.ONE : RespConstants.ZERO);
        }
    }

    @Override
    public void verbatim(String format, byte[] text) {
        verbatim(format, text, 0, text.length);
    }

    @Override
    public void verbatim(String format, byte[] text, int offset, int length) {
        if (protocol == 3) {
            header((byte) '=', length + 4L);
            putAscii(format);
            put((byte) ':');
            put(text, offset, length);
            crlf();
        } else {
            bulk(text, offset, length);
        }
    }

    @Override
    public void bigNumber(String digits) {
        if (protocol == 3) {
            put((byte) '(');
            putAscii(digits);
            crlf();
        } else {
            bulk(RespConstants.ascii(digits));
        }
    }

    @Override
    public void attribute(int n) {
        if (protocol != 3) throw new IllegalStateException("attributes need RESP3");
        header((byte) '|', n);
    }

    @Override
    public void raw(byte[] encoded) {
        put(encoded, 0, encoded.length);
    }

    // ---- encoding ----

    private void header(byte type, long n) {
        ensure(24);
        buf[len++] = type;
        putLong(n);
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    private void crlf() {
        ensure(2);
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    private void put(byte b) {
        ensure(1);
        buf[len++] = b;
    }

    private void put(byte[] b, int off, int n) {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    private void putAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
    }

    /** A String that may carry a client's bytes (see BinaryText), written as those bytes. */
    private void putText(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                byte[] b = BinaryText.encode(s);
                put(b, 0, b.length);
                return;
            }
        }
        putAscii(s);
    }

    /** Writes the decimal digits of v without allocating. Caller ensured 20 bytes of room. */
    private void putLong(long v) {
        if (v >= 0 && v < 100) {
            // Most array lengths and counts.
            if (v >= 10) buf[len++] = (byte) ('0' + v / 10);
            buf[len++] = (byte) ('0' + v % 10);
            return;
        }
        int end = len + Numbers.decimalLength(v);
        Numbers.writeDecimal(buf, end, v);
        len = end;
    }

    private void ensure(int extra) {
        int need = len + extra;
        if (need > buf.length) {
            long grown = Math.max((long) buf.length * 2, need);
            buf = Arrays.copyOf(buf, (int) Math.min(grown, Integer.MAX_VALUE - 8));
        }
    }
}
