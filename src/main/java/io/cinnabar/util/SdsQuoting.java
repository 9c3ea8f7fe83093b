package io.cinnabar.util;

import java.io.ByteArrayOutputStream;

/**
 * Redis's sdsneedsrepr/sdscatrepr, so the lines of files Redis writes (an AOF manifest's file
 * names, CONFIG REWRITE's values) quote the way Redis's do and sdssplitargs reads them back
 * (text with spaces, quotes, newlines or bytes above 0x7e).
 */
public final class SdsQuoting {
    private SdsQuoting() {}

    /** sdsneedsrepr: text needs quoting if it has a blank, a quote, a backslash or a non-printable byte. */
    public static boolean needsQuoting(byte[] s) {
        for (byte b : s) {
            if (b == '\\' || b == '"' || !isPrint(b) || isSpace(b)) return true;
        }
        return false;
    }

    /** sdscatrepr: the text in double quotes with C escapes and \xHH for other non-printables. */
    public static byte[] quote(byte[] s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length + 8);
        out.write('"');
        for (byte b : s) {
            switch (b) {
                case '\\': case '"': out.write('\\'); out.write(b); break;
                case '\n': out.write('\\'); out.write('n'); break;
                case '\r': out.write('\\'); out.write('r'); break;
                case '\t': out.write('\\'); out.write('t'); break;
                case 7: out.write('\\'); out.write('a'); break;
                case '\b': out.write('\\'); out.write('b'); break;
                default:
                    if (isPrint(b)) {
                        out.write(b);
                    } else {
                        out.write('\\');
                        out.write('x');
                        out.write(hexDigit((b >> 4) & 0xf));
                        out.write(hexDigit(b & 0xf));
                    }
            }
        }
        out.write('"');
        return out.toByteArray();
    }

    /** isprint() in the C locale. */
    private static boolean isPrint(byte b) {
        return b >= 0x20 && b <= 0x7e;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || (b >= '\t' && b <= '\r');
    }

    private static int hexDigit(int v) {
        return v < 10 ? '0' + v : 'a' + v - 10;
    }
}
