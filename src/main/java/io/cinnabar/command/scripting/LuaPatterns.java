package io.cinnabar.command.scripting;

import org.luaj.vm2.Buffer;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * string.find, match, gmatch and gsub as Lua 5.1 has them, which scripts written for Redis
 * meet where luaj (Lua 5.2) differs: malformed patterns fail with Lua 5.1's "malformed pattern
 * (missing ']')" where luaj's matcher throws an ArrayIndexOutOfBoundsException; the pattern
 * ends at its first NUL byte, as a C string does; %f reads the NUL after the subject; a lone
 * '%' at the end of a replacement adds that NUL; find with an init past the end still matches
 * the empty string there; gsub checks its arguments in Lua 5.1's order and words.
 * Characters are classed as C's ctype does in the "C" locale, Redis's.
 */
final class LuaPatterns {
    private static final int MAX_CAPTURES = 32;
    private static final int CAP_UNFINISHED = -1, CAP_POSITION = -2;
    private static final String SPECIALS = "^$*+?.([%-";

    /** The subject: source's bytes from src[so], srcEnd of them. */
    private final LuaString source;
    private final byte[] src;
    private final int so, srcEnd;
    private final LuaString pattern;
    /** Grown as captures open, up to MAX_CAPTURES: most patterns have a few or none. */
    private int[] captureStart = new int[4];
    private int[] captureLength = new int[4];
    private int level;

    private LuaPatterns(LuaString source, LuaString pattern) {
        this.source = source;
        this.src = source.m_bytes;
        this.so = source.m_offset;
        this.srcEnd = source.m_length;
        this.pattern = pattern;
    }

    static void install(LuaTable string) {
        string.rawset("find", fn(a -> find(a, true)));
        string.rawset("match", fn(a -> find(a, false)));
        LuaValue gmatch = fn(LuaPatterns::gmatch);
        string.rawset("gmatch", gmatch);
        // Lua 5.1 built with LUA_COMPAT_GFIND, as Redis's is: the old name of the same function.
        string.rawset("gfind", gmatch);
        string.rawset("gsub", fn(LuaPatterns::gsub));
    }

    // ---- the library functions (str_find_aux, gmatch, str_gsub) ----

    private static Varargs find(Varargs a, boolean find) {
        String name = find ? "find" : "match";
        LuaString s = ArgumentErrors.string(a, 1, name), p = ArgumentErrors.string(a, 2, name);
        long init = relative(ArgumentErrors.optInteger(a, 3, name, 1), s.m_length) - 1;
        if (init < 0) init = 0;
        else if (init > s.m_length) init = s.m_length;
        if (find && (a.arg(4).toboolean() || !hasSpecials(p))) {
            int at = indexOf(s, (int) init, p);
            if (at < 0) return LuaValue.NIL;
            return LuaValue.varargsOf(LuaValue.valueOf(at + 1), LuaValue.valueOf(at + p.m_length));
        }
        LuaPatterns ms = new LuaPatterns(s, p);
        boolean anchor = ms.pat(0) == '^';
        int start = anchor ? 1 : 0;
        int s1 = (int) init;
        do {
            ms.level = 0;
            int end = ms.match(s1, start);
            if (end >= 0) {
                if (!find) return ms.captures(s1, end, true);
                Varargs captures = ms.captures(-1, 0, false);
                LuaValue[] out = new LuaValue[2 + captures.narg()];
                out[0] = LuaValue.valueOf(s1 + 1);
                out[1] = LuaValue.valueOf(end);
                for (int i = 0; i < captures.narg(); i++) out[2 + i] = captures.arg(i + 1);
                return LuaValue.varargsOf(out);
            }
        } while (s1++ < ms.srcEnd && !anchor);
        return LuaValue.NIL;
    }

    private static Varargs gmatch(Varargs a) {
        LuaString s = ArgumentErrors.string(a, 1, "gmatch"), p = ArgumentErrors.string(a, 2, "gmatch");
        int[] position = {0};
        return fn(ignored -> {
            LuaPatterns ms = new LuaPatterns(s, p);
            for (int from = position[0]; from <= ms.srcEnd; from++) {
                ms.level = 0;
                int end = ms.match(from, 0);
                if (end >= 0) {
                    // An empty match moves on by one, so that the loop ends.
                    position[0] = end == from ? end + 1 : end;
                    return ms.captures(from, end, true);
                }
            }
            return LuaValue.NONE;
        });
    }

