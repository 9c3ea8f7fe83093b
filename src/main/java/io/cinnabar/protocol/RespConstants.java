package io.cinnabar.protocol;

import java.nio.charset.StandardCharsets;

/** Replies that never change, encoded once. */
public final class RespConstants {
    private RespConstants() {}

    public static final byte[] OK = ascii("+OK\r\n");
    public static final byte[] PONG = ascii("+PONG\r\n");
    public static final byte[] QUEUED = ascii("+QUEUED\r\n");
    public static final byte[] EMPTY_ARRAY = ascii("*0\r\n");
    public static final byte[] ZERO = ascii(":0\r\n");
    public static final byte[] ONE = ascii(":1\r\n");
    public static final byte[] NULL_BULK_2 = ascii("$-1\r\n");
    public static final byte[] NULL_ARRAY_2 = ascii("*-1\r\n");
    public static final byte[] NULL_3 = ascii("_\r\n");
    public static final byte[] CRLF = ascii("\r\n");

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
