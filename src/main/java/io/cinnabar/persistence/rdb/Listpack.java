package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.StreamListpack;
import io.cinnabar.util.Numbers;

import java.util.Arrays;

/**
 * Redis 7.0's listpack, the blob inside RDB types HASH_LISTPACK, ZSET_LISTPACK and the nodes of
 * LIST_QUICKLIST_2. Layout: total bytes (u32 LE), element count (u16 LE, 65535 = "count them"),
 * the entries, then 0xFF. An entry is an encoding byte (small unsigned int, 13/16/24/32/64-bit
 * int, or a string with a 6, 12 or 32-bit length), its data, and "backlen": the size of encoding
 * plus data written backwards in 7-bit groups so the list can be walked from its end.
 * <p>
 * {@link Builder} picks encodings as Redis's lpAppend does (a string that is a canonical 64-bit
 * integer is stored as an integer), so the same elements give the same bytes as Redis 7.0.
 */
public final class Listpack {
    static final int HEADER_SIZE = 6;
    static final int COUNT_UNKNOWN = 0xffff;
    private static final int EOF = 0xff;
    /** Redis refuses to grow a listpack past 1 GB (lpSafeToAdd). */
    public static final long MAX_SAFE_SIZE = 1L << 30;

    private Listpack() {
    }

    /** Receives the entries of a listpack in order; returning false stops the walk as invalid. */
    public interface EntryVisitor {
        boolean string(byte[] buf, int off, int len);

        boolean integer(long value);
    }

    /** Accumulates entries and produces the listpack bytes. */
    public static final class Builder {
        private byte[] buf;
        private int size = HEADER_SIZE;
        private int count;
        private final long[] parsed = new long[1];

        public Builder() {
            this(64);
        }

        public Builder(int capacity) {
            buf = new byte[Math.max(HEADER_SIZE + 16, capacity)];
        }

        public int count() {
            return count;
        }

        /** Bytes the listpack would take if built now. */
        public long bytes() {
            return size + 1L;
        }

        public Builder add(byte[] s) {
            return add(s, 0, s.length);
        }

        /** Adds a string, stored as an integer when it is one in canonical form (lpAppend). */
        public Builder add(byte[] s, int off, int len) {
            if (len <= 20 && Numbers.parseLong(s, off, len, parsed)) return addInteger(parsed[0]);
            int header = StreamListpack.stringHeaderSize(len);
            int p = reserve(header + len + backlenSize(header + len));
            p = StreamListpack.writeStringHeader(buf, p, len, header);
            System.arraycopy(s, off, buf, p, len);
            finish(p + len, header + len);
            return this;
        }

        /** Adds an integer with the narrowest of Redis's integer encodings. */
        public Builder addInteger(long v) {
            int size = StreamListpack.encodedIntegerSize(v);
            int p = reserve(size + 1);
            StreamListpack.writeInteger(buf, p, v, size);
            finish(p + size, size);
            return this;
        }

        public byte[] build() {
            byte[] out = Arrays.copyOf(buf, size + 1);
            out[size] = (byte) EOF;
            LittleEndian.put(out, 0, size + 1, 4);
            LittleEndian.put(out, 4, Math.min(count, COUNT_UNKNOWN), 2);
            return out;
        }

        /** Room for n more bytes; returns where they start. */
        private int reserve(int n) {
            if (size + n + 1 > buf.length) {
                long want = Math.max((long) size + n + 1, (long) buf.length * 2);
                buf = Arrays.copyOf(buf, (int) Math.min(want, Integer.MAX_VALUE - 16));
            }
            return size;
        }

        private void finish(int p, int entrySize) {
            size = writeBacklen(buf, p, entrySize);
            count++;
        }
    }

    /** Bytes of the backlen of an entry of l bytes (note Redis's strict '<' bounds). */
    static int backlenSize(long l) {
        return StreamListpack.backlenSize(l);
    }

    private static int writeBacklen(byte[] b, int p, long l) {
        return StreamListpack.writeBacklen(b, p, l);
    }

