package io.cinnabar.command.bitmaps;

/**
 * BITFIELD's integer arithmetic (bitops.c): integers of 1..64 bits at any bit offset, most
 * significant bit first as SETBIT numbers them, and the overflow rules WRAP, SAT and FAIL. Unsigned
 * values are held in a long as unsigned 64-bit (at most 63 bits are used: u64 is refused).
 */
final class Bitfields {
    static final int WRAP = 0, SAT = 1, FAIL = 2;

    private Bitfields() {}

    /** The bits-wide unsigned integer at bit offset of p; bytes past p's end read as zero. */
    static long getUnsigned(byte[] p, long offset, int bits) {
        long value = 0;
        for (int j = 0; j < bits; j++, offset++) {
            long index = offset >>> 3;
            int bit = index < p.length ? (p[(int) index] >> (7 - (int) (offset & 7))) & 1 : 0;
            value = (value << 1) | bit;
        }
        return value;
    }

    /** As {@link #getUnsigned}, sign-extended from the field's top bit. */
    static long getSigned(byte[] p, long offset, int bits) {
        long value = getUnsigned(p, offset, bits);
        if (bits < 64 && (value & (1L << (bits - 1))) != 0) value |= -1L << bits;
        return value;
    }

    /** Writes the low bits of value at bit offset (p holds them); two's complement for signed values. */
    static void set(byte[] p, long offset, int bits, long value) {
        for (int j = 0; j < bits; j++, offset++) {
            int bitval = (int) (value >>> (bits - 1 - j)) & 1;
            int index = (int) (offset >>> 3), bit = 7 - (int) (offset & 7);
            p[index] = (byte) ((p[index] & ~(1 << bit)) | (bitval << bit));
        }
    }

    /** Outcome of adding incr to a field value: whether it overflowed (1), underflowed (-1) or not (0), and the value to store. */
    record Result(int overflow, long value) {}

    /** Redis's checkUnsignedBitfieldOverflow, applied: value (unsigned) + incr in a bits-wide unsigned field. */
    static Result addUnsigned(long value, long incr, int bits, int overflowType) {
        long max = bits == 64 ? -1L : (1L << bits) - 1;
        long maxIncr = max - value, minIncr = -value;
        int overflow = 0;
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) overflow = 1;
        else if (incr < 0 && incr < minIncr) overflow = -1;
        if (overflow == 0) return new Result(0, value + incr);
        if (overflowType == SAT) return new Result(overflow, overflow > 0 ? max : 0);
        return new Result(overflow, (value + incr) & ~(-1L << bits));
    }

    /** Redis's checkSignedBitfieldOverflow, applied: value + incr in a bits-wide signed field. */
    static Result addSigned(long value, long incr, int bits, int overflowType) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxIncr = max - value, minIncr = min - value;
        int overflow = 0;
        if (value > max || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr)) overflow = 1;
        else if (value < min || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr)) overflow = -1;
        if (overflow == 0) return new Result(0, value + incr);
        if (overflowType == SAT) return new Result(overflow, overflow > 0 ? max : min);
        long c = value + incr;
        if (bits < 64) {
            long mask = -1L << bits;
            c = (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
        }
        return new Result(overflow, c);
    }
}
