package io.cinnabar.command.cluster;

/** Redis Cluster's key hash slot (cluster.c keyHashSlot): CRC16/XMODEM of the key, or of its {hash tag}, mod 16384. */
public final class HashSlot {
    public static final int COUNT = 16384;
    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int b = 0; b < 8; b++) crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private HashSlot() {}

    /** The slot of key: only the part between the first '{' and the next '}' counts, when that part is not empty. */
    public static int of(byte[] key) {
        int n = key.length, s = 0;
        while (s < n && key[s] != '{') s++;
        if (s == n) return crc16(key, 0, n) & (COUNT - 1);
        int e = s + 1;
        while (e < n && key[e] != '}') e++;
        if (e == n || e == s + 1) return crc16(key, 0, n) & (COUNT - 1);
        return crc16(key, s + 1, e - s - 1) & (COUNT - 1);
    }

    static int crc16(byte[] b, int offset, int length) {
        int crc = 0;
        for (int i = offset, end = offset + length; i < end; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }
}