    private static Varargs gsub(Varargs a) {
        LuaString s = ArgumentErrors.string(a, 1, "gsub"), p = ArgumentErrors.string(a, 2, "gsub");
        LuaValue replacement = a.arg(3);
        long max = (int) ArgumentErrors.optInteger(a, 4, "gsub", s.m_length + 1L); // luaL_optint: 2^32 + 1 is 1
        int type = replacement.type();
        if (type != LuaValue.TNUMBER && type != LuaValue.TSTRING && type != LuaValue.TFUNCTION && type != LuaValue.TTABLE) {
            throw new LuaError("bad argument #3 to 'gsub' (string/function/table expected)");
        }
        LuaPatterns ms = new LuaPatterns(s, p);
        boolean anchor = ms.pat(0) == '^';
        int start = anchor ? 1 : 0;
        // A string (or number) replacement: its bytes once for all matches.
        LuaString text = type == LuaValue.TSTRING || type == LuaValue.TNUMBER ? Lua51.text(replacement) : null;
        Buffer out = new Buffer(s.m_length + 16);
        int at = 0;
        long n = 0;
        while (n < max) {
            ms.level = 0;
            int end = ms.match(at, start);
            if (end >= 0) {
                n++;
                if (text != null) ms.addString(out, at, end, text);
                else ms.addValue(out, at, end, replacement);
            }
            if (end >= 0 && end > at) at = end;
            else if (at < ms.srcEnd) out.append(s.m_bytes[s.m_offset + at++]);
            else break;
            if (anchor) break;
        }
        out.append(s.substring(at, s.m_length));
        return LuaValue.varargsOf(out.tostring(), LuaValue.valueOf(n));
    }

    /** add_value for a function or a table: what it gives for the match [start, end). */
    private void addValue(Buffer out, int start, int end, LuaValue replacement) {
        LuaValue value = replacement.isfunction()
                ? replacement.invoke(captures(start, end, true)).arg1()
                : replacement.get(capture(0, start, end));
        if (!value.toboolean()) {
            out.append(source.substring(start, end));
        } else if (value.type() == LuaValue.TSTRING || value.type() == LuaValue.TNUMBER) {
            out.append(Lua51.text(value));
        } else {
            throw new LuaError("invalid replacement value (a " + value.typename() + ")");
        }
    }

    /** add_s: the replacement string with %0..%9 for the captures; "%" then anything else is that character. */
    private void addString(Buffer out, int start, int end, LuaString text) {
        byte[] r = text.m_bytes;
        int o = text.m_offset, n = text.m_length;
        for (int i = 0; i < n; i++) {
            if (r[o + i] != '%') {
                out.append(r[o + i]);
                continue;
            }
            i++;
            // Past the end is the string's terminating NUL, which Lua 5.1 adds.
            int c = i < n ? r[o + i] & 0xff : 0;
            if (!isDigit(c)) out.append((byte) c);
            else if (c == '0') out.append(source.substring(start, end));
            else out.append(Lua51.text(capture(c - '1', start, end)));
        }
    }

    // ---- the matcher (match and its helpers in Lua 5.1's lstrlib.c) ----

    /** The pattern's byte at i, 0 past its end: a NUL ends a pattern, as in C. */
    private int pat(int i) {
        return i < pattern.m_length ? pattern.m_bytes[pattern.m_offset + i] & 0xff : 0;
    }

    /** The subject's byte at i, 0 at its end (the NUL a Lua string ends with). */
    private int subject(int i) {
        return i < srcEnd ? src[so + i] & 0xff : 0;
    }

