package io.cinnabar.persistence.rdb;

import java.io.IOException;

/**
 * Input that is not a loadable RDB file or DUMP payload. The only exception the codec throws for
 * bad bytes: {@link #kind()} says which of Redis's log lines applies, {@link #offset()} where in
 * the input (bytes from its start) the reader stood when it gave up.
 */
public final class RdbFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        /** The input ended early: Redis's "Short read or OOM loading DB" / "Unexpected EOF". */
        SHORT_READ,
        /** The bytes contradict the format: Redis's "Internal error in RDB reading offset N". */
        CORRUPT,
        /** No "REDIS" magic: "Wrong signature trying to load DB from file". */
        BAD_SIGNATURE,
        /** A version above 10 or below 1: "Can't handle RDB format version N". */
        UNSUPPORTED_VERSION,
        /** Valid data of a kind Cinnabar cannot hold yet (streams, modules). */
        UNSUPPORTED_TYPE,
        /** The stored CRC64 differs from the computed one: "Wrong RDB checksum". */
        CHECKSUM
    }

    private final Kind kind;
    private final long offset;
    private final String reason;

    public RdbFormatException(Kind kind, long offset, String reason) {
        super(reason + " (at offset " + offset + ")");
        this.kind = kind;
        this.offset = offset;
        this.reason = reason;
    }

    public Kind kind() {
        return kind;
    }

    /** Bytes consumed from the start of the input when the problem was found. */
    public long offset() {
        return offset;
    }

    /** The problem without the offset, in Redis's words where Redis has them. */
    public String reason() {
        return reason;
    }
}
