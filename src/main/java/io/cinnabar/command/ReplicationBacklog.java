package io.cinnabar.command;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The last bytes of the replication stream, as Redis 7.0's repl_backlog keeps them: what a
 * replica that lost its link is sent after +CONTINUE instead of a full resynchronisation. Held
 * in blocks of 16 KB (up to a sixteenth of the backlog for a big write) that are dropped whole from the front once the rest
 * still holds repl-backlog-size bytes, and not before the offset a replica waiting for its
 * snapshot still needs ({@link #keepFrom}): like Redis's shared replication buffer, the backlog
 * then outgrows its size, and a replica may continue from anything it holds.
 * Offsets are Redis's: the stream's first byte is offset 1, and master_repl_offset is the last.
 */
public final class ReplicationBacklog {
    /** Redis's PROTO_REPLY_CHUNK_BYTES, the size of its replication buffer blocks. */
    private static final int BLOCK = 16 * 1024;

    private final ArrayDeque<byte[]> blocks = new ArrayDeque<>();
    /** Bytes used in the last block. */
    private int tailUsed;
    /** repl-backlog-size: the bytes kept when nothing asks for more. */
    private long size;
    /** The bytes held, from the first block's first one. */
    private long histlen;
    /** master_repl_offset: the offset of the last byte appended. */
    private long end;
    /** The oldest offset still wanted by a replica (Long.MAX_VALUE: none). */
    private long keepFrom = Long.MAX_VALUE;

    ReplicationBacklog(long size, long offset) {
        this.size = size;
        end = offset;
    }

    /** Appends len bytes of bytes from off. */
    void append(byte[] bytes, int off, int len) {
        while (len > 0) {
            byte[] tail = blocks.peekLast();
            if (tail == null || tailUsed == tail.length) {
                // As Redis's feedReplicationBuffer: no block under 16 KB, none over a sixteenth of the
                // backlog, so that trimming keeps it near its size.
                tail = new byte[(int) Math.min(Math.max(BLOCK, len), Math.max(BLOCK, Math.min(size / 16, Integer.MAX_VALUE - 8)))];
                blocks.addLast(tail);
                tailUsed = 0;
            }
            int n = Math.min(len, tail.length - tailUsed);
            System.arraycopy(bytes, off, tail, tailUsed, n);
            tailUsed += n;
            off += n;
            len -= n;
            histlen += n;
            end += n;
        }
        trim();
    }

    /**
     * Redis's incrementalTrimReplicationBacklog: the first block goes while the rest holds more
     * than the backlog's size and no replica still needs it; the last block always stays.
     */
    private void trim() {
        while (blocks.size() > 1) {
            int first = blocks.peekFirst().length;
            if (histlen - first <= size || firstByteOffset() + first > keepFrom) return;
            blocks.removeFirst();
            histlen -= first;
        }
    }

    /** The oldest offset a replica still needs, Long.MAX_VALUE for none: nothing from there on is dropped. */
    public void keepFrom(long offset) {
        keepFrom = offset;
        trim();
    }

    /** repl_backlog_first_byte_offset: the offset of the oldest byte held. */
    public long firstByteOffset() {
        return end - histlen + 1;
    }

    /** repl_backlog_histlen: the bytes held, which may pass the size while a replica needs them. */
    public long histlen() {
        return histlen;
    }

    /** The memory its blocks take (Redis's repl_buffer_mem, as far as the backlog holds it). */
    public long allocated() {
        long total = 0;
        for (byte[] b : blocks) total += b.length;
        return total;
    }

    /** repl-backlog-size. */
    public long size() {
        return size;
    }

    /** Whether the stream from offset on (the next byte a replica wants) is all here (addReplyReplicationBacklog's test). */
    public boolean holdsFrom(long offset) {
        return offset >= firstByteOffset() && offset <= end + 1;
    }

    /** Receives len bytes of bytes from off: a block's part, lent for the call only. */
    public interface Part {
        void accept(byte[] bytes, int off, int len);
    }

    /** The bytes from offset to the end of the stream, block by block; offset must be held. */
    public void from(long offset, Part out) {
        long skip = offset - firstByteOffset();
        Iterator<byte[]> it = blocks.iterator();
        while (it.hasNext()) {
            byte[] b = it.next();
            int used = it.hasNext() ? b.length : tailUsed;
            if (skip >= used) {
                skip -= used;
                continue;
            }
            out.accept(b, (int) skip, used - (int) skip);
            skip = 0;
        }
    }

    /** CONFIG SET repl-backlog-size: a smaller backlog drops its oldest blocks now, as Redis's resizeReplicationBacklog. */
    void resize(long size) {
        this.size = size;
        trim();
    }
}
