package io.cinnabar.util;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ArgSplitterTest {
    /** Every kind of byte the two splitters treat differently, quotes aside. */
    private static final byte[] PLAIN_ALPHABET = {'a', 'B', '7', ' ', '\t', '\r', '\n', 0x0b, '\f', '\\', 'x', 0, (byte) 0xe9};

    @Test
    void aLineWithoutQuotesSplitsAsSdssplitargsSplitsIt() {
        Random random = new Random(11);
        for (int round = 0; round < 20_000; round++) {
            byte[] line = new byte[random.nextInt(24)];
            for (int i = 0; i < line.length; i++) line[i] = PLAIN_ALPHABET[random.nextInt(PLAIN_ALPHABET.length)];
            int n = 0;
            while (n < line.length && line[n] != 0) n++;
            byte[][] expected = ArgSplitter.splitQuoted(line, n);
            byte[][] actual = ArgSplitter.split(line);
            assertEquals(expected.length, actual.length, Arrays.toString(line));
            for (int i = 0; i < expected.length; i++) assertArrayEquals(expected[i], actual[i], Arrays.toString(line));
        }
    }

    @Test
    void blanksSeparateWordsAndOtherSpacesOnlyLeadThem() {
        assertArrayEquals(new String[] {"set", "k\u000bv", "x"}, words("  set\tk\u000bv \u000b\fx\r"));
        assertArrayEquals(new String[] {}, words(" \t "));
        assertArrayEquals(new String[] {"ping"}, words("ping\0 ignored"));
    }

    @Test
    void quotesStillTakeTheirEscapes() {
        assertArrayEquals(new String[] {"set", "a b\n", "it's", "A"}, words("set \"a b\\n\" 'it\\'s' \"\\x41\""));
        assertNull(ArgSplitter.split("get \"open".getBytes(StandardCharsets.ISO_8859_1)));
        assertNull(ArgSplitter.split("get 'a'b".getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static String[] words(String line) {
        byte[][] split = ArgSplitter.split(line.getBytes(StandardCharsets.ISO_8859_1));
        return Arrays.stream(split).map(w -> new String(w, StandardCharsets.ISO_8859_1)).toArray(String[]::new);
    }
}
