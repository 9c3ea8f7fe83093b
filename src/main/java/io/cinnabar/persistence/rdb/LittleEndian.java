package io.cinnabar.persistence.rdb;

/** Fixed-width integers as the RDB format and its blobs store them. */
final class LittleEndian {
    private LittleEndian() {
    }

    /** The n-byte unsigned little-endian value at p (n up to 8; 8 bytes wrap to negative). */
    static long get(byte[] b, int p, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) v |= (b[p + i] & 0xffL) << (8 * i);
        return v;
    }

    /** The n-byte two's complement little-endian value at p, sign-extended. */
    static long getSigned(byte[] b, int p, int n) {
        int unused = 64 - 8 * n;
        return (get(b, p, n) << unused) >> unused;
    }

    /** Writes the low n bytes of v at p; returns p + n. */
    static int put(byte[] b, int p, long v, int n) {
        for (int i = 0; i < n; i++) b[p++] = (byte) (v >>> (8 * i));
        return p;
    }

    static long getU32BigEndian(byte[] b, int p) {
        return (b[p] & 0xffL) << 24 | (b[p + 1] & 0xffL) << 16 | (b[p + 2] & 0xffL) << 8 | (b[p + 3] & 0xffL);
    }
}
