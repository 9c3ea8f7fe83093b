package io.cinnabar.command.hyperloglog;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One HyperLogLog string being read or edited, byte for byte Redis's representation
 * (hyperloglog.c) so that values move between Redis and Cinnabar with GET/SET: a 16-byte header
 * ("HYLL", encoding, 3 unused bytes, the cached cardinality little endian with its top bit
 * meaning "stale"), then either 16384 6-bit registers packed little endian (dense) or the sparse
 * run-length opcodes ZERO 00xxxxxx, XZERO 01xxxxxx yyyyyyyy and VAL 1vvvvvxx.
 * <p>
 * Stored strings are shared (replies, snapshots), so the first edit copies the string (with room to
 * grow, as Redis's sds); reading, or a PFADD that changes no register, copies nothing.
 * {@link #bytes()} gives the result to store. Sparse data may be corrupt
 * (any SETRANGE makes it so): a read past the end sees the byte after it, as Redis reads the sds's
 * next byte (see {@link #at}), and every walk is bounded, so corruption yields "invalid", never an
 * exception.
 */
public final class Hll {
    static final int P = 14;
    static final int Q = 64 - P;
    public static final int REGISTERS = 1 << P;
    static final int REGISTER_MAX = 63;
    static final int HEADER = 16;
    static final int DENSE_SIZE = HEADER + (REGISTERS * 6 + 7) / 8;
    public static final int DENSE = 0;
    public static final int SPARSE = 1;
    private static final int VAL_MAX_VALUE = 32;
    private static final int VAL_MAX_LEN = 4;
    private static final int ZERO_MAX_LEN = 64;
    private static final int XZERO_MAX_LEN = 16384;
    private static final long SEED = 0xadc83b19L;
    private static final long M = 0xc6a4a7935bd1e995L;
    private static final double ALPHA_INF = 0.721347520444481703680;
    private static final VarHandle LE_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE_INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    /** The registers a ZERO or VAL opcode covers, by its byte; 0 for XZERO, two bytes long. */
    private static final byte[] ONE_BYTE_SPAN = new byte[256];

    static {
        for (int op = 0; op < 256; op++) {
            ONE_BYTE_SPAN[op] = (byte) (isXzero(op) ? 0 : isZero(op) ? (op & 0x3F) + 1 : valLen(op));
        }
    }

    /** The string, followed by spare room; bytes at len and beyond are not part of it. */
    private byte[] b;
    private int len;
    /** b is the stored value itself, to be copied before any write. */
    private boolean shared;

    private Hll(byte[] b, int len, boolean shared) {
        this.b = b;
        this.len = len;
        this.shared = shared;
    }

    /** A stored value (already {@link #isValid valid}) to read or edit; copied on the first edit. */
    public static Hll of(byte[] stored) {
        return new Hll(stored, stored.length, true);
    }

    /** Makes b private before a write, with room for a sparse string to grow (dense ones never do). */
    private void own() {
        if (!shared) return;
        b = Arrays.copyOf(b, b[4] == DENSE ? len : len + 8);
        shared = false;
    }

    /** A new, empty HLL: sparse, all registers covered by XZERO opcodes (Redis's createHLLObject). */
    public static Hll empty() {
        int opcodes = (REGISTERS + XZERO_MAX_LEN - 1) / XZERO_MAX_LEN;
        byte[] b = new byte[HEADER + opcodes * 2 + 8];
        b[0] = 'H';
        b[1] = 'Y';
        b[2] = 'L';
        b[3] = 'L';
        b[4] = SPARSE;
        int p = HEADER;
        for (int left = REGISTERS; left > 0; left -= XZERO_MAX_LEN) {
            setXzero(b, p, Math.min(left, XZERO_MAX_LEN));
            p += 2;
        }
        return new Hll(b, p, false);
    }

    /** Redis's isHLLObjectOrReply: the header is there, says HYLL, a known encoding, and dense has the exact size. */
    public static boolean isValid(byte[] v) {
        if (v.length < HEADER || v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L') return false;
        int encoding = v[4] & 0xFF;
        return encoding == SPARSE || (encoding == DENSE && v.length == DENSE_SIZE);
    }

    /** The edited string, to store. */
    public byte[] bytes() {
        return b.length == len ? b : Arrays.copyOf(b, len);
    }

    public int encoding() {
        return b[4];
    }

    /**
     * A byte of the string, or past its end the byte Redis reads there: the sds terminator (0) or,
     * once an XZERO cut short by the end was split, the split's last byte that memcpy wrote over the
     * terminator (sparseSet), which the next split in the same PFADD reads as the XZERO's low byte.
     * Redis keeps that byte for later commands too; a stored value here ends at its length, so they
     * read 0.
     */
    private int at(int i) {
        return i < b.length ? b[i] & 0xFF : 0;
    }

    // ---- cached cardinality ----

    public boolean cacheValid() {
        return (b[15] & 0x80) == 0;
    }

    public void invalidateCache() {
        if (!cacheValid()) return;
        own();
        b[15] |= (byte) 0x80;
    }

    public long cachedCardinality() {
        long card = 0;
        for (int i = 7; i >= 0; i--) card = (card << 8) | (b[8 + i] & 0xFF);
        return card;
    }

    public void cacheCardinality(long card) {
        own();
        for (int i = 0; i < 8; i++) b[8 + i] = (byte) (card >>> (8 * i));
    }

    // ---- hashing ----

    /** MurmurHash2, 64-bit (MurmurHash64A), reading 8-byte blocks little endian as Redis does. */
    static long murmurHash64A(byte[] key, int seed) {
        int len = key.length;
        long h = (seed & 0xFFFFFFFFL) ^ (len * M);
        int blocks = len - (len & 7);
        for (int i = 0; i < blocks; i += 8) {
            long k = (long) LE_LONGS.get(key, i);
            k *= M;
            k ^= k >>> 47;
            k *= M;
            h ^= k;
            h *= M;
        }
        int tail = len & 7;
        if (tail > 0) {
            for (int i = tail - 1; i >= 0; i--) h ^= (long) (key[blocks + i] & 0xFF) << (8 * i);
            h *= M;
        }
        h ^= h >>> 47;
        h *= M;
        h ^= h >>> 47;
        return h;
    }

    /**
     * Redis's hllPatLen: the register an element hashes to (low 14 bits of the hash) and the
     * length of the 0..01 pattern in the other 50 bits, at most 51. Returned as count << 16 | index.
     */
    static int patternOf(byte[] element) {
        long hash = murmurHash64A(element, (int) SEED);
        int index = (int) (hash & (REGISTERS - 1));
        hash = (hash >>> P) | (1L << Q);
        int count = Long.numberOfTrailingZeros(hash) + 1;
        return count << 16 | index;
    }

    // ---- dense registers ----

    /** Register regnum of the dense registers starting at offset; a byte past limit reads as 0. */
    static int denseGet(byte[] p, int offset, int limit, int regnum) {
        int bit = regnum * 6;
        int i = offset + (bit >>> 3), fb = bit & 7;
        int b0 = p[i] & 0xFF, b1 = i + 1 < limit ? p[i + 1] & 0xFF : 0;
        return ((b0 >>> fb) | (b1 << (8 - fb))) & REGISTER_MAX;
    }

    static void denseSet(byte[] p, int offset, int limit, int regnum, int value) {
        int bit = regnum * 6;
        int i = offset + (bit >>> 3), fb = bit & 7;
        p[i] = (byte) ((p[i] & ~(REGISTER_MAX << fb)) | (value << fb));
        if (i + 1 < limit) p[i + 1] = (byte) ((p[i + 1] & ~(REGISTER_MAX >>> (8 - fb))) | (value >>> (8 - fb)));
    }

    /** Dense registers come in groups of four, 24 bits, 3 bytes: read and written a group at a time. */
    private static final int GROUPS = REGISTERS / 4;

    private static int group(byte[] p, int g) {
        int i = HEADER + 3 * g;
        return (p[i] & 0xFF) | (p[i + 1] & 0xFF) << 8 | (p[i + 2] & 0xFF) << 16;
    }

    private static void raise(byte[] max, int j, int value) {
        max[j] = (byte) Math.max(max[j], value);
    }

    /**
     * A dense HLL's registers all set to registers (one per byte, each at most 63): PFMERGE's
     * result, where every register is the largest of the sources' and the destination's own, so
     * that where four in a row are 0 the destination's are already.
     */
    public void setDense(byte[] registers) {
        own();
        for (int g = 0, j = 0; g < GROUPS; g++, j += 4) {
            if ((int) LE_INTS.get(registers, j) == 0) continue;
            int w = registers[j] | registers[j + 1] << 6 | registers[j + 2] << 12 | registers[j + 3] << 18;
            int i = HEADER + 3 * g;
            b[i] = (byte) w;
            b[i + 1] = (byte) (w >>> 8);
            b[i + 2] = (byte) (w >>> 16);
        }
    }

    /** Register regnum of a dense HLL. */
    public int register(int regnum) {
        return denseGet(b, HEADER, len, regnum);
    }

    // ---- adding ----

    /** Adds an element: 1 if a register grew, 0 if none did, -1 if the sparse data is corrupt. */
    public int add(byte[] element, long sparseMaxBytes) {
        int pattern = patternOf(element);
        return set(pattern & 0xFFFF, pattern >>> 16, sparseMaxBytes);
    }

    /** Raises register index to count if lower: 1 if it did, 0 if not, -1 on corrupt sparse data. */
    public int set(int index, int count, long sparseMaxBytes) {
        if (b[4] == DENSE) return denseRaise(index, count);
        return sparseSet(index, count, sparseMaxBytes);
    }

    private int denseRaise(int index, int count) {
        if (count <= denseGet(b, HEADER, len, index)) return 0;
        own();
        denseSet(b, HEADER, len, index, count);
        return 1;
    }

    private static boolean isZero(int op) {
        return (op & 0xC0) == 0;
    }

    private static boolean isXzero(int op) {
        return (op & 0xC0) == 0x40;
    }

    private static int valValue(int op) {
        return ((op >>> 2) & 0x1F) + 1;
    }

    private static int valLen(int op) {
        return (op & 3) + 1;
    }

    private static byte val(int value, int runlen) {
        return (byte) (((value - 1) << 2 | (runlen - 1)) | 0x80);
    }

    /** How many registers the opcode at p covers. */
    private int runLength(int p) {
        int op = b[p] & 0xFF;
        if (isZero(op)) return (op & 0x3F) + 1;
        if (isXzero(op)) return (((op & 0x3F) << 8) | at(p + 1)) + 1;
        return valLen(op);
    }

    private static void setXzero(byte[] p, int i, int runlen) {
        p[i] = (byte) (((runlen - 1) >>> 8) | 0x40);
        p[i + 1] = (byte) (runlen - 1);
    }

    /** Writes a run of zeros of length runlen at seq[n] (ZERO or XZERO); returns the next free index. */
    private static int zeros(byte[] seq, int n, int runlen) {
        if (runlen > ZERO_MAX_LEN) {
            setXzero(seq, n, runlen);
            return n + 2;
        }
        seq[n] = (byte) (runlen - 1);
        return n + 1;
    }

    /**
     * Redis's hllSparseSet: finds the opcode covering the register and splits it into at most
     * three (ZERO/XZERO/VAL runs around a VAL of length 1), then merges equal neighbouring VALs.
     * Promotes to dense when count does not fit a VAL or the string would pass sparseMaxBytes.
     */
    private int sparseSet(int index, int count, long sparseMaxBytes) {
        if (count > VAL_MAX_VALUE) return promote(index, count);
        byte[] s = b;
        int p = HEADER, end = len, prev = -1;
        // The walk stops at the first run that passes index (< 16384), so first stays below 32768.
        int first = 0, span = 0;
        while (p < end) {
            if (p + 8 <= end) {
                int block = oneByteRunsSpan((long) LE_LONGS.get(s, p));
                if (block >= 0 && index >= first + block) {
                    first += block;
                    prev = p + 7;
                    p += 8;
                    continue;
                }
            }
            int op = s[p] & 0xFF, oplen = 1;
            span = ONE_BYTE_SPAN[op];
            if (span == 0) { // XZERO
                span = runLength(p);
                oplen = 2;
            }
            if (index < first + span) break;
            prev = p;
            p += oplen;
            first += span;
        }
        if (span == 0 || p >= end) return -1;
        int op = b[p] & 0xFF;
        boolean zero = isZero(op), xzero = isXzero(op), isVal = !zero && !xzero;
        int next = xzero ? p + 2 : p + 1;
        if (next >= end) next = -1;
        long runlen = span;
        if (isVal && valValue(op) >= count) return 0;
        own();
        // Room for the worst split (XZERO into XZERO VAL XZERO), as Redis's sdsMakeRoomFor(3).
        if (b.length < len + 8) b = Arrays.copyOf(b, Math.max(len + 8, len * 2));
        boolean done = false;
        if ((isVal || zero) && runlen == 1) {
            b[p] = val(count, 1);
            done = true;
        }
        if (!done) {
            byte[] seq = new byte[5];
            int n = 0;
            long last = first + span - 1;
            if (zero || xzero) {
                if (index != first) n = zeros(seq, n, (int) (index - first));
                seq[n++] = val(count, 1);
                if (index != last) n = zeros(seq, n, (int) (last - index));
            } else {
                int current = valValue(op);
                if (index != first) seq[n++] = val(current, (int) (index - first));
                seq[n++] = val(count, 1);
                if (index != last) seq[n++] = val(current, (int) (last - index));
            }
            int delta = n - (xzero ? 2 : 1);
            if (delta > 0 && len + delta > sparseMaxBytes) return promote(index, count);
            if (delta != 0 && next >= 0) System.arraycopy(b, next, b, next + delta, end - next);
            len += delta;
            b[len] = 0; // sdsIncrLen's terminator, before the memcpy
            System.arraycopy(seq, 0, b, p, n);
            end += delta;
        }
        mergeVals(prev >= 0 ? prev : HEADER, end);
        invalidateCache();
        return 1;
    }

    /**
     * The registers 8 opcodes cover together, one per byte of w, or -1 if one of them is an XZERO
     * (two bytes). The walk to a register goes over hundreds of opcodes, a byte at a time in Redis.
     */
    static int oneByteRunsSpan(long w) {
        long xzero = (w & 0xC0 * ONES) ^ 0x40 * ONES; // a byte of it is 0 where an XZERO starts
        if (((xzero - ONES) & ~xzero & 0x80 * ONES) != 0) return -1;
        long val = ((w >>> 7) & ONES) * 0xFF; // 0xFF in the bytes of VAL opcodes
        long lengths = w & (0x3F * ONES & ~(val & 0x3C * ONES)); // run length - 1: 6 bits in ZERO, 2 in VAL
        long pairs = (lengths & 0x00FF00FF00FF00FFL) + ((lengths >>> 8) & 0x00FF00FF00FF00FFL);
        return (int) ((pairs * 0x0001000100010001L) >>> 48) + 8;
    }

    /** Redis's step 4 of hllSparseSet: merges adjacent equal VALs in the few opcodes from p on. */
    private void mergeVals(int p, int end) {
        int scan = 5;
        while (p < end && scan-- > 0) {
            int op = b[p] & 0xFF;
            if (isXzero(op)) {
                p += 2;
                continue;
            }
            if (isZero(op)) {
                p++;
                continue;
            }
            if (p + 1 < end && (b[p + 1] & 0x80) != 0) {
                int nextOp = b[p + 1] & 0xFF;
                int merged = valLen(op) + valLen(nextOp);
                if (valValue(op) == valValue(nextOp) && merged <= VAL_MAX_LEN) {
                    b[p + 1] = val(valValue(op), merged);
                    System.arraycopy(b, p + 1, b, p, end - p - 1);
                    len--;
                    b[len] = 0; // sdsIncrLen's terminator
                    end--;
                    continue;
                }
            }
            p++;
        }
    }

    private int promote(int index, int count) {
        if (!toDense()) return -1;
        return denseRaise(index, count);
    }

    /**
     * Redis's hllSparseToDense: false (and unchanged) if the sparse data does not describe exactly
     * 16384 registers. The header, cached cardinality included, is kept. Any run past the last
     * register is corruption, as in Debian's 7.0.15 (its CVE-2025-32023 fix; the 7.0.15 tag
     * accepted a walk that reached 16384 before a VAL run past it), which is what clients of the
     * packaged server see. {@link #mergeInto} checks the same way.
     */
    public boolean toDense() {
        if (b[4] == DENSE) return true;
        byte[] dense = new byte[DENSE_SIZE];
        System.arraycopy(b, 0, dense, 0, HEADER);
        dense[4] = DENSE;
        int p = HEADER;
        long idx = 0; // long: corrupt runs may add up past any int
        while (p < len) {
            int op = b[p] & 0xFF, runlen = runLength(p);
            if (runlen + idx > REGISTERS) return false;
            if (!isZero(op) && !isXzero(op)) {
                for (int i = 0; i < runlen; i++) denseSet(dense, HEADER, DENSE_SIZE, (int) (idx + i), valValue(op));
            }
            idx += runlen;
            p += isXzero(op) ? 2 : 1;
        }
        if (idx != REGISTERS) return false;
        b = dense;
        shared = false;
        len = DENSE_SIZE;
        return true;
    }

    // ---- counting and merging ----

    /** Redis's hllCount on this HLL; -1 if the sparse data is corrupt. */
    public long count() {
        int[] histogram = new int[64];
        if (b[4] == DENSE) {
            // Counting the many zero registers in a local, not one histogram slot store after store.
            int zeros = 0;
            for (int g = 0; g < GROUPS; g++) {
                int w = group(b, g);
                if (w == 0) {
                    zeros += 4;
                    continue;
                }
                histogram[w & REGISTER_MAX]++;
                histogram[(w >>> 6) & REGISTER_MAX]++;
                histogram[(w >>> 12) & REGISTER_MAX]++;
                histogram[w >>> 18]++;
            }
            histogram[0] += zeros;
        } else if (!sparseHistogram(histogram)) {
            return -1;
        }
        return estimate(histogram);
    }

    private boolean sparseHistogram(int[] histogram) {
        byte[] s = b;
        int p = HEADER;
        long idx = 0, zeros = 0; // zeros kept apart: histogram[0] += would chain a store and a load per opcode
        while (p < len) {
            int op = s[p] & 0xFF, runlen = ONE_BYTE_SPAN[op];
            if (runlen == 0) {
                runlen = runLength(p);
                zeros += runlen;
                p += 2;
            } else {
                if (op >= 0x80) histogram[valValue(op)] += runlen;
                else zeros += runlen;
                p++;
            }
            idx += runlen;
        }
        histogram[0] += (int) zeros;
        return idx == REGISTERS;
    }

    /** The cardinality of 16384 registers held one per byte (PFCOUNT of several keys). */
    static long countRaw(byte[] registers) {
        // Mostly zeros: counted as what the others leave, not one histogram slot store after store.
        int[] histogram = new int[64];
        int nonZero = 0;
        for (int i = 0; i < REGISTERS; i += 8) {
            if ((long) LE_LONGS.get(registers, i) == 0) continue;
            for (int k = i; k < i + 8; k++) {
                int r = registers[k];
                if (r != 0) {
                    histogram[r]++;
                    nonZero++;
                }
            }
        }
        histogram[0] = REGISTERS - nonZero;
        return estimate(histogram);
    }

    /** Ertl's estimator from the register histogram ("New cardinality estimation algorithms for HyperLogLog sketches"). */
    private static long estimate(int[] histogram) {
        double m = REGISTERS;
        double z = m * tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; --j) {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * sigma(histogram[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    private static double sigma(double x) {
        if (x == 1.) return Double.POSITIVE_INFINITY;
        double zPrime, y = 1, z = x;
        do {
            x *= x;
            zPrime = z;
            z += x * y;
            y += y;
        } while (zPrime != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0. || x == 1.) return 0.;
        double zPrime, y = 1.0, z = 1 - x;
        do {
            x = Math.sqrt(x);
            zPrime = z;
            y *= 0.5;
            z -= Math.pow(1 - x, 2) * y;
        } while (zPrime != z);
        return z / 3;
    }

    /** Raises max[i] to each register's value (Redis's hllMerge); false if the sparse data is corrupt. */
    public boolean mergeInto(byte[] max) {
        if (b[4] == DENSE) {
            for (int g = 0, j = 0; g < GROUPS; g++, j += 4) {
                int w = group(b, g);
                if (w == 0) continue;
                raise(max, j, w & REGISTER_MAX);
                raise(max, j + 1, (w >>> 6) & REGISTER_MAX);
                raise(max, j + 2, (w >>> 12) & REGISTER_MAX);
                raise(max, j + 3, w >>> 18);
            }
            return true;
        }
        int p = HEADER;
        long i = 0;
        while (p < len) {
            int op = b[p] & 0xFF, runlen = runLength(p);
            if (runlen + i > REGISTERS) return false;
            if (!isZero(op) && !isXzero(op)) {
                int value = valValue(op);
                for (int k = 0; k < runlen; k++) if (value > max[(int) i + k]) max[(int) i + k] = (byte) value;
            }
            i += runlen;
            p += isXzero(op) ? 2 : 1;
        }
        return i == REGISTERS;
    }

    /** PFDEBUG DECODE's text: the sparse opcodes as "z:len", "Z:len" and "v:value,len", space separated. */
    public String decodeSparse() {
        StringBuilder out = new StringBuilder();
        int p = HEADER;
        while (p < len) {
            int op = b[p] & 0xFF;
            if (out.length() > 0) out.append(' ');
            if (isZero(op)) out.append("z:").append(runLength(p));
            else if (isXzero(op)) out.append("Z:").append(runLength(p));
            else out.append("v:").append(valValue(op)).append(',').append(valLen(op));
            p += isXzero(op) ? 2 : 1;
        }
        return out.toString();
    }
}
