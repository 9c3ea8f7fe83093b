package io.cinnabar.persistence;

/**
 * Where a replica's payload stands in the replication stream, as the RDB's aux fields say it:
 * the stream's id (repl-id), its offset (repl-offset), and the database the stream after it
 * continues in (repl-stream-db: a replica passing its master's stream on sends no SELECT first).
 */
public record ReplicationPoint(String id, long offset, int streamDb) { }
