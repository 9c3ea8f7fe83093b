package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis 7.0's glob matching (util.c stringmatchlen): {@code * ? [abc] [^a-z] \x}, optionally
 * case-insensitive (ASCII only), byte-wise. Bytes compare as C's signed {@code char} does on
 * x86, so a range such as {@code [a-\xff]} means what it means in Redis.
 */
public final class GlobMatcher {
    private GlobMatcher() {}

    /**
     * The pattern prepared for many strings (KEYS, SCAN's MATCH). One of plain bytes, '?' and stars
     * (case-sensitive) is split at its stars: the string must start with the first piece and end
     * with the last unless a star stands there, and hold the others in order between them, each
     * found leftmost (a piece matches a fixed length, so the leftmost place leaves the most room
     * for the pieces after it). That is the matcher's answer, without a token at a time.
     */
    public static Compiled compile(byte[] pattern, boolean nocase) {
        boolean simple = !nocase, exact = true;
        for (byte b : pattern) {
            simple &= b == '*' || b == '?' || !isSpecial(b);
            exact &= b != '*';
        }
        if (!simple) return new Compiled(pattern, nocase, null, false, false);
        if (exact) return new Compiled(pattern, false, EXACT, false, false);
        List<byte[]> pieces = new ArrayList<>();
        for (int from = 0, i = 0; i <= pattern.length; i++) {
            if (i < pattern.length && pattern[i] != '*') continue;
            if (i > from) pieces.add(Arrays.copyOfRange(pattern, from, i));
            from = i + 1;
        }
        return new Compiled(pattern, false, pieces.toArray(new byte[0][]), pattern[0] != '*', pattern[pattern.length - 1] != '*');
    }

    private static boolean isSpecial(byte b) {
        return b == '*' || b == '?' || b == '[' || b == '\\';
    }

    /** {@link Compiled}'s pieces of a pattern without stars, compared whole. */
    private static final byte[][] EXACT = new byte[0][];

    /** A pattern from {@link #compile}. */
    public static final class Compiled {
        private final byte[] pattern;
        private final boolean nocase;
        /**
         * The pieces between the stars, {@link #EXACT} for a pattern without any, or null to use
         * the matcher. A '?' in a piece matches any byte.
         */
        private final byte[][] pieces;
        /** The first piece is anchored at the start (no leading star), the last at the end. */
        private final boolean startsWithPiece, endsWithPiece;

        private Compiled(byte[] pattern, boolean nocase, byte[][] pieces, boolean startsWithPiece, boolean endsWithPiece) {
            this.pattern = pattern;
            this.nocase = nocase;
            this.pieces = pieces;
            this.startsWithPiece = startsWithPiece;
            this.endsWithPiece = endsWithPiece;
        }

        public boolean matches(byte[] s) {
            return matches(s, s.length);
        }

        /** Whether the first length bytes of s match (a key packed with its value, matched in place). */
        public boolean matches(byte[] s, int length) {
            if (pieces == null) return GlobMatcher.matches(pattern, s, length, nocase);
            if (length == 0) return pattern.length == 0; // as stringmatchlen: not even "*" matches ""
            if (pieces == EXACT) return length == pattern.length && regionMatches(s, 0, pattern);
            int from = 0, to = length, first = 0, last = pieces.length;
            if (startsWithPiece) {
                byte[] piece = pieces[first++];
                if (piece.length > length || !regionMatches(s, 0, piece)) return false;
                from = piece.length;
            }
            if (endsWithPiece) {
                byte[] piece = pieces[--last];
                if (to - piece.length < from || !regionMatches(s, to - piece.length, piece)) return false;
                to -= piece.length;
            }
            for (int k = first; k < last; k++) {
                int at = indexOf(s, pieces[k], from, to);
                if (at < 0) return false;
                from = at + pieces[k].length;
            }
            return true;
        }

        /**
         * Whether s holds piece at offset at (the caller knows it fits), a '?' of the piece
         * standing for any byte. Mostly short: a plain loop beats Arrays.equals's checks and setup.
         */
        private static boolean regionMatches(byte[] s, int at, byte[] piece) {
            for (int i = 0; i < piece.length; i++) {
                byte b = piece[i];
                if (s[at + i] != b && b != '?') return false;
            }
            return true;
        }

