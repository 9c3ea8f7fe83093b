package io.cinnabar.persistence.rdb;

/**
 * The CRC-64 Redis puts at the end of RDB files and DUMP payloads: the Jones polynomial, bits
 * reflected, initial value 0, no final xor ("123456789" gives 0xe9c6d914c4b8d9ca). Eight tables
 * let the loop consume a long per step: files are checksummed while they stream, so the CRC must
 * keep up with the disk.
 */
public final class Crc64 {
    /** 0xad93d23594c935a9 with its bits reversed, for the LSB-first (reflected) form. */
    private static final long POLY_REFLECTED = 0x95ac9329ac4bc9b5L;
    private static final long[][] TABLES = new long[8][256];

    static {
        for (int b = 0; b < 256; b++) {
            long crc = b;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLY_REFLECTED : crc >>> 1;
            TABLES[0][b] = crc;
        }
        for (int b = 0; b < 256; b++) {
            for (int t = 1; t < 8; t++) {
                long prev = TABLES[t - 1][b];
                TABLES[t][b] = (prev >>> 8) ^ TABLES[0][(int) (prev & 0xff)];
            }
        }
    }

    private Crc64() {
    }

    /** Continues crc over b[off, off+len). Start with 0. */
    public static long update(long crc, byte[] b, int off, int len) {
        int i = off, end = off + len;
        long[] t0 = TABLES[0], t1 = TABLES[1], t2 = TABLES[2], t3 = TABLES[3];
        long[] t4 = TABLES[4], t5 = TABLES[5], t6 = TABLES[6], t7 = TABLES[7];
        for (; end - i >= 8; i += 8) {
            crc ^= (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24
                    | (b[i + 4] & 0xffL) << 32 | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48
                    | (b[i + 7] & 0xffL) << 56;
            crc = t7[(int) (crc & 0xff)] ^ t6[(int) ((crc >>> 8) & 0xff)] ^ t5[(int) ((crc >>> 16) & 0xff)]
                    ^ t4[(int) ((crc >>> 24) & 0xff)] ^ t3[(int) ((crc >>> 32) & 0xff)]
                    ^ t2[(int) ((crc >>> 40) & 0xff)] ^ t1[(int) ((crc >>> 48) & 0xff)] ^ t0[(int) (crc >>> 56)];
        }
        for (; i < end; i++) crc = (crc >>> 8) ^ t0[(int) ((crc ^ b[i]) & 0xff)];
        return crc;
    }

    public static long of(byte[] b) {
        return update(0, b, 0, b.length);
    }
}
