package io.cinnabar.keyspace;

/**
 * Redis 7.0's lazy freeing (lazyfree.c) as the JVM does it. Redis hands a value whose free
 * effort passes 64 allocations (LAZYFREE_THRESHOLD) to a background thread because free()ing a
 * million allocations blocks its event loop. Here, taking a value out of the table already is
 * all the command thread ever pays: the collector reclaims unreachable objects without visiting
 * them (its work follows what stays live), concurrently. Handing the value to another thread
 * that nulls it out in slices would only add writes to dead memory; so the values Redis would
 * have freed lazily are counted as freed the moment they leave, and nothing is ever pending.
 * The policy flags mirror the lazyfree-lazy-* options for the deletions that happen inside the
 * keyspace (expiry, overwrites, eviction). Keyspace thread only.
 */
public final class LazyFree {
    /** Redis's LAZYFREE_THRESHOLD: values freeing fewer allocations are freed in place even when lazy. */
    static final int THRESHOLD = 64;

    /** lazyfree-lazy-expire, lazyfree-lazy-server-del, lazyfree-lazy-eviction. */
    public boolean lazyExpire, lazyServerDel, lazyEviction;
    private long freedObjects;

    /** INFO lazyfree_pending_objects: freeing is never left for later (see above). */
    public long pendingObjects() {
        return 0;
    }

    /** INFO lazyfreed_objects: values (and keys of flushed databases) Redis would have freed in the background. */
    public long freedObjects() {
        return freedObjects;
    }

    /** CONFIG RESETSTAT. */
    public void resetStats() {
        freedObjects = 0;
    }

    /** A value left the keyspace by a lazy path (UNLINK, DEL with lazyfree-lazy-user-del...): Redis's freeObjAsync. */
    public void dropped(Object value) {
        if (effort(value) > THRESHOLD) freedObjects++;
    }

    /** A database was emptied asynchronously (FLUSHALL/FLUSHDB ASYNC): Redis's emptyDbAsync counts its keys. */
    public void databaseDropped(long keys) {
        freedObjects += keys;
    }

    void expired(Object value) {
        if (lazyExpire) dropped(value);
    }

    void overwritten(Object value) {
        if (lazyServerDel) dropped(value);
    }

    /** An evicted value (for the eviction policy to call). */
    public void evicted(Object value) {
        if (lazyEviction) dropped(value);
    }

    /** Redis's lazyfreeGetFreeEffort: about how many allocations freeing the value takes. */
    static long effort(Object value) {
        if (value instanceof ListValue l) return l.nodeCount();
        if (value instanceof SetValue s) return s.isIntset() ? 1 : s.size();
        if (value instanceof ZSetValue z) return z.isListpack() ? 1 : z.size();
        if (value instanceof HashValue h) return h.isCompact() ? 1 : h.size();
        if (value instanceof StreamValue s) {
            long effort = s.nodeCount();
            // As Redis: every group and the first group's PEL entries, times the groups.
            if (s.groupCount() > 0) {
                StreamGroup first = s.groups().values().iterator().next();
                effort += (long) s.groupCount() * (1 + first.pel.size());
            }
            return effort;
        }
        return 1;
    }
}
