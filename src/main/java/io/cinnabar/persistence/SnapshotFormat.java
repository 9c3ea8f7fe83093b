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

    void entry(byte[] key, Object value, long expireAtMs, int lruIdleSeconds) throws IOException;

    void end() throws IOException;
}
