package io.cinnabar.persistence.aof;

/** Redis's AOF_* load results (server.h); start-up exits on FAILED and OPEN_ERR. */
public enum AofLoadStatus {
    /** Everything was loaded. */
    OK,
    /** There is no AOF to load (no manifest entries and no Redis 6 file). */
    NOT_EXIST,
    /** The files exist but hold no bytes. */
    EMPTY,
    /** A file exists but cannot be opened. */
    OPEN_ERR,
    /** Bad format, unknown command, short read without aof-load-truncated, a missing file, I/O error. */
    FAILED,
    /** The last file ended in the middle of a command; it was cut back to the last whole one. */
    TRUNCATED
}
