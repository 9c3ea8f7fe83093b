package io.cinnabar.persistence.rdb;

import io.cinnabar.persistence.rdb.RdbFormatException.Kind;
import io.cinnabar.util.Numbers;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;

/**
 * The reading side of the RDB encoding: bytes with their offset and running CRC64, and the
 * format's primitives (lengths, strings with their integer and LZF forms, doubles). Lengths
 * come from untrusted input, so no array is sized from one before the bytes behind it have
 * arrived: a string claiming 4 GB in a 100-byte file fails after reading 100 bytes, not after
 * allocating 4 GB.
 */
final class RdbInput {
    private static final int BUFFER = 64 * 1024;
    /** Strings up to this size are allocated at their announced length at once. */
    private static final int TRUSTED_ALLOCATION = 1 << 20;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

    static final int ENC_INT8 = 0, ENC_INT16 = 1, ENC_INT32 = 2, ENC_LZF = 3;

    private final InputStream in;
    private final byte[] buf;
    private int pos, lim;
    /** Offset in the whole input of buf[0]. */
    private long bufStart;
    /** Bytes that exist in total when known (array input), else -1. */
    private final long knownSize;
    private long crc;
    /** buf[crcMark, pos) is consumed but not yet in crc. */
    private int crcMark;

    RdbInput(InputStream in) {
        this.in = in;
        this.buf = new byte[BUFFER];
        this.knownSize = -1;
    }

    /** Reads b[off, off+len) in place. */
    RdbInput(byte[] b, int off, int len) {
        this.in = null;
        this.buf = b;
        this.pos = off;
        this.crcMark = off;
        this.lim = off + len;
        this.bufStart = -off;
        this.knownSize = len;
    }

    /** Bytes consumed so far. */
    long offset() {
        return bufStart + pos;
    }

    /** The CRC64 of every byte consumed so far. */
    long crc() {
        crc = Crc64.update(crc, buf, crcMark, pos - crcMark);
        crcMark = pos;
        return crc;
    }

    /** What follows the consumed bytes: unread buffered bytes, then the rest of the stream. */
    InputStream remainder() {
        InputStream buffered = new ByteArrayInputStream(Arrays.copyOfRange(buf, pos, lim));
        return in == null ? buffered : new SequenceInputStream(buffered, in);
    }

    RdbFormatException corrupt(String reason) {
        return new RdbFormatException(Kind.CORRUPT, offset(), reason);
    }

    private RdbFormatException shortRead() {
        return new RdbFormatException(Kind.SHORT_READ, offset(), "Unexpected EOF reading RDB file");
    }

    /** Makes at least one unread byte available; false at the end of the input. */
    private boolean fill() throws IOException {
        if (pos < lim) return true;
        if (in == null) return false;
        crc();
        bufStart += lim;
        pos = lim = crcMark = 0;
        int n;
        do {
            n = in.read(buf, 0, buf.length);
        } while (n == 0);
        if (n < 0) return false;
        lim = n;
        return true;
    }

    int readUnsignedByte() throws IOException {
        if (pos >= lim && !fill()) throw shortRead();
        return buf[pos++] & 0xff;
    }

