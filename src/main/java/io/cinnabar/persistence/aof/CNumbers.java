package io.cinnabar.persistence.aof;

/**
 * C's strtol/atoll as Redis's AOF and manifest readers use them: leading blanks, an optional
 * sign, then digits up to the first other byte (a NUL included); no digits gives 0, overflow
 * saturates as glibc does. Lenient on purpose: a file Redis accepts must load here too.
 */
final class CNumbers {
    private CNumbers() {}

    static long strtol(byte[] s, int from, int to) {
        int i = from;
        while (i < to && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
        boolean negative = false;
        if (i < to && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
        long v = 0;
        for (; i < to && s[i] >= '0' && s[i] <= '9'; i++) {
            int d = s[i] - '0';
            if (v > (Long.MAX_VALUE - d) / 10) return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }
}
