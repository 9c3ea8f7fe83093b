package io.cinnabar.keyspace;

/**
 * Redis's dictScan cursor: buckets are visited in reverse-binary order, so a scan that starts
 * before a resize still visits every bucket an element present throughout can be in.
 */
final class ScanCursor {
    private ScanCursor() {}

    /** The cursor after the bucket {@code cursor & mask}; 0 when the scan is complete. */
    static long next(long cursor, long mask) {
        cursor |= ~mask;
        cursor = Long.reverse(cursor);
        cursor++;
        return Long.reverse(cursor);
    }
}
