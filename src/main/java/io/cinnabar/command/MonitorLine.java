package io.cinnabar.command;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One line MONITOR clients receive, in Redis 7.0's format (replicationFeedMonitors):
 * {@code +<unix seconds>.<micros> [<db> <ip:port>] "arg" "arg"...\r\n}, every argument quoted
 * as sdscatrepr quotes it, and {@code lua} in place of the address for commands a script ran.
 */
public final class MonitorLine {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private MonitorLine() {}

    static byte[] format(Instant time, int db, String source, byte[][] argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        long micros = time.getNano() / 1000;
        String head = "+" + time.getEpochSecond() + "." + String.format("%06d", micros) + " [" + db + " " + source + "] ";
        out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < argv.length; i++) {
            if (i > 0) out.write(' ');
            quote(out, argv[i]);
        }
        out.write('\r');
        out.write('\n');
        return out.toByteArray();
    }

    /** Redis's sdscatrepr of s, as text (log lines). */
    public static String repr(byte[] s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length + 2);
        quote(out, s);
        return out.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Redis's sdscatrepr: printable ASCII as is, the usual escapes, anything else as \xHH. */
    static void quote(ByteArrayOutputStream out, byte[] s) {
        out.write('"');
        for (byte b : s) {
            int c = b & 0xff;
            switch (c) {
                case '\\', '"' -> {
                    out.write('\\');
                    out.write(c);
                }
                case '\n' -> escape(out, 'n');
                case '\r' -> escape(out, 'r');
                case '\t' -> escape(out, 't');
                case 7 -> escape(out, 'a');
                case '\b' -> escape(out, 'b');
                default -> {
                    if (c >= 0x20 && c <= 0x7e) {
                        out.write(c);
                    } else {
                        out.write('\\');
                        out.write('x');
                        out.write(HEX[c >> 4]);
                        out.write(HEX[c & 0xf]);
                    }
                }
            }
        }
        out.write('"');
    }

    private static void escape(ByteArrayOutputStream out, char c) {
        out.write('\\');
        out.write(c);
    }
}
