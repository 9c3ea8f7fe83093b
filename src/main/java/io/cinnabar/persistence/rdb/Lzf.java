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
 * The compressor makes the choices liblzf 3.6 makes as Redis builds it (a 2^16-slot table
 * indexed by VERY_FAST's hash of the last three bytes, no match at the input's first byte or
 * within its last two, two positions hashed after each match), so DUMP payloads and RDB strings
 * come out byte for byte as Redis's do. Redis leaves its table uninitialised (INIT_HTAB 0); a
 * stale slot can only matter if it points into the input being compressed, so a clean table
 * decides the same. Tables are big, so each thread keeps one ({@link #forThisThread}).
 */
public final class Lzf {
    private static final int MAX_LITERAL = 32;
    private static final int MAX_OFFSET = 1 << 13;
    private static final int MAX_REFERENCE = (1 << 8) + (1 << 3);
    private static final int HASH_LOG = 16;
    /** The longest output one input byte can expand to (a 3-byte back reference of 264 bytes). */
    static final int MAX_EXPANSION = 88;
    private static final ThreadLocal<Lzf> PER_THREAD = ThreadLocal.withInitial(Lzf::new);

    /**
     * Input positions offset by a base that grows with every call, so entries of earlier calls
     * read as empty without clearing 256 KB per call.
     */
    private final int[] table = new int[1 << HASH_LOG];
    private int base = 0;

    /** This thread's compressor. */
    public static Lzf forThisThread() {
        return PER_THREAD.get();
    }

    /**
     * Compresses in[off, off+len) into at most maxOut bytes; null when it does not fit (Redis
     * passes len-4 so that compression must save at least four bytes, and stores the string
     * verbatim otherwise).
     */
    public byte[] compress(byte[] in, int off, int len, int maxOut) {
        if (len == 0 || maxOut <= 0) return null;
        if (base > Integer.MAX_VALUE - len - MAX_OFFSET - 2) {
            Arrays.fill(table, 0);
            base = 0;
        }
        // Entries of earlier calls all lie below start, so they read as misses.
        int start = base + MAX_OFFSET + 2;
        base = start + len;
        int shift = start - off;
        byte[] out = new byte[maxOut];
        int end = off + len;
        int ip = off;
        // op is where the next byte goes; a literal run's control byte is kept free before it.
        int lit = 0, op = 1;
        int hval = len >= 2 ? (in[ip] & 0xff) << 8 | (in[ip + 1] & 0xff) : 0;
        while (ip < end - 2) {
            hval = hval << 8 | (in[ip + 2] & 0xff);
            int slot = slot(hval);
            int ref = table[slot] - shift;
            boolean fresh = table[slot] >= start;
            table[slot] = ip + shift;
            int distance = ip - ref - 1;
            if (fresh && distance >= 0 && distance < MAX_OFFSET && ref > off
                    && in[ref + 2] == in[ip + 2] && in[ref] == in[ip] && in[ref + 1] == in[ip + 1]) {
                if (op - (lit == 0 ? 1 : 0) + 4 >= maxOut) return null;
                int matched = matchLength(in, ref, ip, end);
                op = closeRun(out, op, lit);
                int code = matched - 2;
                if (code < 7) {
                    out[op++] = (byte) ((distance >>> 8) + (code << 5));
                } else {
                    out[op++] = (byte) ((distance >>> 8) + (7 << 5));
                    out[op++] = (byte) (code - 7);
                }
                out[op++] = (byte) distance;
                lit = 0;
                op++;
                ip += matched;
                if (ip >= end - 2) break;
                // The two positions before the match's end go into the table, as VERY_FAST does.
                ip -= 2;
                hval = (in[ip] & 0xff) << 8 | (in[ip + 1] & 0xff);
                hval = hval << 8 | (in[ip + 2] & 0xff);
                table[slot(hval)] = ip + shift;
                ip++;
                hval = hval << 8 | (in[ip + 2] & 0xff);
                table[slot(hval)] = ip + shift;
                ip++;
            } else {
                if (op >= maxOut) return null;
                out[op++] = in[ip++];
                if (++lit == MAX_LITERAL) {
                    op = startRun(out, op, lit);
                    lit = 0;
                }
            }
        }
        // The last two bytes at most: liblzf checks their room once.
        if (op + 3 > maxOut) return null;
        while (ip < end) {
            out[op++] = in[ip++];
            if (++lit == MAX_LITERAL) {
                op = startRun(out, op, lit);
                lit = 0;
            }
        }
        op = closeRun(out, op, lit);
        return Arrays.copyOf(out, op);
    }

    /** Ends a full literal run of lit bytes before op and keeps a byte free for the next one's control byte. */
    private static int startRun(byte[] out, int op, int lit) {
        out[op - lit - 1] = (byte) (lit - 1);
        return op + 1;
    }

    /** Ends the literal run before op: its control byte, or the free byte given back when it is empty. */
    private static int closeRun(byte[] out, int op, int lit) {
        if (lit == 0) return op - 1;
        out[op - lit - 1] = (byte) (lit - 1);
        return op;
    }

    /** VERY_FAST's IDX: the hash of the bytes hval has shifted in, to a table slot. */
    private static int slot(int hval) {
        return ((hval >>> (3 * 8 - HASH_LOG)) - hval * 5) & ((1 << HASH_LOG) - 1);
    }

    /**
     * How many bytes at ref repeat those at ip, three known: liblzf compares up to 2 bytes short
     * of the input's end (and at most 264), except that a first stretch of 16 more bytes is
     * compared whole when more than 16 remain.
     */
    private static int matchLength(byte[] in, int ref, int ip, int end) {
        int max = Math.min(end - ip - 2, MAX_REFERENCE);
        int len = 2;
        if (max > 16) {
            for (int k = 0; k < 16; k++) {
                len++;
                if (in[ref + len] != in[ip + len]) return len;
            }
        }
        do {
            len++;
        } while (len < max && in[ref + len] == in[ip + len]);
        return len;
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
