package io.cinnabar.config;

import java.util.OptionalLong;

/**
 * C's strtoll as Redis checks it for config values: leading spaces and a sign, then digits of the
 * radix to the very end. No digits at all leave the end pointer at the start, so only "" reads
 * (as 0). Empty when something is left over or the value overflows.
 */
final class Strtoll {
    private Strtoll() {}

    static OptionalLong parse(String s, int radix) {
        int i = 0, n = s.length();
        while (i < n && " \t\n\u000b\f\r".indexOf(s.charAt(i)) >= 0) i++;
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
        int digitsFrom = i;
        long v = 0;
        for (int d; i < n && (d = Character.digit(s.charAt(i), radix)) >= 0 && s.charAt(i) < 128; i++) {
            if (v > (Long.MAX_VALUE - d) / radix) return OptionalLong.empty();
            v = v * radix + d;
        }
        boolean endsAfterNumber = i > digitsFrom ? i == n : n == 0;
        return endsAfterNumber ? OptionalLong.of(negative ? -v : v) : OptionalLong.empty();
    }
}
