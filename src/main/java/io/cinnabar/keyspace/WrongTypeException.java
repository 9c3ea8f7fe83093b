package io.cinnabar.keyspace;

/** A key holds a value of another type than the operation needs. */
public final class WrongTypeException extends RuntimeException {
    public static final String MESSAGE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public static final WrongTypeException INSTANCE = new WrongTypeException();

    private WrongTypeException() {
        super(MESSAGE, null, false, false);
    }
}
