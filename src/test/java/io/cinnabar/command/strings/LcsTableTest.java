package io.cinnabar.command.strings;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The bit-parallel table against the cell-by-cell dynamic programming it replaces. */
class LcsTableTest {
    private static int[][] cellByCell(byte[] a, byte[] b) {
        int[][] t = new int[a.length + 1][b.length + 1];
        for (int i = 1; i <= a.length; i++) {
            for (int j = 1; j <= b.length; j++) {
                t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
            }
        }
        return t;
    }

    private static byte[] random(Random random, int length, int alphabet) {
        byte[] s = new byte[length];
        for (int i = 0; i < length; i++) s[i] = (byte) (random.nextInt(alphabet) * 37 - 128);
        return s;
    }

    @Test
    void everyCellAgreesAcrossWordBoundaries() {
        Random random = new Random(9);
        for (int round = 0; round < 400; round++) {
            int alphabet = new int[] {1, 2, 4, 26, 256}[round % 5];
            byte[] a = random(random, random.nextInt(round < 200 ? 70 : 300), alphabet);
            byte[] b = random(random, random.nextInt(round < 200 ? 70 : 300), alphabet);
            int[][] expected = cellByCell(a, b);
            LcsTable table = LcsTable.of(a, b);
            for (int i = 0; i <= a.length; i++) {
                for (int j = 0; j <= b.length; j++) assertEquals(expected[i][j], table.at(i, j), i + "," + j);
            }
            assertEquals(expected[a.length][b.length], table.length());
            assertEquals(expected[a.length][b.length], LcsTable.length(a, b));
        }
    }
}
