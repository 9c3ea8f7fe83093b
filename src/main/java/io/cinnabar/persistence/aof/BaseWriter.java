package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.io.OutputStream;

/** Writes a whole BASE file (an RDB, or AOF commands) for {@link AofFiles#openOnStartup}. */
@FunctionalInterface
public interface BaseWriter {
    void writeTo(OutputStream out) throws IOException;
}
