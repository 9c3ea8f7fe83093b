package io.cinnabar.keyspace;

/**
 * Redis's glob matching (stringmatchlen): {@code * ? [abc] [^a-z] \x}, optionally
 * case-insensitive, byte-wise.
 */
public final class GlobMatcher {
    private GlobMatcher() {}

    public static boolean matches(byte[] pattern, byte[] string, boolean nocase) {
        return match(pattern, 0, string, 0, nocase, 0);
    }

    /** True when the pattern is "*", which matches everything (a common fast path). */
    public static boolean matchesAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*';
    }

    private static boolean match(byte[] p, int pi, byte[] s, int si, boolean nocase, int nesting) {
        // Redis bounds recursion to defeat pathological patterns.
        if (nesting > 1000) return false;
        int plen = p.length, slen = s.length;
        while (pi < plen && si < slen) {
            switch (p[pi]) {
                case '*': {
                    while (pi + 1 < plen && p[pi + 1] == '*') pi++;
                    if (pi + 1 == plen) return true;
                    while (si < slen) {
                        if (match(p, pi + 1, s, si, nocase, nesting + 1)) return true;
                        si++;
                    }
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
                        } else if (pi >= plen || p[pi] == ']') {
                            break;
                        } else if (plen - pi >= 3 && p[pi + 1] == '-') {
                            int start = p[pi] & 0xff, end = p[pi + 2] & 0xff, c = s[si] & 0xff;
                            if (start > end) {
                                int t = start; start = end; end = t;
                            }
                            if (nocase) {
                                start = lower(start);
                                end = lower(end);
                                c = lower(c);
                            }
                            pi += 2;
                            if (c >= start && c <= end) hit = true;
                        } else {
                            if (nocase ? lower(p[pi] & 0xff) == lower(s[si] & 0xff) : p[pi] == s[si]) hit = true;
                        }
                        pi++;
                    }
                    if (pi >= plen) pi = plen - 1; // unterminated class: Redis treats end as ']'
                    if (not) hit = !hit;
                    if (!hit) return false;
                    si++;
                    break;
                }
                case '\\':
                    if (plen - pi >= 2) pi++;
                    // fall through: match the escaped character literally
                default:
                    if (nocase ? lower(p[pi] & 0xff) != lower(s[si] & 0xff) : p[pi] != s[si]) return false;
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

    private static int lower(int c) {
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    }
}
