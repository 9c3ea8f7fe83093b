package io.cinnabar.keyspace;

/**
 * A stored value other than a string (strings are plain {@code byte[]}). Collections implement
 * this so TYPE, OBJECT ENCODING and COPY can treat every type alike.
 */
public interface TypedValue {
    ValueType type();

    /** OBJECT ENCODING's answer for the representation in use right now. */
    String encoding();

    /** A deep copy for COPY; the copy shares no mutable state with this value. */
    TypedValue copy();

    /**
     * Feeds the value's content to sink, in an order fixed by the content alone (DEBUG
     * DIGEST-VALUE: equal values must give equal digests, as COPY's tests check).
     */
    default void digest(java.util.function.Consumer<byte[]> sink) {
        throw new UnsupportedOperationException("no digest for " + type().typeName());
    }
}
