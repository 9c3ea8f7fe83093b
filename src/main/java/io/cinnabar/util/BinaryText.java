package io.cinnabar.util;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Java Strings that carry a client's bytes exactly. Redis echoes arguments into its replies as
 * raw bytes ("unknown subcommand '\xe9'"), but a String decoded as UTF-8 turns every byte that is
 * not valid UTF-8 into U+FFFD, and Latin-1 turns each byte over 0x7F into two bytes on the way
 * out. Here valid UTF-8 decodes as usual and any other byte b becomes the lone surrogate
 * U+DC00+b (Python's "surrogateescape"), which {@link #encode} writes back as b: decode then
 * encode gives the same bytes for any input, and ASCII costs nothing extra either way.
 */
public final class BinaryText {
    private static final int ESCAPE = 0xDC00;

    private BinaryText() {}

    public static String decode(byte[] b) {
        return decode(b, 0, b.length);
    }

    public static String decode(byte[] b, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end && b[i] >= 0) i++;
        if (i == end) return new String(b, offset, length, StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder(length);
        for (int k = offset; k < i; k++) out.append((char) b[k]);
        while (i < end) {
            int c = b[i] & 0xff;
            int n = c < 0x80 ? 1 : sequenceLength(b, i, end);
            if (n == 0) {
                out.append((char) (ESCAPE + c));
                i++;
            } else {
                out.append(new String(b, i, n, StandardCharsets.UTF_8));
                i += n;
            }
        }
        return out.toString();
    }

    /** The bytes s was decoded from (UTF-8, and the escaped bytes as themselves). */
    public static byte[] encode(String s) {
        int n = s.length();
        int i = 0;
        while (i < n && s.charAt(i) < 0x80) i++;
        if (i == n) return s.getBytes(StandardCharsets.ISO_8859_1);
        if (!hasEscape(s, i)) return s.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 16);
        int from = 0;
        for (int k = i; k < n; k++) {
            char c = s.charAt(k);
            if (!isEscape(s, k)) continue;
            byte[] run = s.substring(from, k).getBytes(StandardCharsets.UTF_8);
            out.write(run, 0, run.length);
            out.write(c - ESCAPE);
            from = k + 1;
        }
        byte[] run = s.substring(from).getBytes(StandardCharsets.UTF_8);
        out.write(run, 0, run.length);
        return out.toByteArray();
    }

    /** b as C's %s prints it, up to its first NUL byte. */
    public static String decodeCString(byte[] b) {
        return decode(b, 0, cLength(b));
    }

    /** How much of b C's string functions see: up to its first NUL byte. */
    public static int cLength(byte[] b) {
        for (int i = 0; i < b.length; i++) if (b[i] == 0) return i;
        return b.length;
    }

    /** The text of one byte, as decode gives it: "got '%c'" of a byte over 0x7F. */
    public static String ofByte(int b) {
        b &= 0xff;
        return String.valueOf((char) (b < 0x80 ? b : ESCAPE + b));
    }

    private static boolean hasEscape(String s, int from) {
        for (int k = from; k < s.length(); k++) if (isEscape(s, k)) return true;
        return false;
    }

    /** A low surrogate in the escape range that no high surrogate precedes. */
    private static boolean isEscape(String s, int k) {
        char c = s.charAt(k);
        return c >= ESCAPE + 0x80 && c <= ESCAPE + 0xff && (k == 0 || !Character.isHighSurrogate(s.charAt(k - 1)));
    }

    /** Length of the well-formed UTF-8 sequence starting at i (RFC 3629: no overlongs, surrogates, or past U+10FFFF), else 0. */
    private static int sequenceLength(byte[] b, int i, int end) {
        int c = b[i] & 0xff;
        int n;
        int min2, max2;
        if (c >= 0xC2 && c <= 0xDF) { n = 2; min2 = 0x80; max2 = 0xBF; }
        else if (c == 0xE0) { n = 3; min2 = 0xA0; max2 = 0xBF; }
        else if (c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF) { n = 3; min2 = 0x80; max2 = 0xBF; }
        else if (c == 0xED) { n = 3; min2 = 0x80; max2 = 0x9F; }
        else if (c == 0xF0) { n = 4; min2 = 0x90; max2 = 0xBF; }
        else if (c >= 0xF1 && c <= 0xF3) { n = 4; min2 = 0x80; max2 = 0xBF; }
        else if (c == 0xF4) { n = 4; min2 = 0x80; max2 = 0x8F; }
        else return 0;
        if (i + n > end) return 0;
        int c2 = b[i + 1] & 0xff;
        if (c2 < min2 || c2 > max2) return 0;
        for (int k = 2; k < n; k++) {
            int ck = b[i + k] & 0xff;
            if (ck < 0x80 || ck > 0xBF) return 0;
        }
        return n;
    }
}