        private static int indexOf(byte[] s, byte[] piece, int from, int to) {
            for (int at = from; at + piece.length <= to; at++) {
                if (regionMatches(s, at, piece)) return at;
            }
            return -1;
        }
    }

    /** True when the pattern is "*", which matches everything (a common fast path). */
    public static boolean matchesAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*';
    }

    /**
     * stringmatchlen's answer without its recursion: after a failed token, the last '*' takes one
     * byte more and the pattern resumes after it. Only '*' matches a variable length, so an
     * earlier '*' never needs to take more (what Redis's skipLongerMatches finds out the long
     * way), and the time is bounded by the pattern's length times the string's. As in Redis, an
     * empty string is matched only by the empty pattern.
     */
    public static boolean matches(byte[] p, byte[] s, boolean nocase) {
        return matches(p, s, s.length, nocase);
    }

    /** {@link #matches(byte[], byte[], boolean)} on the first slen bytes of s. */
    static boolean matches(byte[] p, byte[] s, int slen, boolean nocase) {
        int plen = p.length;
        if (slen == 0) return plen == 0;
        // plain: the byte the pattern resumes with after the last star when it is a plain one (-1
        // if not), so that the star takes every byte up to the next such one at once.
        int pi = 0, si = 0, resumeAt = -1, starFrom = 0, plain = -1;
        while (si < slen) {
            if (pi < plen && p[pi] == '*') {
                while (pi + 1 < plen && p[pi + 1] == '*') pi++;
                if (pi + 1 == plen) return true;
                resumeAt = ++pi;
                plain = nocase || isSpecial(p[pi]) ? -1 : p[pi];
                starFrom = si - 1;
            } else {
                int next = pi < plen ? token(p, pi, s[si], nocase) : -1;
                if (next >= 0) {
                    pi = next;
                    si++;
                    continue;
                }
                if (resumeAt < 0) return false;
                pi = resumeAt;
            }
            starFrom++;
            if (plain >= 0) {
                while (starFrom < slen && s[starFrom] != plain) starFrom++;
                if (starFrom == slen) return false; // the byte after the star is nowhere further on
            }
            si = starFrom;
        }
        while (pi < plen && p[pi] == '*') pi++;
        return pi == plen;
    }

    /** The pattern's token at pi (not '*') against the byte c: where the next token starts if c matches, else -1. */
    private static int token(byte[] p, int pi, byte c, boolean nocase) {
        int plen = p.length;
        switch (p[pi]) {
            case '?':
                return pi + 1;
            case '[': {
                pi++;
                boolean not = pi < plen && p[pi] == '^';
                if (not) pi++;
                boolean hit = false;
                while (true) {
                    if (pi < plen && p[pi] == '\\' && plen - pi >= 2) {
                        pi++;
                        if (p[pi] == c) hit = true;
                    } else if (pi < plen && p[pi] == ']') {
                        break;
                    } else if (pi >= plen) {
                        pi--; // unterminated class: the token ends exactly at the pattern's end
                        break;
                    } else if (plen - pi >= 3 && p[pi + 1] == '-') {
                        int start = p[pi], end = p[pi + 2], ch = c;
                        if (start > end) {
                            int t = start;
                            start = end;
                            end = t;
                        }
                        if (nocase) {
                            start = lower(start);
                            end = lower(end);
                            ch = lower(ch);
                        }
                        pi += 2;
                        if (ch >= start && ch <= end) hit = true;
                    } else if (nocase ? lower(p[pi]) == lower(c) : p[pi] == c) {
                        hit = true;
                    }
                    pi++;
                }
                return hit != not ? pi + 1 : -1;
            }
            case '\\':
                if (plen - pi >= 2) pi++;
                // fall through: match the escaped character literally
            default:
                return (nocase ? lower(p[pi]) == lower(c) : p[pi] == c) ? pi + 1 : -1;
        }
    }

    /** glibc's tolower on a signed char: ASCII letters fold; negative bytes but -1 (EOF) come back unsigned. */
    private static int lower(int c) {
        if (c >= 'A' && c <= 'Z') return c + 32;
        return c < -1 ? c + 256 : c;
    }
}