    /** The backlen that ends just before end, or -1 when it runs past start or over 5 bytes. */
    private static long readBacklen(byte[] b, int start, int end) {
        long v = 0;
        int shift = 0;
        for (int p = end - 1; p >= start; p--) {
            v |= (long) (b[p] & 127) << shift;
            if ((b[p] & 128) == 0) return v;
            shift += 7;
            if (shift > 28) return -1;
        }
        return -1;
    }

    /** Header check only (lpValidateIntegrity with deep=0): declared size and terminator. */
    public static boolean validHeader(byte[] lp) {
        return lp.length >= HEADER_SIZE + 1 && LittleEndian.get(lp, 0, 4) == lp.length && (lp[lp.length - 1] & 0xff) == EOF;
    }

    /** The element count stored in the header (65535 when unknown). */
    public static int headerCount(byte[] lp) {
        return (int) LittleEndian.get(lp, 4, 2);
    }

    /**
     * Walks every entry of lp with all of lpValidateIntegrity's deep checks (entry bounds, backlen
     * consistency, terminator position, header count). Walking is how the codec reads a listpack
     * at all, so the structural checks are always on; callers add the semantic ones (duplicates)
     * when sanitizing. Returns the number of entries, or -1 when the listpack is invalid or the
     * visitor refused an entry.
     */
    public static int walk(byte[] lp, EntryVisitor v) {
        if (!validHeader(lp)) return -1;
        int last = lp.length - 1; // the terminator
        int p = HEADER_SIZE;
        int count = 0;
        while (p < last) {
            int enc = lp[p] & 0xff;
            int entryStart = p;
            int dataLen;
            int headerLen;
            boolean isString;
            if (enc < 0x80) {
                headerLen = 1;
                dataLen = 0;
                isString = false;
            } else if (enc < 0xc0) {
                headerLen = 1;
                dataLen = enc & 0x3f;
                isString = true;
            } else if (enc < 0xe0) {
                headerLen = 1;
                dataLen = 1;
                isString = false;
            } else if (enc < 0xf0) {
                if (p + 1 >= last) return -1;
                headerLen = 2;
                dataLen = ((enc & 0x0f) << 8) | (lp[p + 1] & 0xff);
                isString = true;
            } else if (enc == 0xf0) {
                if (p + 4 >= last) return -1;
                long l = LittleEndian.get(lp, p + 1, 4);
                if (l > last) return -1;
                headerLen = 5;
                dataLen = (int) l;
                isString = true;
            } else if (enc >= 0xf1 && enc <= 0xf4) {
                headerLen = 1;
                dataLen = enc == 0xf1 ? 2 : enc == 0xf2 ? 3 : enc == 0xf3 ? 4 : 8;
                isString = false;
            } else {
                return -1; // 0xf5..0xfe are unused; 0xff here would be a terminator before the end
            }
            long entryLen = (long) headerLen + dataLen;
            long next = entryStart + entryLen + backlenSize(entryLen);
            if (next > last) return -1;
            if (readBacklen(lp, entryStart, (int) next) != entryLen) return -1;
            boolean ok;
            if (isString) {
                ok = v.string(lp, entryStart + headerLen, dataLen);
            } else {
                ok = v.integer(integerAt(lp, entryStart, enc));
            }
            if (!ok) return -1;
            count++;
            p = (int) next;
        }
        if (p != last) return -1;
        int declared = headerCount(lp);
        if (declared != COUNT_UNKNOWN && declared != count) return -1;
        return count;
    }

    private static long integerAt(byte[] lp, int p, int enc) {
        if (enc < 0x80) return enc;
        if (enc < 0xe0) {
            long u = ((enc & 0x1f) << 8) | (lp[p + 1] & 0xff);
            return u >= 1 << 12 ? u - (1 << 13) : u;
        }
        int n = enc == 0xf1 ? 2 : enc == 0xf2 ? 3 : enc == 0xf3 ? 4 : 8;
        return LittleEndian.getSigned(lp, p + 1, n);
    }
}
