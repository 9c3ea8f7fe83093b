package io.cinnabar.protocol;

/**
 * One decoded command: its arguments, name first, each a private copy owned by whoever takes it
 * (the keyspace may store them without copying). A request that could not be decoded carries
 * {@link #protocolError} instead; it ends the connection after the requests before it ran.
 */
public final class Request {
    public final byte[][] args;
    public final String protocolError;

    private Request(byte[][] args, String protocolError) {
        this.args = args;
        this.protocolError = protocolError;
    }

    public static Request of(byte[][] args) {
        return new Request(args, null);
    }

    public static Request protocolError(String message) {
        return new Request(null, message);
    }

    public boolean isProtocolError() {
        return protocolError != null;
    }
}
