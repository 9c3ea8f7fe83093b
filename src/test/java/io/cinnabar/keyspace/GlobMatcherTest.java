package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cases follow Redis 7.0's util.c stringmatchlen; the byte-level ones were checked against it
 * (signed chars, glibc tolower, unterminated classes).
 */
class GlobMatcherTest {
    private static boolean m(String pattern, String s) {
        return GlobMatcher.matches(pattern.getBytes(StandardCharsets.ISO_8859_1), s.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    private static boolean mi(String pattern, String s) {
        return GlobMatcher.matches(pattern.getBytes(StandardCharsets.ISO_8859_1), s.getBytes(StandardCharsets.ISO_8859_1), true);
    }

    private static final byte[] STAR = {'*'};

    /** Up to maxLength bytes, each 'a' or 'b' or, one time in oneIn (never if 0), one of others. */
    private static byte[] randomBytes(Random random, int maxLength, byte[] others, int oneIn) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = oneIn > 0 && random.nextInt(oneIn) == 0 ? others[random.nextInt(others.length)] : (byte) ('a' + random.nextInt(2));
        }
        return b;
    }

    /** The prepared form (pieces of plain bytes and '?' between stars compared directly) answers as the matcher does. */
    @Test
    void compiledPatternsAgreeWithTheMatcher() {
        Random random = new Random(12);
        byte[] alphabet = "ab*?[]^-\\".getBytes(StandardCharsets.ISO_8859_1);
        byte[][] kinds = {STAR, alphabet, "*?".getBytes(StandardCharsets.ISO_8859_1)};
        for (int round = 0; round < 300_000; round++) {
            byte[] pattern = randomBytes(random, 7, kinds[round % 3], 3);
            if (round % 3 == 0 && pattern.length > 0) pattern[pattern.length - 1] = '*';
            byte[] s = randomBytes(random, 8, alphabet, 0);
            boolean nocase = round % 7 == 0;
            boolean expected = GlobMatcher.matches(pattern, s, nocase);
            String text = new String(pattern, StandardCharsets.ISO_8859_1) + " ~ " + new String(s, StandardCharsets.ISO_8859_1);
            assertEquals(expected, GlobMatcher.compile(pattern, nocase).matches(s), text);
            // A key packed with its value: only its first bytes are the key.
            byte[] packed = Arrays.copyOf(s, s.length + 1 + random.nextInt(4));
            for (int i = s.length; i < packed.length; i++) packed[i] = alphabet[random.nextInt(alphabet.length)];
            assertEquals(expected, GlobMatcher.compile(pattern, nocase).matches(packed, s.length), text + " (packed)");
        }
    }

    /** The matcher against Redis's recursive algorithm, on random patterns of every token kind and strings of their bytes. */
    @Test
    void agreesWithTheRecursiveAlgorithm() {
        Random random = new Random(21);
        byte[] tokens = "ab*?[]^-\\\u00ffB".getBytes(StandardCharsets.ISO_8859_1);
        for (int round = 0; round < 1_000_000; round++) {
            byte[] pattern = randomBytes(random, 8, tokens, 2);
            byte[] s = randomBytes(random, 8, tokens, 8);
            boolean nocase = random.nextInt(4) == 0;
            assertEquals(RecursiveStringMatch.matches(pattern, s, nocase), GlobMatcher.matches(pattern, s, nocase),
                    new String(pattern, StandardCharsets.ISO_8859_1) + " ~ " + new String(s, StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void starsAndQuestionMarks() {
        assertFalse(m("*", ""), "stringmatchlen never enters its loop for an empty string");
        assertTrue(m("*", "anything"));
        assertTrue(m("foo*", "foo"));
        assertTrue(m("foo*", "foobar"));
        assertFalse(m("foo*", "fo"));
        assertTrue(m("*bar", "foobar"));
        assertTrue(m("f*o*r", "foobar"));
        assertTrue(m("f**r", "foobar"));
        assertTrue(m("h?llo", "hello"));
        assertFalse(m("h?llo", "hllo"));
        assertFalse(m("?", ""));
        assertTrue(m("", ""));
        assertFalse(m("", "a"));
        assertTrue(m("a*", "a"));
        assertFalse(m("a*?", "a"));
    }

    @Test
    void characterClasses() {
        assertTrue(m("h[ae]llo", "hallo"));
        assertFalse(m("h[ae]llo", "hillo"));
        assertTrue(m("h[^e]llo", "hallo"));
        assertFalse(m("h[^e]llo", "hello"));
        assertTrue(m("h[a-b]llo", "hbllo"));
        assertTrue(m("h[b-a]llo", "hallo"), "reversed ranges are swapped");
        assertFalse(m("h[a-b]llo", "hcllo"));
        assertTrue(m("[\\]]", "]"));
        assertTrue(m("[a-]", "-") == false && m("[a-]", "a"), "a trailing '-' is not a range");
        assertFalse(m("[]", "a"));
        assertTrue(m("[^]", "a"));
    }

    @Test
    void unterminatedClassEndsAtThePatternEnd() {
        assertTrue(m("[abc", "a"));
        assertTrue(m("[^", "a"));
        assertFalse(m("[abc", "ab"));
    }

    @Test
    void escapes() {
        assertTrue(m("h\\*llo", "h*llo"));
        assertFalse(m("h\\*llo", "hello"));
        assertTrue(m("\\?", "?"));
        assertTrue(m("a\\", "a\\"), "a trailing backslash matches itself");
    }

    @Test
    void caseInsensitiveAsciiOnly() {
        assertTrue(mi("HELLO*", "hello world"));
        assertTrue(mi("[A-C]x", "bX"));
        assertFalse(m("HELLO", "hello"));
        assertFalse(mi("\u00c9", "\u00e9"), "no folding beyond ASCII");
    }

    @Test
    void bytesCompareAsSignedChars() {
        // [a-\xff]: in C, \xff is -1, so the range is -1..'a' and excludes \x80..\xfe
        assertTrue(m("[a-\u00ff]", "\u00ff"));
        assertTrue(m("[a-\u00ff]", "0"));
        assertFalse(m("[a-\u00ff]", "b"));
        assertFalse(m("[a-\u00ff]", "\u00e9"));
        // glibc tolower(-128..-2) yields 128..254, while tolower(-1) stays -1 (EOF)
        assertFalse(mi("[[-\u0080]", "*"));
        assertTrue(m("[[-\u0080]", "*"));
    }

    @Test
    void pathologicalPatternsAnswerQuickly() {
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(2), () -> {
            assertFalse(m("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(40)));
            String p = "a*".repeat(500) + "b";
            assertFalse(m(p, "a".repeat(1000)));
            assertEquals(true, m("*a*a*a*", "a".repeat(10000) + "a"));
        });
    }

    /** Redis 7.0's stringmatchlen as it is written (recursing at each '*', skipLongerMatches): the oracle. */
    private static final class RecursiveStringMatch {
        private static final int MATCH = 1, NO_MATCH = 0, NO_LONGER_MATCH = -1;

        static boolean matches(byte[] p, byte[] s, boolean nocase) {
            return match(p, 0, s, 0, nocase) == MATCH;
        }

        private static int match(byte[] p, int pi, byte[] s, int si, boolean nocase) {
            int plen = p.length, slen = s.length;
            while (pi < plen && si < slen) {
                switch (p[pi]) {
                    case '*': {
                        while (pi + 1 < plen && p[pi + 1] == '*') pi++;
                        if (pi + 1 == plen) return MATCH;
                        while (si < slen) {
                            int rest = match(p, pi + 1, s, si, nocase);
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
}
