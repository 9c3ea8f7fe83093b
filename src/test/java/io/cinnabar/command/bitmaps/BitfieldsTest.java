package io.cinnabar.command.bitmaps;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** BITFIELD's arithmetic; expected values are Redis 7.0.15's replies to the same BITFIELD calls. */
class BitfieldsTest {
    @Test
    void fieldsAreMostSignificantBitFirstAtAnyOffset() {
        byte[] p = new byte[3];
        Bitfields.set(p, 5, 8, 0xAB);
        assertEquals(0x05, p[0] & 0xFF);
        assertEquals(0x58, p[1] & 0xFF);
        assertEquals(0xAB, Bitfields.getUnsigned(p, 5, 8));
        assertEquals(-85, Bitfields.getSigned(p, 5, 8));
        assertEquals(0, Bitfields.getUnsigned(p, 20, 10), "past the end reads zeros");
        Bitfields.set(p, 0, 24, -1);
        assertEquals(-1, Bitfields.getSigned(p, 0, 24));
        assertEquals(0xFFFFFF, Bitfields.getUnsigned(p, 0, 24));
    }

    @Test
    void unsignedOverflow() {
        assertEquals(new Bitfields.Result(1, 4), Bitfields.addUnsigned(250, 10, 8, Bitfields.WRAP));
        assertEquals(new Bitfields.Result(1, 255), Bitfields.addUnsigned(250, 10, 8, Bitfields.SAT));
        assertEquals(new Bitfields.Result(-1, 0), Bitfields.addUnsigned(5, -10, 8, Bitfields.SAT));
        assertEquals(new Bitfields.Result(-1, 251), Bitfields.addUnsigned(5, -10, 8, Bitfields.WRAP));
        assertEquals(new Bitfields.Result(0, 15), Bitfields.addUnsigned(5, 10, 8, Bitfields.FAIL));
        // SET u8 with -1 is checked as an unsigned 2^64-1: it saturates to the maximum.
        assertEquals(new Bitfields.Result(1, 255), Bitfields.addUnsigned(-1, 0, 8, Bitfields.SAT));
        assertEquals(new Bitfields.Result(1, Long.MAX_VALUE), Bitfields.addUnsigned(Long.MAX_VALUE - 1, 5, 63, Bitfields.SAT));
    }

    @Test
    void signedOverflow() {
        assertEquals(new Bitfields.Result(1, -128), Bitfields.addSigned(127, 1, 8, Bitfields.WRAP));
        assertEquals(new Bitfields.Result(1, 127), Bitfields.addSigned(127, 1, 8, Bitfields.SAT));
        assertEquals(new Bitfields.Result(-1, -128), Bitfields.addSigned(-100, -100, 8, Bitfields.SAT));
        assertEquals(new Bitfields.Result(-1, 56), Bitfields.addSigned(-100, -100, 8, Bitfields.WRAP));
        assertEquals(new Bitfields.Result(1, Long.MIN_VALUE), Bitfields.addSigned(Long.MAX_VALUE, 1, 64, Bitfields.WRAP));
        assertEquals(new Bitfields.Result(-1, Long.MIN_VALUE), Bitfields.addSigned(Long.MIN_VALUE, -1, 64, Bitfields.SAT));
        assertEquals(new Bitfields.Result(0, -1), Bitfields.addSigned(0, -1, 1, Bitfields.FAIL));
        assertEquals(new Bitfields.Result(1, -1), Bitfields.addSigned(0, 1, 1, Bitfields.WRAP));
    }
}
