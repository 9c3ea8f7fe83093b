package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LzfTest {
    private final Lzf lzf = new Lzf();

    private byte[] roundTrip(byte[] in) {
        byte[] c = lzf.compress(in, 0, in.length, in.length + in.length / 16 + 64);
        assertNotNull(c);
        byte[] back = Lzf.decompress(c, 0, c.length, in.length);
        assertArrayEquals(in, back);
        return c;
    }

    @Test
    void repetitiveInputShrinks() {
        byte[] in = new byte[10000];
        Arrays.fill(in, (byte) 'a');
        byte[] c = roundTrip(in);
        assertTrue(c.length < 150, "compressed to " + c.length);
    }

    @Test
    void randomAndMixedInputsRoundTrip() {
        Random rnd = new Random(11);
        for (int i = 0; i < 300; i++) {
            byte[] in = new byte[1 + rnd.nextInt(i < 250 ? 300 : 70000)];
            int alphabet = 1 + rnd.nextInt(i % 3 == 0 ? 256 : 4);
            for (int k = 0; k < in.length; k++) in[k] = (byte) rnd.nextInt(alphabet);
            roundTrip(in);
        }
    }

    @Test
    void reusedCompressorForgetsEarlierInputs() {
        byte[] first = "abcabcabcabcabcabcabcabcabcabc".getBytes();
        byte[] second = "xyzxyzxyzxyzxyzxyzxyzxyzxyzxyz".getBytes();
        for (int i = 0; i < 50; i++) {
            roundTrip(first);
            roundTrip(second);
        }
    }

    @Test
    void refusesWhenOutputLimitIsTooSmall() {
        byte[] in = new byte[100];
        new Random(1).nextBytes(in);
        assertNull(lzf.compress(in, 0, in.length, in.length - 4));
    }

    @Test
    void readsLiblzfOutput() {
        // Redis 7.0.15 SET k <"abcdefghij" x 10>, DUMP: the LZF part of the payload.
        byte[] c = HexFormat.of().parseHex("0a6162636465666768696a61e04e0901696a");
        byte[] expected = "abcdefghij".repeat(10).getBytes();
        assertArrayEquals(expected, Lzf.decompress(c, 0, c.length, expected.length));
    }

    @Test
    void compressesAsLiblzfDoes() {
        // Redis 7.0.15: SET k <value>, DUMP k, the LZF part of the payload (Redis compresses
        // with at most len - 4 bytes of output).
        String[][] cases = {
            {"a".repeat(100), "016161e05700016161"},
            {"abcdefghij".repeat(10), "0a6162636465666768696a61e04e0901696a"},
            {"hello world, hello redis, hello cinnabar!",
                "0d68656c6c6f20776f726c642c2068600c047265646973c00c0863696e6e6162617221"},
        };
        for (String[] c : cases) {
            byte[] in = c[0].getBytes();
            byte[] out = Lzf.forThisThread().compress(in, 0, in.length, in.length - 4);
            assertArrayEquals(HexFormat.of().parseHex(c[1]), out, c[0]);
        }
    }

    @Test
    void malformedInputIsRefused() {
        assertNull(Lzf.decompress(new byte[] {0x05, 'a'}, 0, 2, 6), "literal runs past the input");
        assertNull(Lzf.decompress(new byte[] {0x00, 'a', 0x20, 0x05}, 0, 4, 4), "reference before the start");
        assertNull(Lzf.decompress(new byte[] {0x00, 'a', (byte) 0xe0}, 0, 3, 12), "truncated long reference");
        assertNull(Lzf.decompress(new byte[] {0x00, 'a'}, 0, 2, 2), "shorter than announced");
        assertNull(Lzf.decompress(new byte[] {0x01, 'a', 'b'}, 0, 3, 1), "longer than announced");
        assertNull(Lzf.decompress(new byte[] {0x00, 'a'}, 0, 2, 1_000_000), "impossible expansion");
    }
}
