package io.cinnabar.command.server;

import io.cinnabar.keyspace.GlobMatcher;

import java.util.concurrent.ThreadLocalRandom;

/**
 * DEBUG STRINGMATCH-TEST: Redis's stringmatchlen_fuzz_test run against the glob matcher: ten
 * million random patterns and strings of up to 31 ASCII bytes; passing means nothing threw.
 */
final class StringMatchFuzz {
    private static final int CYCLES = 10_000_000;
    private static final int MAX_LENGTH = 32;

    private StringMatchFuzz() {
    }

    static void run() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long matches = 0;
        for (int i = 0; i < CYCLES; i++) {
            byte[] string = randomAscii(random, random.nextInt(MAX_LENGTH));
            byte[] pattern = randomAscii(random, random.nextInt(MAX_LENGTH));
            if (GlobMatcher.matches(pattern, string, false)) matches++;
        }
        // Redis prints the count with printf, on its standard output.
        System.out.println("Total matches: " + matches);
    }

    private static byte[] randomAscii(ThreadLocalRandom random, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) random.nextInt(128);
        return b;
    }
}
