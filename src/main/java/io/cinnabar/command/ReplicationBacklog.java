package io.cinnabar.command;

/**
 * The last repl-backlog-size bytes of the replication stream, as Redis's repl_backlog: what a
 * replica that lost its link is sent after +CONTINUE instead of a full resynchronisation.
 * Offsets are Redis's: the stream's first byte is offset 1, and master_repl_offset is the last.
 */
public final class ReplicationBacklog {
    private byte[] ring;
    /** Where the next byte goes in ring, and how many of ring's bytes hold history. */
    private int next, histlen;
    /** master_repl_offset: the offset of the last byte appended. */
    private long end;

    ReplicationBacklog(int size, long offset) {
        ring = new byte[size];
        end = offset;
    }

    void append(byte[] part) {
        append(part, 0, part.length);
    }

    /** Appends len bytes of bytes from off. */
    void append(byte[] bytes, int off, int len) {
        end += len;
        int to = off + len;
        for (int i = Math.max(off, to - ring.length); i < to; ) {
            int n = Math.min(to - i, ring.length - next);
            System.arraycopy(bytes, i, ring, next, n);
            i += n;
            next = (next + n) % ring.length;
        }
        histlen = (int) Math.min(ring.length, (long) histlen + len);
    }

    /** repl_backlog_first_byte_offset: the offset of the oldest byte held. */
    public long firstByteOffset() {
        return end - histlen + 1;
    }

    public int histlen() {
        return histlen;
    }

    public int size() {
        return ring.length;
    }

    /** Whether the stream from offset on (the next byte a replica wants) is all here (addReplyReplicationBacklog's test). */
    public boolean holdsFrom(long offset) {
        return offset >= firstByteOffset() && offset <= end + 1;
    }

    /** The bytes from offset to the end of the stream; offset must be held. */
    public byte[] from(long offset) {
        int n = (int) (end + 1 - offset);
        byte[] out = new byte[n];
        int start = Math.floorMod(next - n, ring.length);
        int first = Math.min(n, ring.length - start);
        System.arraycopy(ring, start, out, 0, first);
        System.arraycopy(ring, 0, out, first, n - first);
        return out;
    }

    /** CONFIG SET repl-backlog-size: Redis's resizeReplicationBacklog keeps the newest history that fits. */
    void resize(int size) {
        if (size == ring.length) return;
        byte[] kept = from(end + 1 - Math.min(histlen, size));
        ring = new byte[size];
        next = 0;
        histlen = 0;
        end -= kept.length;
        append(kept);
    }
}
