package io.cinnabar.persistence;

import java.util.function.Supplier;

/** The RDB snapshots' format: a new one per snapshot ({@link #get()}: dump.rdb's), or one for replicas. */
public interface RdbFormats extends Supplier<SnapshotFormat> {
    /**
     * What a replica's full sync receives: the replication aux fields (where, in the stream), and
     * nothing but the function libraries when functionsOnly (REPLCONF rdb-filter-only functions).
     */
    SnapshotFormat forReplicas(ReplicationPoint where, boolean functionsOnly);
}
