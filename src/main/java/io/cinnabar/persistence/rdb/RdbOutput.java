package io.cinnabar.persistence.rdb;

import io.cinnabar.util.Numbers;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The writing side of the RDB encoding: a buffer that is either spilled to a stream as it fills
 * (files) or kept whole (DUMP payloads, records prepared on one thread for another), with the
 * CRC64 of everything written and the format's primitives. Strings are written as Redis's
 * rdbSaveRawString writes them: small integers in integer form, longer strings LZF-compressed
 * when compression is on and it saves at least four bytes. One thread at a time.
 */
final class RdbOutput {
    private static final int SPILL_AT = 64 * 1024;

    private final OutputStream out;
    private final boolean compress;
    private final boolean checksum;
    private final long[] parsed = new long[1];
    private byte[] buf;
    private int len;
    /** buf[0, crcCovered) is already in crc. */
    private int crcCovered;
    private long spilled;
    private long crc;

    /** Streams to out. */
    RdbOutput(OutputStream out, boolean compress, boolean checksum) {
        this.out = out;
        this.compress = compress;
        this.checksum = checksum;
        this.buf = new byte[SPILL_AT];
    }

    /** Keeps everything in memory; see {@link #toByteArray()}. */
    RdbOutput(boolean compress) {
        this.out = null;
        this.compress = compress;
        this.checksum = true;
        this.buf = new byte[128];
    }

    long bytesWritten() {
        return spilled + len;
    }

    /** CRC64 of everything written so far; 0 when checksums are off (Redis writes zeros then). */
    long crc() {
        foldCrc();
        return checksum ? crc : 0;
    }

    private void foldCrc() {
        if (checksum) crc = Crc64.update(crc, buf, crcCovered, len - crcCovered);
        crcCovered = len;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    /** Empties an in-memory output for reuse (its buffer and compressor are kept). */
    void reset() {
        len = crcCovered = 0;
        crc = 0;
    }

    /** Hands everything buffered to the stream and flushes it. */
    void flush() throws IOException {
        spill();
        out.flush();
    }

    private void spill() throws IOException {
        foldCrc();
        out.write(buf, 0, len);
        spilled += len;
        len = crcCovered = 0;
    }

    private void ensure(int n) throws IOException {
        if (len + n <= buf.length) return;
        if (out != null) {
            spill();
            if (n <= buf.length) return;
        }
        long want = Math.max((long) len + n, (long) buf.length * 2);
        if (want > Integer.MAX_VALUE - 16) throw new IOException("RDB record larger than 2 GB");
        buf = Arrays.copyOf(buf, (int) want);
    }

    // ---- primitives ----

    void writeByte(int b) throws IOException {
        ensure(1);
        buf[len++] = (byte) b;
    }

    void write(byte[] b, int off, int n) throws IOException {
        if (out != null && n >= SPILL_AT) {
            // Large values go straight to the stream rather than through the buffer.
            spill();
            if (checksum) crc = Crc64.update(crc, b, off, n);
            out.write(b, off, n);
            spilled += n;
            return;
        }
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
    }

    void writeLittleEndian(long v, int n) throws IOException {
        ensure(n);
        len = LittleEndian.put(buf, len, v, n);
    }

    void writeBinaryDouble(double d) throws IOException {
        writeLittleEndian(Double.doubleToRawLongBits(d), 8);
    }

    /** rdbSaveLen: 6 bits, 14 bits, or 0x80 / 0x81 and a 32 / 64-bit big-endian value. */
    void writeLength(long n) throws IOException {
        ensure(9);
        if (n >= 0 && n < 1 << 6) {
            buf[len++] = (byte) n;
        } else if (n >= 0 && n < 1 << 14) {
            buf[len++] = (byte) (0x40 | (n >>> 8));
            buf[len++] = (byte) n;
        } else if (n >= 0 && n <= 0xffffffffL) {
            buf[len++] = (byte) 0x80;
            len = LittleEndian.put(buf, len, Integer.reverseBytes((int) n), 4);
        } else {
            buf[len++] = (byte) 0x81;
            len = LittleEndian.put(buf, len, Long.reverseBytes(n), 8);
        }
    }

    void writeString(byte[] s) throws IOException {
        writeString(s, 0, s.length);
    }

    /** rdbSaveRawString: integer form, LZF, or length and bytes. */
    void writeString(byte[] s, int off, int n) throws IOException {
        if (n <= 11 && Numbers.parseLong(s, off, n, parsed) && writeIntegerForm(parsed[0])) return;
        if (compress && n > 20) {
            byte[] c = Lzf.forThisThread().compress(s, off, n, n - 4);
            if (c != null) {
                writeByte(0xc0 | RdbInput.ENC_LZF);
                writeLength(c.length);
                writeLength(n);
                write(c, 0, c.length);
                return;
            }
        }
        writeLength(n);
        write(s, off, n);
    }

    /** rdbEncodeInteger: 8, 16 or 32-bit forms; false when v needs more than 32 bits. */
    private boolean writeIntegerForm(long v) throws IOException {
        if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
            writeByte(0xc0 | RdbInput.ENC_INT8);
            writeLittleEndian(v, 1);
        } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            writeByte(0xc0 | RdbInput.ENC_INT16);
            writeLittleEndian(v, 2);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            writeByte(0xc0 | RdbInput.ENC_INT32);
            writeLittleEndian(v, 4);
        } else {
            return false;
        }
        return true;
    }
}
