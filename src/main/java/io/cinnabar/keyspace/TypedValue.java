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

    /** Approximate bytes this value occupies on the heap (MEMORY USAGE); types override it. */
    default long memoryUsage() {
        return 64;
    }
}
