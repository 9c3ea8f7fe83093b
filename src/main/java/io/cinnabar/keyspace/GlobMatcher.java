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

    /** {@link #match}'s answers: no match, but an earlier '*' may still find one; and no match at all. */
    private static final int MATCH = 1, NO_MATCH = 0, NO_LONGER_MATCH = -1;

    public static boolean matches(byte[] pattern, byte[] string, boolean nocase) {
        return match(pattern, 0, string, 0, nocase, 0) == MATCH;
    }

    /**
     * The pattern prepared for many strings (KEYS, SCAN's MATCH): one made of plain bytes, with
     * or without '*' at its end, compares bytes directly, as the general matcher would conclude.
     */
    public static Compiled compile(byte[] pattern, boolean nocase) {
        int literal = 0;
        while (literal < pattern.length && !isSpecial(pattern[literal])) literal++;
        int end = literal;
        while (end < pattern.length && pattern[end] == '*') end++;
        boolean simple = !nocase && end == pattern.length;
        return new Compiled(pattern, nocase, simple ? literal : -1, literal < pattern.length);
    }

    private static boolean isSpecial(byte b) {
        return b == '*' || b == '?' || b == '[' || b == '\\';
    }

    /** A pattern from {@link #compile}. */
    public static final class Compiled {
        private final byte[] pattern;
        private final boolean nocase, prefixOnly;
        /** Length of the plain bytes that make the whole pattern (with trailing stars if prefixOnly); -1: not so simple. */
        private final int literal;

        private Compiled(byte[] pattern, boolean nocase, int literal, boolean prefixOnly) {
            this.pattern = pattern;
            this.nocase = nocase;
            this.literal = literal;
            this.prefixOnly = prefixOnly;
        }

        public boolean matches(byte[] s) {
            if (literal < 0) return match(pattern, 0, s, 0, nocase, 0) == MATCH;
            if (s.length == 0) return pattern.length == 0; // as stringmatchlen: not even "*" matches ""
            if (prefixOnly ? s.length < literal : s.length != literal) return false;
            // Mostly short: a plain loop, Arrays.equals's range checks and vector setup cost more here.
            for (int i = 0; i < literal; i++) {
                if (pattern[i] != s[i]) return false;
            }
            return true;
        }
    }

    /** True when the pattern is "*", which matches everything (a common fast path). */
    public static boolean matchesAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*';
    }

    /**
     * NO_LONGER_MATCH is Redis's skipLongerMatches, its fix for exponential patterns like
     * "a*a*a*...b": once the rest of the pattern failed from every position after a '*', no
     * earlier '*' can do better.
     */
    private static int match(byte[] p, int pi, byte[] s, int si, boolean nocase, int nesting) {
        if (nesting > MAX_NESTING) return NO_MATCH;
        int plen = p.length, slen = s.length;
        while (pi < plen && si < slen) {
            switch (p[pi]) {
                case '*': {
                    while (pi + 1 < plen && p[pi + 1] == '*') pi++;
                    if (pi + 1 == plen) return MATCH;
                    while (si < slen) {
                        int rest = match(p, pi + 1, s, si, nocase, nesting + 1);
                        if (rest != NO_MATCH) return rest;
                        si++;
                    }
                    return NO_LONGER_MATCH;
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
                    if (!hit) return NO_MATCH;
                    si++;
                    break;
                }
                case '\\':
                    if (plen - pi >= 2) pi++;
                    // fall through: match the escaped character literally
                default:
                    if (nocase ? lower(p[pi]) != lower(s[si]) : p[pi] != s[si]) return NO_MATCH;
                    si++;
                    break;
            }
            pi++;
            if (si == slen) {
                while (pi < plen && p[pi] == '*') pi++;
                break;
            }
        }
        return pi == plen && si == slen ? MATCH : NO_MATCH;
    }

    /** glibc's tolower on a signed char: ASCII letters fold; negative bytes but -1 (EOF) come back unsigned. */
    private static int lower(int c) {
        if (c >= 'A' && c <= 'Z') return c + 32;
        return c < -1 ? c + 256 : c;
    }
}
