package io.cinnabar.bench;

import io.cinnabar.keyspace.HashValue;

import java.nio.charset.StandardCharsets;

/**
 * Rough heap cost of small hashes: builds N 10-field hashes (fields f0..f9, values v0..v9, as
 * scripts/memory-check.sh loads them) and prints bytes per hash from the used heap after GC.
 * Run: java -cp target/classes:target/test-classes io.cinnabar.bench.HashMemory [N]
 */
public final class HashMemory {
    private HashMemory() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        byte[][] pairs = new byte[20][];
        for (int f = 0; f < 10; f++) {
            pairs[2 * f] = ("f" + f).getBytes(StandardCharsets.US_ASCII);
            pairs[2 * f + 1] = ("v" + f).getBytes(StandardCharsets.US_ASCII);
        }
        HashValue[] hashes = new HashValue[n];
        long before = used();
        for (int i = 0; i < n; i++) {
            HashValue h = new HashValue();
            h.setAll(pairs, 0, 128, 64);
            hashes[i] = h;
        }
        long after = used();
        System.out.printf("%d hashes of 10 fields (%s): %.1f bytes each (values only, plus %d for the array slot)%n",
                n, hashes[0].encoding(), (after - before - 16.0 - 4L * n) / n, 4);
        if (hashes[n - 1].size() != 10) throw new AssertionError();
    }

    private static long used() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 5; i++) System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }
}
