package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.io.InputStream;

/**
 * Loads the RDB payload an AOF file starts with (an RDB BASE file, or the preamble of a Redis 6
 * style AOF). The stream is positioned at "REDIS"; the loader reads the RDB through its checksum
 * and returns the RDB's length in bytes, and loading carries on with the AOF commands right after
 * it, however far the loader's own buffering read ahead. A loader that read exactly the RDB may
 * return -1 instead. Throw on a malformed RDB; {@link java.io.EOFException} (or running out of
 * bytes) counts as a truncated file.
 */
@FunctionalInterface
public interface RdbPreambleLoader {
    long load(InputStream rdb) throws IOException;
}
