package io.cinnabar.util;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class BinaryTextTest {
    @Test
    void anyBytesComeBackAsTheyWere() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[random.nextInt(12)];
            random.nextBytes(b);
            assertArrayEquals(b, BinaryText.encode(BinaryText.decode(b)));
        }
    }

    @Test
    void validUtf8DecodesAsUsual() {
        String text = "café ☃ \uD83D\uDE00 plain";
        assertEquals(text, BinaryText.decode(text.getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), BinaryText.encode(text));
    }

    @Test
    void malformedSequencesKeepEachOfTheirBytes() {
        // A lone continuation byte, an overlong '/', an encoded surrogate, a truncated sequence,
        // and a code point past U+10FFFF.
        byte[][] inputs = {
            {(byte) 0x80}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xB2, (byte) 0x80},
            {'a', (byte) 0xE2, (byte) 0x98}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        };
        for (byte[] b : inputs) {
            String s = BinaryText.decode(b);
            assertEquals(b.length, s.length(), "one char per byte");
            assertArrayEquals(b, BinaryText.encode(s));
        }
    }

    @Test
    void aByteOfItsOwn() {
        assertArrayEquals(new byte[] {'\'', (byte) 0xE9, '\''}, BinaryText.encode("'" + BinaryText.ofByte(0xE9) + "'"));
        assertArrayEquals(new byte[] {'\'', 'x', '\''}, BinaryText.encode("'" + BinaryText.ofByte('x') + "'"));
    }
}
