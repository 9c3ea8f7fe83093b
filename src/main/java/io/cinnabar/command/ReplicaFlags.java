package io.cinnabar.command;

/**
 * The bits of {@link Client#replicaFlags()}: what REPLCONF asked of a coming SYNC, and what the
 * SYNC made of the client (Redis's slave_capa, slave_req, CLIENT_REPL_RDBONLY and CLIENT_SLAVE).
 */
public final class ReplicaFlags {
    private ReplicaFlags() {}

    /** REPLCONF capa eof: takes a diskless payload ("$EOF:mark"). */
    public static final int CAPA_EOF = 1;
    /** REPLCONF rdb-only 1: wants the RDB and nothing after it (redis-cli --rdb). */
    public static final int RDB_ONLY = 2;
    /** REPLCONF rdb-filter-only functions: wants the function libraries only. */
    public static final int FUNCTIONS_ONLY = 4;
    /** Took SYNC or PSYNC: a replica (CLIENT LIST flag S, type replica, its output limit class). */
    public static final int SYNCING = 8;
    /** The master's connection on a replica, running the replication stream (Redis's CLIENT_MASTER: CLIENT LIST flag M). */
    public static final int MASTER = 16;
    /** REPLCONF capa psync2: understands "+CONTINUE <replid>". */
    public static final int CAPA_PSYNC2 = 32;
}