    void readFully(byte[] dst, int off, int len) throws IOException {
        while (len > 0) {
            if (pos >= lim && !fill()) throw shortRead();
            int n = Math.min(len, lim - pos);
            System.arraycopy(buf, pos, dst, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** The next n bytes little endian (n up to 8). */
    long readLittleEndian(int n) throws IOException {
        if (lim - pos >= n) {
            long v = LittleEndian.get(buf, pos, n);
            pos += n;
            return v;
        }
        long v = 0;
        for (int i = 0; i < n; i++) v |= (long) readUnsignedByte() << (8 * i);
        return v;
    }

    /** Exactly len bytes; allocation grows with the bytes that actually arrive. */
    byte[] readBytes(long len) throws IOException {
        if (len > MAX_ARRAY) throw corrupt("String of " + Long.toUnsignedString(len) + " bytes is too large");
        if (knownSize >= 0 && offset() + len > knownSize) {
            pos = lim;
            throw shortRead();
        }
        int n = (int) len;
        if (n <= TRUSTED_ALLOCATION || knownSize >= 0) {
            byte[] out = new byte[n];
            readFully(out, 0, n);
            return out;
        }
        byte[] out = new byte[TRUSTED_ALLOCATION];
        int have = 0;
        while (have < n) {
            if (have == out.length) out = Arrays.copyOf(out, (int) Math.min(n, (long) out.length * 2));
            int chunk = out.length - have;
            readFully(out, have, chunk);
            have += chunk;
        }
        return out;
    }

    // ---- the RDB encoding ----

    /**
     * A length as rdbLoadLen reads it: 6 bits, 14 bits, or a 32/64-bit big-endian value. A
     * special-encoding byte (top bits 11) yields its low six bits, as Redis's loader does when
     * the caller does not ask whether it was encoded. Unsigned; 64-bit values above Long.MAX_VALUE
     * come back negative, and callers treat any negative as too large.
     */
    long readLength() throws IOException {
        return lengthAfter(readUnsignedByte());
    }

    private long lengthAfter(int first) throws IOException {
        return switch (first >>> 6) {
            case 0, 3 -> first & 0x3f;
            case 1 -> ((first & 0x3f) << 8) | readUnsignedByte();
            default -> {
                if (first == 0x80) yield Long.reverseBytes(readLittleEndian(4)) >>> 32;
                if (first == 0x81) yield Long.reverseBytes(readLittleEndian(8));
                throw corrupt("Unknown length encoding " + (first >>> 6) + " in rdbLoadLen()");
            }
        };
    }

    /** A length that sizes a collection: negative (over 2^63) lengths are refused. */
    long readCount() throws IOException {
        return checkedCount(readLength());
    }

    private long checkedCount(long n) throws RdbFormatException {
        if (n < 0) throw corrupt("Length " + Long.toUnsignedString(n) + " is too large");
        return n;
    }

    /** A string in any of its RDB forms: plain, 8/16/32-bit integer, or LZF-compressed. */
    byte[] readString() throws IOException {
        int first = readUnsignedByte();
        if (first >>> 6 != 3) return readBytes(checkedCount(lengthAfter(first)));
        int enc = first & 0x3f;
        switch (enc) {
            case ENC_INT8:
                return Numbers.toBytes((byte) readUnsignedByte());
            case ENC_INT16:
                return Numbers.toBytes((short) readLittleEndian(2));
            case ENC_INT32:
                return Numbers.toBytes((int) readLittleEndian(4));
            case ENC_LZF:
                return readLzf();
            default:
                throw corrupt("Unknown RDB string encoding type " + enc);
        }
    }

    private byte[] readLzf() throws IOException {
        long clen = readCount();
        long len = readCount();
        if (len > MAX_ARRAY) throw corrupt("String of " + len + " bytes is too large");
        byte[] compressed = readBytes(clen);
        byte[] out = Lzf.decompress(compressed, 0, compressed.length, (int) len);
        if (out == null) throw corrupt("Invalid LZF compressed string");
        return out;
    }

    /** RDB 8+ binary double: IEEE 754 little endian. */
    double readBinaryDouble() throws IOException {
        return Double.longBitsToDouble(readLittleEndian(8));
    }

    /** Pre-8 text double: a length byte (253 nan, 254 +inf, 255 -inf) and that many characters. */
    double readTextDouble() throws IOException {
        int len = readUnsignedByte();
        switch (len) {
            case 255:
                return Double.NEGATIVE_INFINITY;
            case 254:
                return Double.POSITIVE_INFINITY;
            case 253:
                return Double.NaN;
            default:
                byte[] text = new byte[len];
                readFully(text, 0, len);
                double d = Numbers.strtod(text);
                if (Double.isNaN(d) && !isNanText(text)) throw corrupt("Bad double value");
                return d;
        }
    }

    private static boolean isNanText(byte[] text) {
        String s = new String(text, java.nio.charset.StandardCharsets.ISO_8859_1).trim().toLowerCase(java.util.Locale.ROOT);
        return s.equals("nan") || s.equals("-nan");
    }
}
