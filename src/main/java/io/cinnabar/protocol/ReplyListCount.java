package io.cinnabar.protocol;

/**
 * Redis's reply buffer and reply list for one client, as its output-buffer count sees them
 * (getClientOutputBufferMemoryUsage), fed the pieces Redis writes its replies in: each line
 * ("*3\r\n", "$5\r\n", "+OK\r\n"), each bulk payload, each CRLF after one. A piece fills the
 * 1 KB reply buffer while the list is empty, then the room left in the list's tail node, and
 * what remains goes to a new node allocated for at least 16 KB plus its 16-byte header. The count
 * is the nodes' allocations (as jemalloc sizes them, header excluded) plus 40 bytes each for the
 * list's bookkeeping. What the socket takes leaves from the front: the buffer, then node by node.
 * <p>
 * Measured against redis-server 7.0.15 (hard limits bisected, a client 0.4 s after connecting),
 * this gives Redis's thresholds exactly: one GET of 3,000 bytes 20,504, of 40,000 bytes 40,984;
 * three pipelined GETs of 30,000 bytes 90,184; five of 5,000 bytes 41,008. Not modelled: the
 * deferred-length replies (KEYS, SMEMBERS, XRANGE...) whose placeholder node Redis adds first.
 */
public final class ReplyListCount {
    /** The reply buffer after Redis's cron shrinks it (PROTO_REPLY_MIN_BYTES). */
    private static final long BUFFER = 1024;
    /** PROTO_REPLY_CHUNK_BYTES; sizeof(clientReplyBlock); sizeof(listNode) + sizeof(clientReplyBlock). */
    private static final long CHUNK = 16 * 1024, BLOCK_HEADER = 16, NODE_OVERHEAD = 40;

    private long bufferUsed, bufferSent;
    /** The list's nodes, a ring from head: their usable sizes and the bytes written into them. */
    private long[] sizes = new long[8], used = new long[8];
    private int head, count;
    /** Of the head node, the bytes already sent. */
    private long headSent;
    private long listedBytes;
    /** Bytes written and not yet sent. */
    private long unsent;

    /** What Redis counts against the limit. */
    public long counted() {
        return listedBytes + NODE_OVERHEAD * count;
    }

    public void reset() {
        bufferUsed = bufferSent = headSent = listedBytes = unsent = 0;
        head = count = 0;
    }

    /** The socket took all but pendingNow of the bytes written. */
    public void sentDownTo(long pendingNow) {
        if (pendingNow == 0) {
            reset();
            return;
        }
        long sent = unsent - pendingNow;
        if (sent <= 0) return;
        unsent = pendingNow;
        long fromBuffer = Math.min(sent, bufferUsed - bufferSent);
        bufferSent += fromBuffer;
        sent -= fromBuffer;
        if (bufferSent == bufferUsed) bufferUsed = bufferSent = 0;
        while (sent > 0 && count > 0) {
            long left = used[head] - headSent;
            if (sent < left) {
                headSent += sent;
                return;
            }
            sent -= left;
            listedBytes -= sizes[head];
            head = (head + 1) % sizes.length;
            count--;
            headSent = 0;
        }
    }

    /** Random access to encoded replies (a byte[], a Netty buffer). */
    @FunctionalInterface
    public interface ByteAt {
        byte at(int index);
    }

    /** Writes each piece of the whole RESP replies in bytes[from, to), in order. */
    public void writePieces(ByteAt bytes, int from, int to) {
        if (to - from <= room()) {
            write(to - from); // where it all fits, the pieces change nothing
            return;
        }
        int p = from;
        while (p < to) {
            int lineEnd = p;
            while (lineEnd < to && bytes.at(lineEnd) != '\n') lineEnd++;
            if (lineEnd == to) {
                write(to - p); // not RESP as expected: the rest as one piece
                return;
            }
            byte type = bytes.at(p);
            long payload = type == '$' || type == '=' || type == '!' ? parseLength(bytes, p + 1, lineEnd - 1) : -1;
            write(lineEnd + 1 - p);
            p = lineEnd + 1;
            if (payload >= 0) {
                int body = (int) Math.min(payload, to - p);
                write(body);
                p += body;
                int crlf = Math.min(2, to - p);
                write(crlf);
                p += crlf;
            }
        }
    }

    /** A bulk's length on its line between from and to (the '\r'); -1 for a null bulk or no number. */
    private static long parseLength(ByteAt bytes, int from, int to) {
        if (from >= to) return -1;
        long n = 0;
        for (int i = from; i < to; i++) {
            int d = bytes.at(i) - '0';
            if (d < 0 || d > 9) return -1;
            n = n * 10 + d;
        }
        return n;
    }

    /** What fits before a new node: the buffer's room while the list is empty, else the tail's. */
    private long room() {
        if (count == 0) return BUFFER - bufferUsed;
        int tail = (head + count - 1) % sizes.length;
        return sizes[tail] - used[tail];
    }

    /** One piece of len bytes behind the others: the buffer while the list is empty, the tail's room, a new node. */
    public void write(long len) {
        if (len <= 0) return;
        unsent += len;
        long fit = Math.min(len, room());
        if (count == 0) bufferUsed += fit;
        else used[(head + count - 1) % sizes.length] += fit;
        len -= fit;
        if (len > 0) addNode(nodeSize(len), len);
    }

    private void addNode(long size, long filled) {
        if (count == sizes.length) grow();
        int tail = (head + count) % sizes.length;
        sizes[tail] = size;
        used[tail] = filled;
        count++;
        listedBytes += size;
    }

    private void grow() {
        long[] s = new long[sizes.length * 2], u = new long[used.length * 2];
        for (int i = 0; i < count; i++) {
            s[i] = sizes[(head + i) % sizes.length];
            u[i] = used[(head + i) % used.length];
        }
        sizes = s;
        used = u;
        head = 0;
    }

    /** A node's usable size for len bytes: at least 16 KB, as jemalloc rounds it, its header excluded. */
    private static long nodeSize(long len) {
        long n = Math.max(len, CHUNK) + BLOCK_HEADER;
        // jemalloc's size classes past 16 KB: four per power of two.
        long step = Long.highestOneBit(n - 1) >> 2;
        return (n + step - 1) / step * step - BLOCK_HEADER;
    }
}
