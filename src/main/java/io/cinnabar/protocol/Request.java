package io.cinnabar.protocol;

import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

/**
 * What the decoder hands on for each command: its arguments as a {@code byte[][]}, name first,
 * each a private copy owned by whoever takes it (the keyspace may store them without copying).
 * A request that could not be decoded is a {@link #protocolError}, told apart by a null name;
 * it ends the connection after the requests before it ran. No object wraps a request: a
 * wrapper was 24 of the 80 bytes a pipelined GET allocated.
 */
public final class Request {
    private Request() {}

    /** The request a protocol error stands for: a null name, then the message. */
    public static byte[][] protocolError(String message) {
        return new byte[][] {null, BinaryText.encode(message)};
    }

    public static boolean isProtocolError(byte[][] request) {
        return request[0] == null;
    }

    /** The message of a {@link #protocolError}. */
    public static String errorMessage(byte[][] request) {
        return BinaryText.decode(request[1]);
    }

    /** The bytes of a request in RESP multibulk form (how a master's stream carries it, and CLIENT LIST's qbuf of the caller). */
    public static long multibulkLength(byte[][] args) {
        long n = 1 + Numbers.decimalLength(args.length) + 2;
        for (byte[] a : args) n += 1 + Numbers.decimalLength(a.length) + 2 + a.length + 2;
        return n;
    }
}
