package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
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

    /** The prepared form (plain bytes and prefixes compared directly) answers as the matcher does. */
    @Test
    void compiledPatternsAgreeWithTheMatcher() {
        Random random = new Random(12);
        byte[] alphabet = "ab*?[]^-\\".getBytes(StandardCharsets.ISO_8859_1);
        for (int round = 0; round < 200_000; round++) {
            byte[] pattern = new byte[random.nextInt(6)];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = random.nextInt(3) == 0 ? alphabet[random.nextInt(alphabet.length)] : (byte) ('a' + random.nextInt(2));
            }
            if (round % 3 == 0 && pattern.length > 0) pattern[pattern.length - 1] = '*';
            byte[] s = new byte[random.nextInt(6)];
            for (int i = 0; i < s.length; i++) s[i] = (byte) ('a' + random.nextInt(2));
            boolean nocase = round % 7 == 0;
            assertEquals(GlobMatcher.matches(pattern, s, nocase), GlobMatcher.compile(pattern, nocase).matches(s),
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
}
