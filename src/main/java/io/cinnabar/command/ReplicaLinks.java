package io.cinnabar.command;

/**
 * What commands ask of the server's replicas, found as a component of the server once one
 * asked to sync (see io.cinnabar.command.server.Replicas, which owns them).
 */
public interface ReplicaLinks {
    /** Replicas online whose last acknowledgement is at most maxLagSeconds old (min-replicas-to-write). */
    int goodReplicas(long maxLagSeconds);

    /**
     * argv goes to the replicas only, after every write run so far: PUBLISH, which Redis
     * propagates to replicas (for their subscribers) and not to the AOF.
     */
    void toReplicasOnly(byte[][] argv);

    /**
     * Closes every replica's link (Redis's disconnectSlaves): the stream they follow changed its
     * id, or starts over, so they reconnect and learn where they stand (PSYNC).
     */
    void disconnectAll();

    /** Whether any replica is connected (in sync or not). */
    boolean hasReplicas();

    /** Whether every replica acknowledged the whole stream (Redis's isReadyToShutdown). */
    boolean inSync();

    /** Asks every replica for its offset now (REPLCONF GETACK into the stream). */
    void askForAcks();

    /** Logs, as a shutdown does, each replica behind the stream, and how many are in sync. */
    void logLagging();

    /** The stream's bytes queued for the replicas and not sent yet, which they share (the most any one has). */
    long pendingBytes();
}