    /** Where src matched from s to the end of pattern (from p) ends, or -1. */
    private int match(int s, int p) {
        while (true) {
            switch (pat(p)) {
                case '(':
                    if (pat(p + 1) == ')') return startCapture(s, p + 2, CAP_POSITION);
                    return startCapture(s, p + 1, CAP_UNFINISHED);
                case ')':
                    return endCapture(s, p + 1);
                case '%':
                    if (pat(p + 1) == 'b') {
                        s = matchBalance(s, p + 2);
                        if (s < 0) return -1;
                        p += 4;
                        continue;
                    }
                    if (pat(p + 1) == 'f') {
                        p += 2;
                        if (pat(p) != '[') throw new LuaError("missing '[' after '%f' in pattern");
                        int ep = classEnd(p);
                        int previous = s == 0 ? 0 : src[so + s - 1] & 0xff;
                        if (matchBracketClass(previous, p, ep - 1) || !matchBracketClass(subject(s), p, ep - 1)) return -1;
                        p = ep;
                        continue;
                    }
                    if (isDigit(pat(p + 1))) {
                        s = matchCapture(s, pat(p + 1));
                        if (s < 0) return -1;
                        p += 2;
                        continue;
                    }
                    break;
                case 0:
                    return s;
                case '$':
                    if (pat(p + 1) == 0) return s == srcEnd ? s : -1;
                    break;
                default:
                    break;
            }
            int ep = classEnd(p);
            boolean m = s < srcEnd && singleMatch(src[so + s] & 0xff, p, ep);
            switch (pat(ep)) {
                case '?' -> {
                    if (m) {
                        int res = match(s + 1, ep + 1);
                        if (res >= 0) return res;
                    }
                    p = ep + 1;
                }
                case '*' -> {
                    return maxExpand(s, p, ep);
                }
                case '+' -> {
                    return m ? maxExpand(s + 1, p, ep) : -1;
                }
                case '-' -> {
                    return minExpand(s, p, ep);
                }
                default -> {
                    if (!m) return -1;
                    s++;
                    p = ep;
                }
            }
        }
    }

    /** Where the single-character class at p ends. */
    private int classEnd(int p) {
        int c = pat(p++);
        if (c == '%') {
            if (pat(p) == 0) throw new LuaError("malformed pattern (ends with '%')");
            return p + 1;
        }
        if (c == '[') {
            if (pat(p) == '^') p++;
            // The first character is a member even if it is ']'.
            do {
                if (pat(p) == 0) throw new LuaError("malformed pattern (missing ']')");
                if (pat(p++) == '%' && pat(p) != 0) p++;
            } while (pat(p) != ']');
            return p + 1;
        }
        return p;
    }

    private boolean singleMatch(int c, int p, int ep) {
        return switch (pat(p)) {
            case '.' -> true;
            case '%' -> matchClass(c, pat(p + 1));
            case '[' -> matchBracketClass(c, p, ep - 1);
            default -> pat(p) == c;
        };
    }

    /** c against the set [...] from p (its '[') to ec (its ']'). */
    private boolean matchBracketClass(int c, int p, int ec) {
        boolean member = true;
        if (pat(p + 1) == '^') {
            member = false;
            p++;
        }
        while (++p < ec) {
            if (pat(p) == '%') {
                p++;
                if (matchClass(c, pat(p))) return member;
            } else if (pat(p + 1) == '-' && p + 2 < ec) {
                p += 2;
                if (pat(p - 2) <= c && c <= pat(p)) return member;
            } else if (pat(p) == c) {
                return member;
            }
        }
        return !member;
    }

    /** %a, %d, ... (upper case: the complement); any other character stands for itself. */
    private static boolean matchClass(int c, int cl) {
        boolean res;
        switch (Character.toLowerCase(cl)) {
            case 'a' -> res = isAlpha(c);
            case 'c' -> res = c < 32 || c == 127;
            case 'd' -> res = isDigit(c);
            case 'l' -> res = c >= 'a' && c <= 'z';
            case 'p' -> res = c > 32 && c < 127 && !isAlpha(c) && !isDigit(c);
            case 's' -> res = c == ' ' || (c >= '\t' && c <= '\r');
            case 'u' -> res = c >= 'A' && c <= 'Z';
            case 'w' -> res = isAlpha(c) || isDigit(c);
            case 'x' -> res = isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            case 'z' -> res = c == 0;
            default -> {
                return cl == c;
            }
        }
        return cl >= 'A' && cl <= 'Z' ? !res : res;
    }

