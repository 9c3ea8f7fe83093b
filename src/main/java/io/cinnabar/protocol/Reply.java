package io.cinnabar.protocol;

/**
 * What a command handler writes, named after RESP types. RESP2/RESP3 differences (maps, sets,
 * nulls, doubles, pushes) are the implementation's business, never the handler's.
 */
public interface Reply {
    void simple(String s);

    void simple(byte[] s);

    /** An error line; {@code message} is the whole text after '-', e.g. "ERR syntax error". */
    void error(String message);

    void integer(long v);

    void bulk(byte[] b);

    void bulk(byte[] b, int offset, int length);

    void bulk(String s);

    /** A bulk string holding the decimal form of {@code v} (e.g. INCRBYFLOAT, INFO counters). */
    void bulk(long v);

    void nullBulk();

    void nullArray();

    void array(int n);

    void map(int n);

    void set(int n);

    void push(int n);

    void doubleValue(double d);

    /**
     * A double as Redis's addReplyHumanLongDouble writes it (GEOPOS coordinates): "%.17Lf" trimmed
     * of trailing zeros, as a bulk string in RESP2 and a double in RESP3.
     */
    default void humanDouble(double d) {
        if (protocol() == 3) doubleValue(d); else bulk(io.cinnabar.util.DoubleFormat.human(d));
    }

    void bool(boolean b);

    void verbatim(String format, byte[] text);

    /** A verbatim string of text's bytes from offset on. */
    default void verbatim(String format, byte[] text, int offset, int length) {
        verbatim(format, java.util.Arrays.copyOfRange(text, offset, offset + length));
    }

    /** A big number ("(digits" in RESP3, a bulk string in RESP2). */
    default void bigNumber(String digits) {
        bulk(digits);
    }

    /**
     * A RESP3 attribute map header of n pairs ("|n"), which the caller follows with the pairs and
     * then the real reply. RESP2 has no attributes: callers send them only when protocol() is 3.
     */
    default void attribute(int n) {
        throw new IllegalStateException("attributes need RESP3");
    }

    /** RESP3 protocol in use by the client the reply goes to (2 or 3). */
    int protocol();

    /** Pre-encoded reply bytes (shared constants); written verbatim. */
    void raw(byte[] encoded);

    default void ok() {
        raw(RespConstants.OK);
    }

    default void emptyArray() {
        raw(RespConstants.EMPTY_ARRAY);
    }

    /** A flat array of bulk strings. */
    default void bulkArray(byte[]... items) {
        array(items.length);
        for (byte[] item : items) {
            if (item == null) nullBulk(); else bulk(item);
        }
    }
}
