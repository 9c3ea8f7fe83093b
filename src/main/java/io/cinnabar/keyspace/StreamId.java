package io.cinnabar.keyspace;

import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;

/**
 * A stream entry ID: milliseconds and sequence, both unsigned 64-bit (Redis's streamID). Ordered
 * as the 128-bit number ms:seq, which is also the order of its 16-byte big-endian form.
 */
public final class StreamId implements Comparable<StreamId> {
    public static final StreamId MIN = new StreamId(0, 0);
    public static final StreamId MAX = new StreamId(-1L, -1L);

    public final long ms, seq;

    public StreamId(long ms, long seq) {
        this.ms = ms;
        this.seq = seq;
    }

    public boolean isZero() {
        return ms == 0 && seq == 0;
    }

    public boolean isMax() {
        return ms == -1L && seq == -1L;
    }

    /** The next ID, or null past the last possible one (streamIncrID's error). */
    public StreamId next() {
        if (seq != -1L) return new StreamId(ms, seq + 1);
        if (ms != -1L) return new StreamId(ms + 1, 0);
        return null;
    }

    /** The previous ID, or null before 0-0 (streamDecrID's error). */
    public StreamId previous() {
        if (seq != 0) return new StreamId(ms, seq - 1);
        if (ms != 0) return new StreamId(ms - 1, -1L);
        return null;
    }

    @Override
    public int compareTo(StreamId o) {
        int c = Long.compareUnsigned(ms, o.ms);
        return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
    }

    public static int compare(long ms1, long seq1, long ms2, long seq2) {
        int c = Long.compareUnsigned(ms1, ms2);
        return c != 0 ? c : Long.compareUnsigned(seq1, seq2);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StreamId id && id.ms == ms && id.seq == seq;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(ms) * 31 + Long.hashCode(seq);
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    /** The same text as toString, written straight into bytes: every entry a stream reply carries has one. */
    public byte[] toBytes() {
        if (ms < 0 || seq < 0) return toString().getBytes(StandardCharsets.US_ASCII);
        byte[] b = new byte[Numbers.decimalLength(ms) + 1 + Numbers.decimalLength(seq)];
        write(ms, seq, b);
        return b;
    }

    /** The longest text an ID has: two unsigned 64-bit numbers and the dash. */
    public static final int MAX_TEXT_LENGTH = 41;

    /** Writes toString's text of the ID ms-seq at the start of b (MAX_TEXT_LENGTH bytes at least); its length. */
    public static int write(long ms, long seq, byte[] b) {
        if (ms < 0 || seq < 0) {
            byte[] text = new StreamId(ms, seq).toString().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, b, 0, text.length);
            return text.length;
        }
        int msDigits = Numbers.decimalLength(ms);
        int length = msDigits + 1 + Numbers.decimalLength(seq);
        Numbers.writeDigits(b, msDigits, ms);
        b[msDigits] = '-';
        Numbers.writeDigits(b, length, seq);
        return length;
    }

    /** The 16-byte big-endian form (rax keys, RDB node keys and PEL IDs). */
    public byte[] encode() {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (ms >>> (56 - 8 * i));
            b[8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        return b;
    }

    public static StreamId decode(byte[] b, int off) {
        long ms = 0, seq = 0;
        for (int i = 0; i < 8; i++) {
            ms = ms << 8 | (b[off + i] & 0xff);
            seq = seq << 8 | (b[off + 8 + i] & 0xff);
        }
        return new StreamId(ms, seq);
    }

    /**
     * Parses "ms-seq", "ms" (seq = missingSeq), and unless strict "-" and "+"; null when invalid
     * (streamGenericParseIDOrReply). Given autoSeq (XADD), "ms-*" parses too, with seq 0, and
     * sets autoSeq[0].
     */
    public static StreamId parse(byte[] s, long missingSeq, boolean strict, boolean[] autoSeq) {
        if (s.length > 127) return null;
        // Redis copies the argument into a buffer and reads it as a C string: "5-1\0x" is 5-1.
        int length = BinaryText.cLength(s);
        if (length == 1 && (s[0] == '-' || s[0] == '+')) {
            if (strict) return null;
            return s[0] == '-' ? MIN : MAX;
        }
        int dash = -1;
        for (int i = 0; i < length; i++) {
            if (s[i] == '-') {
                dash = i;
                break;
            }
        }
        long[] v = new long[1];
        if (!parseUnsigned(s, 0, dash < 0 ? length : dash, v)) return null;
        long ms = v[0], seq;
        if (dash < 0) {
            seq = missingSeq;
        } else if (autoSeq != null && length - dash - 1 == 1 && s[dash + 1] == '*') {
            autoSeq[0] = true;
            seq = 0;
        } else {
            if (!parseUnsigned(s, dash + 1, length, v)) return null;
            seq = v[0];
        }
        return new StreamId(ms, seq);
    }

    /** Redis's string2ull: digits (strtoull also takes leading blanks and a '+'), no overflow. */
    private static boolean parseUnsigned(byte[] s, int from, int to, long[] out) {
        while (from < to && (s[from] == ' ' || (s[from] >= '\t' && s[from] <= '\r'))) from++;
        if (from < to && s[from] == '+') from++;
        if (from >= to) return false;
        final long limit = Long.divideUnsigned(-1L, 10);
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) return false;
            if (Long.compareUnsigned(v, limit) > 0 || (v == limit && d > 5)) return false;
            v = v * 10 + d;
        }
        out[0] = v;
        return true;
    }
}
