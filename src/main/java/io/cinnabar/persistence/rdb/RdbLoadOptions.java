package io.cinnabar.persistence.rdb;

/**
 * The configuration that decides the encoding of loaded values, as rdbLoadObject reads it from
 * the server: the caller fills it from config. {@code deepSanitize} is sanitize-dump-payload yes
 * (for RESTORE, and for files when the caller wants it): compact blobs are then also checked for
 * duplicate members and intsets for order, as Redis's *ValidateIntegrity(deep=1) do.
 * Structural checks of every blob are always on: the codec reads each entry to convert it.
 * {@code listMaxListpackSize} and {@code listCompressDepth} are the loaded lists' own options (what
 * quicklistSetOptions gives them), though Cinnabar's lists are not compressed in memory.
 */
public record RdbLoadOptions(long hashMaxListpackEntries, long hashMaxListpackValue, long zsetMaxListpackEntries,
                             long zsetMaxListpackValue, long setMaxIntsetEntries, int listMaxListpackSize,
                             int listCompressDepth, boolean deepSanitize) {
    /** Redis 7.0's defaults, sanitize-dump-payload no. */
    public static final RdbLoadOptions DEFAULTS = new RdbLoadOptions(512, 64, 128, 64, 512, -2, 0, false);

    public RdbLoadOptions withDeepSanitize(boolean deep) {
        return new RdbLoadOptions(hashMaxListpackEntries, hashMaxListpackValue, zsetMaxListpackEntries,
                zsetMaxListpackValue, setMaxIntsetEntries, listMaxListpackSize, listCompressDepth, deep);
    }
}
