package io.cinnabar.persistence;

import java.io.IOException;
import java.io.OutputStream;

/**
 * How a snapshot is written: an RDB file, or an AOF base of commands. Called on the persistence
 * thread with the records of a {@link io.cinnabar.keyspace.KeyspaceSnapshot}, database by database.
 */
public interface SnapshotFormat {
    void begin(OutputStream out) throws IOException;

    void beginDatabase(int db, long keys, long expires) throws IOException;

    /** idleSeconds and freq: what the maxmemory-policy keeps per key (Redis's IDLE / FREQ opcodes), -1 when it keeps neither. */
    void entry(byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException;

    void end() throws IOException;
}
