package io.cinnabar.persistence.rdb;

/**
 * Reads the zipmap of RDB type HASH_ZIPMAP (small hashes written by Redis before 2.6). Layout: a
 * count byte (254 or more = unknown), then per pair a field length, the field, a value length, a
 * "free" byte, the value and that many unused bytes; 0xFF ends it. A length is one byte below
 * 254, else 254 and a u32 (little endian, as the x86 hosts that wrote them).
 */
public final class Zipmap {
    private static final int BIGLEN = 254;
    private static final int END = 0xff;

    private Zipmap() {
    }

    /** Receives one field and its value, both slices of the same array. */
    public interface PairVisitor {
        boolean pair(byte[] b, int fieldOff, int fieldLen, int valueOff, int valueLen);
    }

    /**
     * Visits every pair with zipmapValidateIntegrity's deep checks. Returns the pair count, or -1
     * when the zipmap is invalid or empty (Redis rejects an empty one), or the visitor refused.
     */
    public static int walk(byte[] zm, PairVisitor v) {
        int size = zm.length;
        if (size < 2 || (zm[size - 1] & 0xff) != END) return -1;
        int last = size - 1;
        int p = 1;
        int count = 0;
        while ((zm[p] & 0xff) != END) {
            long fieldLen = length(zm, p, last);
            if (fieldLen < 0) return -1;
            int fieldOff = p + lengthSize(zm[p]);
            long q = fieldOff + fieldLen;
            if (q > last) return -1;
            p = (int) q;
            long valueLen = length(zm, p, last);
            if (valueLen < 0) return -1;
            int freeAt = p + lengthSize(zm[p]);
            if (freeAt > last) return -1;
            int free = zm[freeAt] & 0xff;
            int valueOff = freeAt + 1;
            q = (long) valueOff + valueLen + free;
            if (q > last) return -1;
            if (!v.pair(zm, fieldOff, (int) fieldLen, valueOff, (int) valueLen)) return -1;
            p = (int) q;
            count++;
        }
        if (count == 0) return -1;
        int declared = zm[0] & 0xff;
        if (declared != BIGLEN && declared != count) return -1;
        return count;
    }

    private static int lengthSize(byte first) {
        return (first & 0xff) < BIGLEN ? 1 : 5;
    }

    /** The length encoded at p, or -1 when its bytes run past last. */
    private static long length(byte[] zm, int p, int last) {
        int first = zm[p] & 0xff;
        if (first < BIGLEN) return first;
        if (p + 5 > last) return -1;
        return LittleEndian.get(zm, p + 1, 4);
    }
}
