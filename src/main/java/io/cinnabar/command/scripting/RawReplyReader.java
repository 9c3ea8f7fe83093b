package io.cinnabar.command.scripting;

import io.cinnabar.protocol.Reply;

import java.nio.charset.StandardCharsets;

/**
 * Replays a pre-encoded reply (a shared constant such as +OK or an empty array, which handlers
 * hand over as bytes) into a {@link Reply} as calls, so that scripts see values, not bytes.
 */
final class RawReplyReader {
    private RawReplyReader() {}

    static void feed(byte[] b, Reply out) {
        int i = 0;
        while (i < b.length) i = one(b, i, out);
    }

    private static int one(byte[] b, int i, Reply out) {
        byte type = b[i];
        int eol = lineEnd(b, i);
        String line = new String(b, i + 1, eol - i - 1, StandardCharsets.ISO_8859_1);
        int next = eol + 2;
        switch (type) {
            case '+' -> out.simple(line);
            case '-' -> out.error(line);
            case ':' -> out.integer(Long.parseLong(line));
            case '_' -> out.nullBulk();
            case '#' -> out.bool(line.equals("t"));
            case ',' -> out.doubleValue(Double.parseDouble(line));
            case '(' -> out.bigNumber(line);
            case '$' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    out.nullBulk();
                } else {
                    out.bulk(b, next, n);
                    next += n + 2;
                }
            }
            case '*', '~', '>', '%' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    out.nullArray();
                    return next;
                }
                if (type == '*') out.array(n); else if (type == '~') out.set(n); else if (type == '>') out.push(n); else out.map(n);
                int items = type == '%' ? 2 * n : n;
                for (int k = 0; k < items; k++) next = one(b, next, out);
            }
            default -> throw new IllegalStateException("unexpected reply type " + (char) type);
        }
        return next;
    }

    private static int lineEnd(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        throw new IllegalStateException("unterminated reply");
    }
}
