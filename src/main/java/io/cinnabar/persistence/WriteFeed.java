package io.cinnabar.persistence;

/**
 * The stream of executed writes, in the form Redis propagates them: RESP arrays of commands, a
 * SELECT whenever the database changes, transactions wrapped in MULTI/EXEC by the caller. The
 * command thread appends; at the end of each round of work what accumulated is taken and handed
 * to the consumers: the AOF, and replicas through a {@link Tap} that sees every byte before it
 * is taken. Disabled — and then free — while nothing consumes it. Keyspace thread only.
 */
public final class WriteFeed {
    /** Which consumers an appended command is for (Redis's PROPAGATE_AOF and PROPAGATE_REPL). */
    public static final int TO_AOF = 1, TO_REPLICAS = 2, TO_ALL = TO_AOF | TO_REPLICAS;

    private static final int SHRINK_ABOVE = 1024 * 1024;
    private static final int INITIAL_CAPACITY = 16 * 1024;

    private RespCommandBuffer buf = new RespCommandBuffer(INITIAL_CAPACITY);
    /**
     * Arrays of taken rounds that their consumer wrote and gave back ({@link #recycle}, from any
     * thread): the next take hands the feed's own array over and goes on in one of these, where
     * it would copy the round out. Copying each handed round of SET -d 4096 -c 50 under appendfsync
     * everysec allocated 268 MB per 200k requests, a third of the values' own 838 MB.
     */
    private final java.util.concurrent.ArrayBlockingQueue<byte[]> spares = new java.util.concurrent.ArrayBlockingQueue<>(4);
    /** Bytes ever appended: the position consumers acknowledge (fsynced up to here...). */
    private long offset;
    private int selectedDb = -1;
    /** Whether the AOF consumes the feed, and whether replicas do (a tap is set). */
    private boolean aof;
    private Tap tap;
    /** Bytes up to this offset went to the tap. */
    private long tappedUpTo;
    /** Where a command for the replicas alone is encoded for the tap, out of the AOF's bytes. */
    private RespCommandBuffer replicasOnly;

    /** Sees the feed's bytes in order, each once: len bytes of bytes from off, ending at feed offset end. */
    public interface Tap {
        void bytes(byte[] bytes, int off, int len, long end);
    }

    public boolean enabled() {
        return aof || tap != null;
    }

    /** Starts or stops the feed for the AOF; a restarted feed begins with a SELECT. */
    public void enabled(boolean on) {
        aof = on;
        selectedDb = -1;
        if (!enabled()) buf.clear();
    }

    /** The consumer besides the AOF (replicas), or null for none; it first sees what is appended from now on. */
    public void tap(Tap t) {
        if (t != null && tap == null) {
            selectedDb = -1;
            tappedUpTo = offset;
        }
        tap = t;
        if (!enabled()) buf.clear();
    }

    /** Gives the tap what was appended since it last saw the feed. */
    public void flushTap() {
        if (tap == null || tappedUpTo >= offset) return;
        int n = (int) (offset - tappedUpTo);
        tap.bytes(buf.array(), buf.size() - n, n, offset);
        tappedUpTo = offset;
    }

    /** End of a round without the AOF: the tap has seen the bytes, which are then dropped. */
    public void dropPending() {
        flushTap();
        emptied();
    }

    /** The next command is preceded by a SELECT, whatever database the last one used (new AOF file). */
    public void forceSelect() {
        selectedDb = -1;
    }

    /** Total bytes appended since start-up. */
    public long offset() {
        return offset;
    }

    public boolean hasPending() {
        return !buf.isEmpty();
    }

    /** A round's bytes, the first length of bytes, which end at feed offset end. */
    public record Round(byte[] bytes, int length, long end) { }

    /**
     * The bytes appended since the last call, for the consumers; the feed starts empty again.
     * The array may be the feed's own: give it back with {@link #recycle} once written.
     */
    public Round takePending() {
        flushTap();
        int n = buf.size();
        byte[] spare = spares.poll();
        if (spare == null && n <= SHRINK_ABOVE) {
            Round copy = new Round(buf.toByteArray(), n, offset);
            emptied();
            return copy;
        }
        // A round past SHRINK_ABOVE leaves with its array, which emptied() would drop anyway.
        return new Round(buf.detach(spare != null ? spare : new byte[INITIAL_CAPACITY]), n, offset);
    }

    /** Takes back the array of a round taken and written; any thread. */
    public void recycle(byte[] array) {
        if (array.length >= INITIAL_CAPACITY && array.length <= SHRINK_ABOVE) spares.offer(array);
    }

    /**
     * Writes len bytes of an array from off, which end at feed offset end, and says whether it
     * did; the array is lent for the call only.
     */
    public interface PendingWriter {
        boolean write(byte[] bytes, int off, int len, long end);
    }

    /**
     * Offers the bytes appended since the last take to writer where they lie, without a copy
     * (the write of a round's commands on the command thread); true, and the feed starts empty
     * again, if it wrote them.
     */
    public boolean drainInPlace(PendingWriter writer) {
        flushTap();
        int lent = buf.size();
        if (!buf.writeTo(writer, offset)) return false;
        // Whatever the write's own callbacks appended meanwhile stays for the next take.
        if (buf.size() > lent) buf.discardFirst(lent); else emptied();
        return true;
    }

    private void emptied() {
        if (buf.size() > SHRINK_ABOVE) buf = new RespCommandBuffer(INITIAL_CAPACITY); else buf.clear();
    }

    /**
     * Appends argv as executed in database db for some consumers only (a script's redis.set_repl).
     * The bytes of one consumer are kept from the other; a SELECT one of them did not see makes
     * the next command select again.
     */
    public void append(int db, byte[][] argv, int targets) {
        boolean toAof = aof && (targets & TO_AOF) != 0, toReplicas = tap != null && (targets & TO_REPLICAS) != 0;
        if (toAof == aof && toReplicas == (tap != null)) {
            append(db, argv);
        } else if (toAof) {
            flushTap();
            int selected = selectedDb;
            append(db, argv);
            tappedUpTo = offset;
            if (selectedDb != selected) selectedDb = -1;
        } else if (toReplicas) {
            flushTap();
            if (replicasOnly == null) replicasOnly = new RespCommandBuffer(256);
            if (db != selectedDb) {
                replicasOnly.select(db);
                selectedDb = -1;
            }
            replicasOnly.command(argv);
            tap.bytes(replicasOnly.array(), 0, replicasOnly.size(), offset);
            replicasOnly.clear();
        }
    }

    /** Appends argv as executed in database db. */
    public void append(int db, byte[][] argv) {
        if (!enabled()) return;
        int before = buf.size();
        if (db != selectedDb) {
            selectedDb = db;
            buf.select(db);
        }
        buf.command(argv);
        offset += buf.size() - before;
    }
}
