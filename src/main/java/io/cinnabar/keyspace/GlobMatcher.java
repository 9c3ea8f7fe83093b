package io.cinnabar.keyspace;

/**
 * Redis 7.0's glob matching (util.c stringmatchlen): {@code * ? [abc] [^a-z] \x}, optionally
 * case-insensitive (ASCII only), byte-wise. Bytes compare as C's signed {@code char} does on
 * x86, so a range such as {@code [a-\xff]} means what it means in Redis.
 */
public final class GlobMatcher {
    /**
     * Redis 7.0 recurses once per '*' without a bound; Java's stack is smaller, so beyond this
     * depth a pattern simply fails to match (Redis 7.2 chose the same limit).
     */
    private static final int MAX_NESTING = 1000;

    private GlobMatcher() {}

    public static boolean matches(byte[] pattern, byte[] string, boolean nocase) {
        return match(pattern, 0, string, 0, nocase, new boolean[1], 0);
    }

    /** True when the pattern is "*", which matches everything (a common fast path). */
    public static boolean matchesAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*';
    }

    /**
     * skipLongerMatches is Redis's fix for exponential patterns like "a*a*a*...b": once the rest
     * of the pattern failed from every position after a '*', no earlier '*' can do better.
     */
    private static boolean match(byte[] p, int pi, byte[] s, int si, boolean nocase, boolean[] skipLongerMatches,
                                 int nesting) {
        if (nesting > MAX_NESTING) return false;
        int plen = p.length, slen = s.length;
        while (pi < plen && si < slen) {
            switch (p[pi]) {
                case '*': {
                    while (pi + 1 < plen && p[pi + 1] == '*') pi++;
                    if (pi + 1 == plen) return true;
                    while (si < slen) {
                        if (match(p, pi + 1, s, si, nocase, skipLongerMatches, nesting + 1)) return true;
                        if (skipLongerMatches[0]) return false;
                        si++;
                    }
                    skipLongerMatches[0] = true;
                    return false;
                }
                case '?':
                    si++;
                    break;
                case '[': {
                    pi++;
                    boolean not = pi < plen && p[pi] == '^';
                    if (not) pi++;
                    boolean hit = false;
                    while (true) {
                        if (pi < plen && p[pi] == '\\' && plen - pi >= 2) {
                            pi++;
                            if (p[pi] == s[si]) hit = true;
                        } else if (pi < plen && p[pi] == ']') {
                            break;
                        } else if (pi >= plen) {
                            pi--; // unterminated class: the step below lands exactly on the end
                            break;
                        } else if (plen - pi >= 3 && p[pi + 1] == '-') {
                            int start = p[pi], end = p[pi + 2], c = s[si];
                            if (start > end) {
                                int t = start;
                                start = end;
                                end = t;
                            }
                            if (nocase) {
                                start = lower(start);
                                end = lower(end);
                                c = lower(c);
                            }
                            pi += 2;
                            if (c >= start && c <= end) hit = true;
                        } else if (nocase ? lower(p[pi]) == lower(s[si]) : p[pi] == s[si]) {
                            hit = true;
                        }
                        pi++;
                    }
                    if (not) hit = !hit;
                    if (!hit) return false;
                    si++;
                    break;
                }
                case '\\':
                    if (plen - pi >= 2) pi++;
                    // fall through: match the escaped character literally
                default:
                    if (nocase ? lower(p[pi]) != lower(s[si]) : p[pi] != s[si]) return false;
                    si++;
                    break;
            }
            pi++;
            if (si == slen) {
                while (pi < plen && p[pi] == '*') pi++;
                break;
            }
        }
        return pi == plen && si == slen;
    }

    /** glibc's tolower on a signed char: ASCII letters fold; negative bytes but -1 (EOF) come back unsigned. */
    private static int lower(int c) {
        if (c >= 'A' && c <= 'Z') return c + 32;
        return c < -1 ? c + 256 : c;
    }
}
