package io.cinnabar.persistence.rdb;

import java.util.Arrays;

/**
 * The LZF format Redis uses for compressed RDB strings and quicklist nodes. A compressed stream
 * is a sequence of instructions, each starting with a control byte:
 * <ul>
 * <li>{@code 000LLLLL}: copy the next L+1 (1..32) bytes literally;</li>
 * <li>{@code LLLooooo oooooooo}: copy L+2 (3..8) bytes from o+1 (1..8192) bytes back in the output;</li>
 * <li>{@code 111ooooo LLLLLLLL oooooooo}: the same with length L+9 (9..264).</li>
 * </ul>
 * The compressor here is a plain greedy one with a hash of three bytes; its output differs from
 * liblzf's byte for byte but any LZF decoder (Redis's included) reads it. A compressor instance
 * keeps its hash table between calls (one writer compresses many short strings), so it belongs
 * to one thread at a time.
 */
public final class Lzf {
    private static final int MAX_LITERAL = 32;
    private static final int MAX_OFFSET = 1 << 13;
    private static final int MIN_MATCH = 3;
    private static final int MAX_MATCH = 264;
    private static final int HASH_BITS = 14;
    /** The longest output one input byte can expand to (a 3-byte back reference of 264 bytes). */
    static final int MAX_EXPANSION = 88;

    /**
     * Input positions offset by a base that grows with every call, so entries of earlier calls
     * read as empty without clearing 64 KB per call.
     */
    private final int[] table = new int[1 << HASH_BITS];
    private int base = 0;

    /**
     * Compresses in[off, off+len) into at most maxOut bytes; null when it does not fit (Redis
     * passes len-4 so that compression must save at least four bytes, and stores the string
     * verbatim otherwise).
     */
    public byte[] compress(byte[] in, int off, int len, int maxOut) {
        if (len == 0 || maxOut <= 0) return null;
        if (base > Integer.MAX_VALUE - len - MAX_OFFSET - 1) {
            Arrays.fill(table, 0);
            base = 0;
        }
        // Entries of earlier calls all lie below start, so they read as misses.
        int start = base + MAX_OFFSET + 1;
        base = start + len;
        int shift = start - off;
        byte[] out = new byte[maxOut];
        int end = off + len;
        int ip = off, literalStart = off, op = 0;
        while (ip + MIN_MATCH <= end) {
            int h = hash(in, ip);
            int stored = table[h];
            table[h] = ip + shift;
            int ref = stored - shift;
            int distance = ip - ref - 1;
            if (stored < start || distance >= MAX_OFFSET || !sameThree(in, ref, ip)) {
                ip++;
                continue;
            }
            int limit = Math.min(MAX_MATCH, end - ip);
            int m = MIN_MATCH;
            while (m < limit && in[ref + m] == in[ip + m]) m++;
            op = literals(in, literalStart, ip, out, op);
            int reference = m - 2;
            if (op < 0 || op + (reference < 7 ? 2 : 3) > maxOut) return null;
            if (reference < 7) {
                out[op++] = (byte) ((reference << 5) | (distance >>> 8));
            } else {
                out[op++] = (byte) ((7 << 5) | (distance >>> 8));
                out[op++] = (byte) (reference - 7);
            }
            out[op++] = (byte) distance;
            // Index the positions the match covered so later repeats can refer into it.
            for (int p = ip + 1; p < ip + m && p + MIN_MATCH <= end; p++) table[hash(in, p)] = p + shift;
            ip += m;
            literalStart = ip;
        }
        op = literals(in, literalStart, end, out, op);
        return op < 0 ? null : Arrays.copyOf(out, op);
    }

    /** Writes in[from, to) as literal runs at op; the new op, or -1 when out is too small. */
    private static int literals(byte[] in, int from, int to, byte[] out, int op) {
        if (op < 0) return -1;
        while (from < to) {
            int run = Math.min(MAX_LITERAL, to - from);
            if (op + 1 + run > out.length) return -1;
            out[op++] = (byte) (run - 1);
            System.arraycopy(in, from, out, op, run);
            op += run;
            from += run;
        }
        return op;
    }

    private static int hash(byte[] b, int i) {
        int v = (b[i] & 0xff) << 16 | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff);
        return (v * 0x9E3779B1) >>> (32 - HASH_BITS);
    }

    private static boolean sameThree(byte[] b, int x, int y) {
        return b[x] == b[y] && b[x + 1] == b[y + 1] && b[x + 2] == b[y + 2];
    }

    /**
     * Decompresses in[off, off+len), which must expand to exactly outLen bytes; null when the data
     * is malformed (a reference before the start, a truncated instruction) or its size differs.
     */
    public static byte[] decompress(byte[] in, int off, int len, int outLen) {
        if (outLen < 0 || (long) outLen > (long) len * MAX_EXPANSION) return null;
        byte[] out = new byte[outLen];
        int ip = off, end = off + len, op = 0;
        while (ip < end) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < 32) {
                int run = ctrl + 1;
                if (op + run > outLen || ip + run > end) return null;
                System.arraycopy(in, ip, out, op, run);
                ip += run;
                op += run;
                continue;
            }
            int n = ctrl >>> 5;
            if (n == 7) {
                if (ip >= end) return null;
                n += in[ip++] & 0xff;
            }
            if (ip >= end) return null;
            int ref = op - ((ctrl & 0x1f) << 8) - 1 - (in[ip++] & 0xff);
            n += 2;
            if (ref < 0 || op + n > outLen) return null;
            // Byte by byte: the source may overlap the bytes being written (runs).
            for (int i = 0; i < n; i++) out[op++] = out[ref++];
        }
        return op == outLen ? out : null;
    }
}
