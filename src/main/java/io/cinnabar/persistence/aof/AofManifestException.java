package io.cinnabar.persistence.aof;

import java.io.IOException;

/**
 * The manifest cannot be used; Redis refuses to start in this case. The message is Redis's own
 * text ("Invalid AOF manifest file format", "Found duplicate base file information", ...).
 */
public final class AofManifestException extends IOException {
    private final int lineNumber;
    private final String line;

    AofManifestException(String message, int lineNumber, String line) {
        super(message);
        this.lineNumber = lineNumber;
        this.line = line;
    }

    AofManifestException(String message, IOException cause) {
        super(message, cause);
        this.lineNumber = 0;
        this.line = null;
    }

    /** 1-based line of the manifest at fault; 0 when the fault is not in one line. */
    public int lineNumber() {
        return lineNumber;
    }

    /** The trimmed line at fault, or null when Redis would not show one. */
    public String line() {
        return line;
    }
}
