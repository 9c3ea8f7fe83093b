package io.cinnabar.persistence.aof;

import java.io.IOException;

/**
 * Appending to the AOF failed. The bytes that did not reach the file are kept by {@link AofFiles}
 * and written before anything else on the next call, as Redis keeps them in its AOF buffer; until
 * a write succeeds the server should refuse writes with
 * {@code MISCONF Errors writing to the AOF file: <strerror()>}.
 */
public final class AofWriteException extends IOException {
    private final String strerror;

    AofWriteException(String strerror, IOException cause) {
        super("Error writing to the AOF file: " + strerror, cause);
        this.strerror = strerror;
    }

    /** The OS reason, as Redis's MISCONF reply and INFO show it ("No space left on device"). */
    public String strerror() {
        return strerror;
    }
}
