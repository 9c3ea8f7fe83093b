package io.cinnabar.persistence.rdb;

/**
 * Reads the ziplist, the compact encoding Redis used before 7.0 (RDB types LIST_ZIPLIST,
 * ZSET_ZIPLIST, HASH_ZIPLIST and the nodes of LIST_QUICKLIST). Layout: total bytes (u32 LE),
 * offset of the last entry (u32 LE), entry count (u16 LE, 65535 = unknown), entries, 0xFF. An
 * entry is the previous entry's size (one byte, or 0xFE and a u32 LE), an encoding with the
 * length (strings: 6 bits, 14 bits big endian, or 0x80 and a u32 big endian; integers: 8, 16,
 * 24, 32 or 64 bits little endian, or 0..12 inside the encoding byte) and the data. Redis 7.0
 * only converts ziplists away, so this only reads them, always checking them as deeply as
 * ziplistValidateIntegrity(deep=1) does.
 */
public final class Ziplist {
    private static final int HEADER_SIZE = 10;
    private static final int END = 0xff;
    private static final int BIG_PREVLEN = 0xfe;

    private Ziplist() {
    }

    /**
     * Visits every entry of zl in order. Returns the entry count, or -1 when the ziplist is
     * invalid (bounds, prevlen chain, tail offset, count) or the visitor refused an entry.
     */
    public static int walk(byte[] zl, Listpack.EntryVisitor v) {
        int size = zl.length;
        if (size < HEADER_SIZE + 1) return -1;
        if (LittleEndian.get(zl, 0, 4) != size || (zl[size - 1] & 0xff) != END) return -1;
        long tail = LittleEndian.get(zl, 4, 4);
        if (tail > size - 1) return -1;
        int declared = (int) LittleEndian.get(zl, 8, 2);
        int last = size - 1;
        int p = HEADER_SIZE;
        int prev = -1;
        long prevSize = 0;
        int count = 0;
        while (p < last) {
            int entry = p;
            long prevLen;
            if ((zl[p] & 0xff) < BIG_PREVLEN) {
                prevLen = zl[p] & 0xff;
                p += 1;
            } else {
                if (p + 5 > last) return -1;
                prevLen = LittleEndian.get(zl, p + 1, 4);
                p += 5;
            }
            if (prevLen != prevSize) return -1;
            if (p >= last) return -1;
            int enc = zl[p] & 0xff;
            boolean ok;
            long dataLen;
            if (enc < 0xc0) {
                int lenBytes;
                if (enc >>> 6 == 0) {
                    dataLen = enc & 0x3f;
                    lenBytes = 1;
                } else if (enc >>> 6 == 1) {
                    if (p + 1 >= last) return -1;
                    dataLen = ((enc & 0x3f) << 8) | (zl[p + 1] & 0xff);
                    lenBytes = 2;
                } else {
                    // Redis masks the encoding to its top two bits here, so 0x81..0xbf pass too.
                    if (p + 4 >= last) return -1;
                    dataLen = LittleEndian.getU32BigEndian(zl, p + 1);
                    lenBytes = 5;
                }
                if (p + lenBytes + dataLen > last) return -1;
                ok = v.string(zl, p + lenBytes, (int) dataLen);
                p += lenBytes + (int) dataLen;
            } else {
                int n = switch (enc) {
                    case 0xfe -> 1;
                    case 0xc0 -> 2;
                    case 0xf0 -> 3;
                    case 0xd0 -> 4;
                    case 0xe0 -> 8;
                    default -> enc >= 0xf1 && enc <= 0xfd ? 0 : -1;
                };
                if (n < 0 || p + 1 + n > last) return -1;
                long value;
                if (n == 0) {
                    value = (enc & 0x0f) - 1;
                } else {
                    value = LittleEndian.getSigned(zl, p + 1, n);
                }
                ok = v.integer(value);
                p += 1 + n;
            }
            if (!ok) return -1;
            prevSize = p - entry;
            prev = entry;
            count++;
        }
        if (p != last) return -1;
        if (prev >= 0 && prev != tail) return -1;
        if (declared != 0xffff && declared != count) return -1;
        return count;
    }
}