    private static boolean isAlpha(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private int maxExpand(int s, int p, int ep) {
        int i = 0;
        while (s + i < srcEnd && singleMatch(src[so + s + i] & 0xff, p, ep)) i++;
        for (; i >= 0; i--) {
            int res = match(s + i, ep + 1);
            if (res >= 0) return res;
        }
        return -1;
    }

    private int minExpand(int s, int p, int ep) {
        while (true) {
            int res = match(s, ep + 1);
            if (res >= 0) return res;
            if (s < srcEnd && singleMatch(src[so + s] & 0xff, p, ep)) s++;
            else return -1;
        }
    }

    private int startCapture(int s, int p, int what) {
        if (level >= MAX_CAPTURES) throw new LuaError("too many captures");
        if (level == captureStart.length) {
            captureStart = java.util.Arrays.copyOf(captureStart, level * 2);
            captureLength = java.util.Arrays.copyOf(captureLength, level * 2);
        }
        captureStart[level] = s;
        captureLength[level] = what;
        level++;
        int res = match(s, p);
        if (res < 0) level--;
        return res;
    }

    private int endCapture(int s, int p) {
        int l = captureToClose();
        captureLength[l] = s - captureStart[l];
        int res = match(s, p);
        if (res < 0) captureLength[l] = CAP_UNFINISHED;
        return res;
    }

    private int captureToClose() {
        for (int l = level - 1; l >= 0; l--) {
            if (captureLength[l] == CAP_UNFINISHED) return l;
        }
        throw new LuaError("invalid pattern capture");
    }

    /** %b xy: from x to its balancing y. */
    private int matchBalance(int s, int p) {
        if (pat(p) == 0 || pat(p + 1) == 0) throw new LuaError("unbalanced pattern");
        if (subject(s) != pat(p)) return -1;
        int open = pat(p), close = pat(p + 1), depth = 1;
        while (++s < srcEnd) {
            int c = src[so + s] & 0xff;
            if (c == close) {
                if (--depth == 0) return s + 1;
            } else if (c == open) {
                depth++;
            }
        }
        return -1;
    }

    /** %1..%9: the text of that capture again. */
    private int matchCapture(int s, int digit) {
        int l = checkCapture(digit);
        int length = captureLength[l];
        int from = so + captureStart[l], at = so + s;
        if (srcEnd - s >= length && java.util.Arrays.equals(src, from, from + length, src, at, at + length)) {
            return s + length;
        }
        return -1;
    }

    private int checkCapture(int digit) {
        int l = digit - '1';
        if (l < 0 || l >= level || captureLength[l] == CAP_UNFINISHED) throw new LuaError("invalid capture index");
        return l;
    }

    // ---- captures ----

    /** push_captures: the captures, or the whole match src[start, end) when there are none and whole says so. */
    private Varargs captures(int start, int end, boolean whole) {
        int n = level == 0 && whole ? 1 : level;
        LuaValue[] out = new LuaValue[n];
        for (int i = 0; i < n; i++) out[i] = capture(i, start, end);
        return LuaValue.varargsOf(out);
    }

    private LuaValue capture(int i, int start, int end) {
        if (i >= level) {
            if (i == 0) return source.substring(start, end);
            throw new LuaError("invalid capture index");
        }
        int length = captureLength[i];
        if (length == CAP_UNFINISHED) throw new LuaError("unfinished capture");
        if (length == CAP_POSITION) return LuaValue.valueOf(captureStart[i] + 1);
        return source.substring(captureStart[i], captureStart[i] + length);
    }

    // ---- positions and plain search ----

    /** posrelat: a negative position counts from the end; before the start is 0. */
    private static long relative(long position, int length) {
        if (position < 0) position += length + 1;
        return position >= 0 ? position : 0;
    }

    /** strpbrk(p, SPECIALS): only up to the pattern's first NUL. */
    private static boolean hasSpecials(LuaString p) {
        for (int i = 0; i < p.m_length; i++) {
            byte b = p.m_bytes[p.m_offset + i];
            if (b == 0) return false;
            if (SPECIALS.indexOf(b) >= 0) return true;
        }
        return false;
    }

    /** lmemfind: where p first occurs in s from `from`, or -1. */
    private static int indexOf(LuaString s, int from, LuaString p) {
        if (p.m_length == 0) return from;
        outer:
        for (int i = from; i + p.m_length <= s.m_length; i++) {
            for (int k = 0; k < p.m_length; k++) {
                if (s.m_bytes[s.m_offset + i + k] != p.m_bytes[p.m_offset + k]) continue outer;
            }
            return i;
        }
        return -1;
    }
}
