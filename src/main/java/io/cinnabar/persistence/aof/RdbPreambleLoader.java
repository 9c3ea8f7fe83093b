package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.io.InputStream;

/**
 * Loads the RDB payload an AOF file starts with (an RDB BASE file, or the preamble of a Redis 6
 * style AOF). The stream is positioned at "REDIS"; the loader reads the RDB through its checksum
 * and returns, and loading carries on with the AOF commands after the last byte it consumed. So
 * read through the stream itself, without a read-ahead buffer of your own: it is buffered already.
 * Throw on a malformed RDB; {@link java.io.EOFException} (or running out of bytes) counts as a
 * truncated file.
 */
@FunctionalInterface
public interface RdbPreambleLoader {
    void load(InputStream rdb) throws IOException;
}
