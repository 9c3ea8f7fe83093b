package io.cinnabar.command.geo;

/**
 * Redis's geohash arithmetic (geohash.c). A position falls in one of 2^step x 2^step cells over
 * longitude [-180, 180] and latitude [-85.05112878, 85.05112878] (the Web Mercator limits); the
 * cell is named by interleaving the bits of its two indexes, latitude in the even positions and
 * longitude in the odd ones. At step 26 those 52 bits are the sorted set score, and the members
 * of any coarser cell are one contiguous score range. Results must equal Redis's to the bit (a key
 * written by Redis reads the same here), so the floating point operations keep Redis's order.
 */
final class GeoHash {
    static final int STEP_MAX = 26;
    static final double LON_MIN = -180, LON_MAX = 180;
    static final double LAT_MIN = -85.05112878, LAT_MAX = 85.05112878;

    private static final long LAT_BITS = 0x5555555555555555L;
    private static final long LON_BITS = 0xAAAAAAAAAAAAAAAAL;
    private static final char[] BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz".toCharArray();

    private GeoHash() {}

    /** The cell of (lon, lat) at step over the given ranges (the position must lie inside them). */
    static long encode(double lon, double lat, int step, double lonMin, double lonMax, double latMin, double latMax) {
        double latOffset = (lat - latMin) / (latMax - latMin);
        double lonOffset = (lon - lonMin) / (lonMax - lonMin);
        latOffset *= 1L << step;
        lonOffset *= 1L << step;
        // The C code converts to uint32_t, truncating; at the upper limit the index is 2^step.
        return spread((long) latOffset) | (spread((long) lonOffset) << 1);
    }

    static long encode(double lon, double lat, int step) {
        return encode(lon, lat, step, LON_MIN, LON_MAX, LAT_MIN, LAT_MAX);
    }

    /** The 52-bit sorted set score of a position. */
    static long score(double lon, double lat) {
        return encode(lon, lat, STEP_MAX);
    }

    /** Bounds of a cell: {lonMin, lonMax, latMin, latMax}. */
    static double[] area(long cell, int step) {
        long latIndex = squash(cell), lonIndex = squash(cell >>> 1);
        double latScale = LAT_MAX - LAT_MIN, lonScale = LON_MAX - LON_MIN;
        double cells = 1L << step;
        // The indexes are uint32_t in C: index + 1 wraps at 2^32.
        return new double[] {
            LON_MIN + (lonIndex * 1.0 / cells) * lonScale,
            LON_MIN + (((lonIndex + 1) & 0xFFFFFFFFL) * 1.0 / cells) * lonScale,
            LAT_MIN + (latIndex * 1.0 / cells) * latScale,
            LAT_MIN + (((latIndex + 1) & 0xFFFFFFFFL) * 1.0 / cells) * latScale,
        };
    }

    /** The position a score stands for: the center of its step-26 cell, within the limits. */
    static double[] position(double score) {
        double[] a = area(scoreBits(score), STEP_MAX);
        double lon = Math.max(LON_MIN, Math.min(LON_MAX, (a[0] + a[1]) / 2));
        double lat = Math.max(LAT_MIN, Math.min(LAT_MAX, (a[2] + a[3]) / 2));
        return new double[] {lon, lat};
    }

    /** The score as C's (uint64_t) cast reads it on x86-64, for any double a sorted set may hold. */
    private static long scoreBits(double score) {
        return score >= 0x1p63 ? truncate(score - 0x1p63) ^ Long.MIN_VALUE : truncate(score);
    }

    /**
     * x86-64's cvttsd2si, which that cast compiles to: a double outside the long range becomes
     * 0x8000000000000000, where Java's cast saturates (so a score of 1e20 decodes to cell 0, as in Redis).
     */
    private static long truncate(double d) {
        return d >= 0x1p63 || !(d >= -0x1p63) ? Long.MIN_VALUE : (long) d;
    }

    /**
     * The cell dLon cells east (+1) or west (-1) and dLat cells north or south of cell, wrapping
     * around at the edges. Filling the other axis' bits with ones lets one addition carry across
     * them; subtracting borrows through them the same way.
     */
    static long neighbour(long cell, int step, int dLon, int dLat) {
        int shift = 64 - 2 * step;
        if (dLon != 0) {
            long lon = cell & LON_BITS;
            lon = dLon > 0 ? (lon | (LAT_BITS >>> shift)) + 1 : lon - 1;
            cell = (lon & (LON_BITS >>> shift)) | (cell & LAT_BITS);
        }
        if (dLat != 0) {
            long lat = cell & LAT_BITS;
            lat = dLat > 0 ? (lat | (LON_BITS >>> shift)) + 1 : lat - 1;
            cell = (lat & (LAT_BITS >>> shift)) | (cell & LON_BITS);
        }
        return cell;
    }

    /**
     * The 11-character standard geohash (latitude over [-90, 90]) of a score, as GEOHASH replies:
     * 52 bits give ten characters and a bit more; the last character is always '0'.
     */
    static String standard(double score) {
        double[] xy = position(score);
        long bits = encode(xy[0], xy[1], STEP_MAX, -180, 180, -90, 90);
        char[] out = new char[11];
        for (int i = 0; i < 10; i++) out[i] = BASE32[(int) (bits >>> (52 - (i + 1) * 5)) & 0x1f];
        out[10] = BASE32[0];
        return new String(out);
    }

    /** Spreads the low 32 bits of v over the even bit positions. */
    private static long spread(long v) {
        v &= 0xFFFFFFFFL;
        v = (v | (v << 16)) & 0x0000FFFF0000FFFFL;
        v = (v | (v << 8)) & 0x00FF00FF00FF00FFL;
        v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v << 2)) & 0x3333333333333333L;
        return (v | (v << 1)) & 0x5555555555555555L;
    }

    /** Gathers the even bit positions of v into the low 32 bits (the inverse of spread). */
    private static long squash(long v) {
        v &= 0x5555555555555555L;
        v = (v | (v >>> 1)) & 0x3333333333333333L;
        v = (v | (v >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | (v >>> 4)) & 0x00FF00FF00FF00FFL;
        v = (v | (v >>> 8)) & 0x0000FFFF0000FFFFL;
        return (v | (v >>> 16)) & 0x00000000FFFFFFFFL;
    }
}
