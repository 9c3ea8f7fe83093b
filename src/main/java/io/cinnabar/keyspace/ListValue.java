package io.cinnabar.keyspace;

import io.cinnabar.util.Numbers;

import java.util.Arrays;
import java.util.List;

/**
 * A list value, stored like Redis's quicklist: a doubly linked list of nodes, each a packed byte
 * buffer of several elements, so pushes and pops at either end are O(1) and a small element costs
 * its bytes plus two length bytes. Each element is written as
 * {@code [length, LEB128][bytes][length, backwards varint]}: the trailing copy lets a node be
 * walked from its end as cheaply as from its start (listpack's backlen). Data of a node lives in
 * {@code buf[start, end)} with spare room kept at both ends, so prepending does not shift it.
 * <p>
 * Node size follows {@code list-max-listpack-size} as read when the list was created: negative
 * values cap the bytes of a node (-1 = 4 KB ... -5 = 64 KB), positive ones its element count
 * (within an 8 KB safety limit). A node always takes at least one element, however large.
 * Nodes split and merge where Redis's quicklist's do, so that DUMP and RDB files hold the same
 * listpacks: each node keeps the size its listpack would have, and inserts, splits and merges
 * follow quicklist.c's estimates of it (_quicklistNodeAllowInsert, _quicklistNodeAllowMerge).
 * Keyspace thread only; element bytes are copied in and out, never shared.
 */
public final class ListValue implements TypedValue {
    private static final int SIZE_SAFETY_LIMIT = 8192;
    /** quicklist.c's optimization_level: a node's listpack bytes for fills -1 to -5. */
    private static final int[] OPTIMIZATION_LEVEL = {4096, 8192, 16384, 32768, 65536};
    /** What _quicklistNodeAllowInsert adds to an element's length for its listpack entry's header and backlen. */
    private static final int SIZE_ESTIMATE_OVERHEAD = 8;
    /** An empty listpack: its 6-byte header and end byte. */
    private static final int LP_EMPTY = 7;
    private static final int FILL_MAX = 32767;
    private static final int MIN_CAPACITY = 16;

    private static final int COMPRESS_MAX = (1 << 16) - 1;

    private final int fill;
    /** list-compress-depth as the list was made with it: Redis keeps it per quicklist. */
    private final int compressDepth;
    /** Byte capacity a node may grow to: the listpack limit, or the safety limit in count mode. */
    private final int nodeBytes;
    private Node head, tail;
    private long size;
    private int nodeCount;
    /** Sum of the nodes' buffer lengths, kept as they change so memoryUsage is O(1). */
    private long bufferBytes;

    static final class Node {
        byte[] buf;
        int start, end;
        int count;
        /** The bytes of the listpack Redis would hold for this node (its node->sz). */
        int lpBytes = LP_EMPTY;
        Node prev, next;

        Node(int capacity, boolean front) {
            buf = new byte[capacity];
            start = end = front ? capacity : 0;
        }

        int used() {
            return end - start;
        }
    }

    /** An empty list whose nodes are sized by fill ({@code list-max-listpack-size}), not compressed. */
    public ListValue(long fill) {
        this(fill, 0);
    }

    /** An empty list with quicklistSetOptions's fill and compress depth ({@code list-compress-depth}). */
    public ListValue(long fill, long compressDepth) {
        this.compressDepth = (int) Math.min(COMPRESS_MAX, compressDepth);
        this.fill = (int) Math.max(-5, Math.min(FILL_MAX, fill));
        this.nodeBytes = this.fill < 0 ? 4096 << (-this.fill - 1) : SIZE_SAFETY_LIMIT;
    }

    @Override
    public ValueType type() {
        return ValueType.LIST;
    }

    @Override
    public String encoding() {
        // Redis 7.0 reports every list as a quicklist, however short.
        return "quicklist";
    }

    @Override
    public ListValue copy() {
        ListValue c = new ListValue(fill, compressDepth);
        for (Node n = head; n != null; n = n.next) {
            Node m = new Node(n.used(), false);
            System.arraycopy(n.buf, n.start, m.buf, 0, n.used());
            m.end = n.used();
            m.count = n.count;
            m.lpBytes = n.lpBytes;
            c.linkAfter(c.tail, m);
        }
        c.size = size;
        return c;
    }

    public long size() {
        return size;
    }

    /** list-max-listpack-size as the list was made with it (Redis's quicklist fill). */
    public int fill() {
        return fill;
    }

    /** list-compress-depth as the list was made with it (Redis's quicklist compress). */
    public int compressDepth() {
        return compressDepth;
    }

    /** Object, nodes and their buffers (spare room included, as a listpack's allocation). */
    @Override
    public long memoryUsage() {
        return 48 + 40L * nodeCount + bufferBytes;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Nodes in use (for tests and DEBUG-style introspection). */
    public int nodeCount() {
        return nodeCount;
    }

    /**
     * Receives the list node by node: RDB files hold one listpack per quicklist node, so the
     * writer needs the node boundaries, not only the elements.
     */
    public interface NodeVisitor<E extends Exception> {
        void node(int count) throws E;

        void element(byte[] buf, int off, int len) throws E;
    }

    /** Walks every node head to tail: node(count), then element(...) for each of its elements. */
    public <E extends Exception> void forEachNode(NodeVisitor<E> v) throws E {
        for (Node n = head; n != null; n = n.next) {
            v.node(n.count);
            for (int p = n.start; p < n.end; ) {
                int len = lengthAt(n.buf, p);
                int data = p + varintSize(len);
                v.element(n.buf, data, len);
                p = data + len + varintSize(len);
            }
        }
    }

    // ---- element encoding ----

    static int varintSize(int len) {
        if (len < 1 << 7) return 1;
        if (len < 1 << 14) return 2;
        if (len < 1 << 21) return 3;
        if (len < 1 << 28) return 4;
        return 5;
    }

    static int entrySize(int len) {
        return 2 * varintSize(len) + len;
    }

    /** Bytes of b[off, off+len) as a listpack entry (lpAppend's: an integer's encoding when it is one; backlen included). */
    static int lpEntrySize(byte[] b, int off, int len) {
        int encoded = StreamListpack.stringHeaderSize(len) + len;
        // Only what starts like a number is parsed: no scratch array for the usual element per push.
        if (len > 0 && len <= 20 && (b[off] == '-' || (b[off] >= '0' && b[off] <= '9'))) {
            long[] integer = new long[1];
            if (Numbers.parseLong(b, off, len, integer)) encoded = StreamListpack.encodedIntegerSize(integer[0]);
        }
        return encoded + StreamListpack.backlenSize(encoded);
    }

    /** lpEntrySize of the element whose entry starts at pos in n. */
    private static int lpEntrySizeAt(Node n, int pos) {
        int len = lengthAt(n.buf, pos);
        return lpEntrySize(n.buf, pos + varintSize(len), len);
    }

    private static int writeEntry(byte[] buf, int pos, byte[] v) {
        int len = v.length;
        for (int l = len; ; l >>>= 7) {
            if (l < 0x80) {
                buf[pos++] = (byte) l;
                break;
            }
            buf[pos++] = (byte) ((l & 0x7f) | 0x80);
        }
        System.arraycopy(v, 0, buf, pos, len);
        pos += len;
        int k = varintSize(len);
        for (int i = k - 1, l = len; i >= 0; i--, l >>>= 7) {
            buf[pos + i] = (byte) (i > 0 ? (l & 0x7f) | 0x80 : l & 0x7f);
        }
        return pos + k;
    }

    /** Length of the element whose entry starts at pos. */
    private static int lengthAt(byte[] buf, int pos) {
        int v = 0, shift = 0, b;
        do {
            b = buf[pos++];
            v |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return v;
    }

    /** Length of the element whose entry ends at end (exclusive). */
    private static int lengthBefore(byte[] buf, int end) {
        int v = 0, shift = 0, b;
        do {
            b = buf[--end];
            v |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return v;
    }

    // ---- nodes ----

    /** _quicklistNodeAllowInsert: whether n takes one more element of len bytes. */
    private boolean allowInsert(Node n, int len) {
        if (n == null) return false;
        if (n.count == 0) return true;
        return fits((long) n.lpBytes + len + SIZE_ESTIMATE_OVERHEAD, n.count + 1);
    }

    /** _quicklistNodeAllowMerge: whether adjacent nodes a and b may become one. */
    private boolean allowMerge(Node a, Node b) {
        if (a == null || b == null) return false;
        return fits((long) a.lpBytes + b.lpBytes - 11, a.count + b.count);
    }

    /** Whether a node of about bytes listpack bytes and count elements keeps within fill. */
    private boolean fits(long bytes, int count) {
        if (fill < 0) return bytes <= OPTIMIZATION_LEVEL[-fill - 1];
        return bytes <= SIZE_SAFETY_LIMIT && count <= fill;
    }

    private Node newNode(int entryBytes, boolean front) {
        int cap = Math.max(MIN_CAPACITY, entryBytes);
        if (cap < nodeBytes && entryBytes * 2 <= nodeBytes) cap = Math.max(cap, Math.min(nodeBytes, entryBytes * 2));
        return new Node(cap, front);
    }

    private void linkAfter(Node at, Node n) {
        n.prev = at;
        if (at == null) {
            n.next = head;
            if (head != null) head.prev = n;
            head = n;
        } else {
            n.next = at.next;
            if (at.next != null) at.next.prev = n;
            at.next = n;
        }
        if (n.next == null) tail = n;
        nodeCount++;
        bufferBytes += n.buf.length;
    }

    private void unlink(Node n) {
        if (n.prev != null) n.prev.next = n.next; else head = n.next;
        if (n.next != null) n.next.prev = n.prev; else tail = n.prev;
        n.prev = n.next = null;
        nodeCount--;
        bufferBytes -= n.buf.length;
    }

    /**
     * Makes sure node n has need free bytes at the front (side 0), the back (side 1), or anywhere
     * (side 2), growing its buffer geometrically up to the node limit and moving the data so
     * most spare room lies where the next writes are expected.
     */
    private void makeRoom(Node n, int need, int side) {
        int front = n.start, back = n.buf.length - n.end;
        if (side == 0 ? front >= need : side == 1 ? back >= need : front >= need || back >= need) return;
        int used = n.used();
        int required = used + need;
        int cap = n.buf.length;
        if (required > cap) {
            cap = Math.max(required, Math.min(Math.max(cap + (cap >> 1), MIN_CAPACITY), Math.max(nodeBytes, required)));
        }
        int slack = cap - used;
        int newStart = side == 0 ? slack - (slack - need) / 4 : side == 1 ? (slack - need) / 4 : need + (slack - need) / 2;
        if (cap != n.buf.length) {
            byte[] b = new byte[cap];
            System.arraycopy(n.buf, n.start, b, newStart, used);
            if (n.prev != null || n.next != null || head == n) bufferBytes += cap - n.buf.length;
            n.buf = b;
        } else {
            System.arraycopy(n.buf, n.start, n.buf, newStart, used);
        }
        n.start = newStart;
        n.end = newStart + used;
    }

    // ---- ends ----

    /** Adds v at the head (LPUSH) or the tail (RPUSH). */
    public void push(byte[] v, boolean atHead) {
        int es = entrySize(v.length);
        Node n = atHead ? head : tail;
        if (!allowInsert(n, v.length)) {
            n = newNode(es, atHead);
            linkAfter(atHead ? null : tail, n);
        }
        insertInto(n, atHead ? n.start : n.end, v);
    }

    /**
     * Appends a node holding elements, as they are, whatever fill says: RDB files and DUMP
     * payloads keep Redis's nodes (quicklistAppendListpack). Nothing when elements is empty.
     */
    public void appendNode(List<byte[]> elements) {
        if (elements.isEmpty()) return;
        int bytes = 0;
        for (byte[] v : elements) bytes += entrySize(v.length);
        Node n = newNode(bytes, false);
        linkAfter(tail, n);
        for (byte[] v : elements) insertInto(n, n.end, v);
    }

    /** Removes and returns the head or tail element; null when empty. */
    public byte[] pop(boolean atHead) {
        if (size == 0) return null;
        byte[] out;
        if (atHead) {
            Node n = head;
            int len = lengthAt(n.buf, n.start);
            int data = n.start + varintSize(len);
            out = Arrays.copyOfRange(n.buf, data, data + len);
            n.lpBytes -= lpEntrySize(n.buf, data, len);
            n.start += entrySize(len);
            removedFrom(n);
        } else {
            Node n = tail;
            int len = lengthBefore(n.buf, n.end);
            int data = n.end - varintSize(len) - len;
            out = Arrays.copyOfRange(n.buf, data, data + len);
            n.lpBytes -= lpEntrySize(n.buf, data, len);
            n.end -= entrySize(len);
            removedFrom(n);
        }
        return out;
    }

    private void removedFrom(Node n) {
        n.count--;
        size--;
        if (n.count == 0) unlink(n);
    }

    /** Removes count elements from the head (LTRIM, LPOP with a count). */
    public void trimHead(long count) {
        count = Math.min(count, size);
        while (count > 0) {
            Node n = head;
            if (n.count <= count) {
                count -= n.count;
                size -= n.count;
                unlink(n);
                continue;
            }
            int pos = n.start;
            for (long i = 0; i < count; i++) {
                n.lpBytes -= lpEntrySizeAt(n, pos);
                pos += entrySize(lengthAt(n.buf, pos));
            }
            n.start = pos;
            n.count -= (int) count;
            size -= count;
            count = 0;
        }
    }

    /** Removes count elements from the tail. */
    public void trimTail(long count) {
        count = Math.min(count, size);
        while (count > 0) {
            Node n = tail;
            if (n.count <= count) {
                count -= n.count;
                size -= n.count;
                unlink(n);
                continue;
            }
            int pos = n.end;
            for (long i = 0; i < count; i++) {
                pos -= entrySize(lengthBefore(n.buf, pos));
                n.lpBytes -= lpEntrySizeAt(n, pos);
            }
            n.end = pos;
            n.count -= (int) count;
            size -= count;
            count = 0;
        }
    }

    // ---- cursors ----

    /** A cursor on element index (0-based from the head, already normalized); null if out of range. */
    public Cursor cursor(long index) {
        if (index < 0 || index >= size) return null;
        Cursor c = new Cursor();
        if (index < size / 2) {
            long skipped = 0;
            Node n = head;
            while (skipped + n.count <= index) {
                skipped += n.count;
                n = n.next;
            }
            c.seek(n, (int) (index - skipped), index);
        } else {
            long after = size;
            Node n = tail;
            while (after - n.count > index) {
                after -= n.count;
                n = n.prev;
            }
            c.seek(n, (int) (index - (after - n.count)), index);
        }
        return c;
    }

    /** A cursor on the head element, or on the tail element; null when empty. */
    public Cursor cursorAtEnd(boolean atHead) {
        return size == 0 ? null : cursor(atHead ? 0 : size - 1);
    }

    /**
     * A position in the list, for scans in either direction. It stays usable across
     * {@link #remove} and {@link #insert} done through it; other changes invalidate it.
     */
    public final class Cursor {
        Node node;
        /** Offset of the entry's first byte in node.buf. */
        int pos;
        int len;
        int dataOffset;
        long index;

        void seek(Node n, int inNode, long index) {
            this.node = n;
            this.index = index;
            if (inNode < n.count / 2 + 1) {
                int p = n.start;
                for (int i = 0; i < inNode; i++) p += entrySize(lengthAt(n.buf, p));
                at(p);
            } else {
                int p = n.end;
                for (int i = n.count; i > inNode; i--) p -= entrySize(lengthBefore(n.buf, p));
                at(p);
            }
        }

        private void at(int p) {
            pos = p;
            len = lengthAt(node.buf, p);
            dataOffset = p + varintSize(len);
        }

        private void atEndingAt(int e) {
            int l = lengthBefore(node.buf, e);
            at(e - entrySize(l));
        }

        public byte[] buffer() {
            return node.buf;
        }

        public int offset() {
            return dataOffset;
        }

        public int length() {
            return len;
        }

        /** The element's index from the head. */
        public long index() {
            return index;
        }

        public boolean matches(byte[] v) {
            return v.length == len && Arrays.equals(node.buf, dataOffset, dataOffset + len, v, 0, len);
        }

        public byte[] toArray() {
            return Arrays.copyOfRange(node.buf, dataOffset, dataOffset + len);
        }

        /** Moves towards the tail; false (and unusable) past the last element. */
        public boolean next() {
            int p = dataOffset + len + varintSize(len);
            index++;
            if (p < node.end) {
                at(p);
                return true;
            }
            node = node.next;
            if (node == null) return false;
            at(node.start);
            return true;
        }

        /** Moves towards the head; false (and unusable) before the first element. */
        public boolean prev() {
            index--;
            if (pos > node.start) {
                atEndingAt(pos);
                return true;
            }
            node = node.prev;
            if (node == null) return false;
            atEndingAt(node.end);
            return true;
        }
    }

    /**
     * Removes the cursor's element and moves the cursor to the element that followed it (forward)
     * or preceded it; false when there is none in that direction.
     */
    public boolean remove(Cursor c, boolean forward) {
        Node n = c.node;
        int es = entrySize(c.len);
        n.lpBytes -= lpEntrySize(n.buf, c.dataOffset, c.len);
        int boundary;
        if (c.pos - n.start < n.end - (c.pos + es)) {
            System.arraycopy(n.buf, n.start, n.buf, n.start + es, c.pos - n.start);
            n.start += es;
            boundary = c.pos + es;
        } else {
            System.arraycopy(n.buf, c.pos + es, n.buf, c.pos, n.end - c.pos - es);
            n.end -= es;
            boundary = c.pos;
        }
        Node prev = n.prev, next = n.next;
        removedFrom(n);
        if (forward) {
            if (n.count > 0 && boundary < n.end) {
                c.at(boundary);
                return true;
            }
            c.node = n.count > 0 ? n.next : next;
            if (c.node == null) return false;
            c.at(c.node.start);
            return true;
        }
        c.index--;
        if (n.count > 0 && boundary > n.start) {
            c.atEndingAt(boundary);
            return true;
        }
        c.node = n.count > 0 ? n.prev : prev;
        if (c.node == null) return false;
        c.atEndingAt(c.node.end);
        return true;
    }

    /**
     * Inserts v before or after the cursor's element (LINSERT); the cursor becomes unusable. As
     * _quicklistInsert: into the cursor's node if it has room; at its edge, into the neighbour
     * the element would join if that has room, else into a node of its own; else the node is
     * split there, v joins the part split off, and the nodes around are merged where they may.
     */
    public void insert(Cursor c, byte[] v, boolean after) {
        Node n = c.node;
        int p = after ? c.pos + entrySize(c.len) : c.pos;
        if (allowInsert(n, v.length)) {
            insertInto(n, p, v);
        } else if (after && p == n.end && allowInsert(n.next, v.length)) {
            insertInto(n.next, n.next.start, v);
        } else if (!after && p == n.start && allowInsert(n.prev, v.length)) {
            insertInto(n.prev, n.prev.end, v);
        } else if ((after && p == n.end) || (!after && p == n.start)) {
            Node m = newNode(entrySize(v.length), !after);
            linkAfter(after ? n : n.prev, m);
            insertInto(m, m.start, v);
        } else {
            Node m = splitOff(n, p, after);
            linkAfter(after ? n : n.prev, m);
            insertInto(m, after ? m.start : m.end, v);
            mergeAround(n);
        }
    }

    /**
     * _quicklistSplitNode: a new node (not linked) with n's entries from p on (after) or before p,
     * which n no longer holds.
     */
    private Node splitOff(Node n, int p, boolean after) {
        int from = after ? p : n.start, to = after ? n.end : p;
        Node m = newNode(to - from, !after);
        makeRoom(m, to - from, after ? 1 : 0);
        if (after) {
            System.arraycopy(n.buf, from, m.buf, m.end, to - from);
            m.end += to - from;
            n.end = p;
        } else {
            m.start -= to - from;
            System.arraycopy(n.buf, from, m.buf, m.start, to - from);
            n.start = p;
        }
        for (int q = m.start; q < m.end; q += entrySize(lengthAt(m.buf, q))) {
            m.count++;
            m.lpBytes += lpEntrySizeAt(m, q);
        }
        n.count -= m.count;
        n.lpBytes -= m.lpBytes - LP_EMPTY;
        return m;
    }

    /** _quicklistMergeNodes: the two nodes before center, the two after, then center with either side. */
    private void mergeAround(Node center) {
        Node prev = center.prev, next = center.next;
        if (prev != null && allowMerge(prev, prev.prev)) merge(prev.prev, prev);
        if (next != null && allowMerge(next, next.next)) merge(next, next.next);
        Node target = allowMerge(center, center.prev) ? merge(center.prev, center) : center;
        if (allowMerge(target, target.next)) merge(target, target.next);
    }

    /** Moves b's entries to the end of a, the node before it, and drops b; returns a. */
    private Node merge(Node a, Node b) {
        int moved = b.used();
        makeRoom(a, moved, 1);
        System.arraycopy(b.buf, b.start, a.buf, a.end, moved);
        a.end += moved;
        a.count += b.count;
        a.lpBytes += b.lpBytes - LP_EMPTY;
        unlink(b);
        return a;
    }

    /** Replaces the element at index (which must exist) with v (LSET), in its node whatever its size (lpReplace). */
    public void set(long index, byte[] v) {
        Cursor c = cursor(index);
        Node n = c.node;
        int old = entrySize(c.len), es = entrySize(v.length);
        n.lpBytes += lpEntrySize(v, 0, v.length) - lpEntrySize(n.buf, c.dataOffset, c.len);
        int rel = c.pos - n.start;
        if (es > old) makeRoom(n, es - old, 1);
        int p = n.start + rel;
        System.arraycopy(n.buf, p + old, n.buf, p + es, n.end - p - old);
        n.end += es - old;
        writeEntry(n.buf, p, v);
    }

    /** Writes v into n at p (an entry boundary), whatever n's size. */
    private void insertInto(Node n, int p, byte[] v) {
        int es = entrySize(v.length);
        int rel = p - n.start;
        // Room where the next writes are expected: an empty node's at the side it was made for.
        boolean append = n.count == 0 ? n.start == 0 : p == n.end;
        makeRoom(n, es, append ? 1 : p == n.start ? 0 : 2);
        p = n.start + rel;
        boolean shiftFront = n.start >= es && (n.buf.length - n.end < es || rel < n.end - p);
        if (shiftFront) {
            System.arraycopy(n.buf, n.start, n.buf, n.start - es, rel);
            n.start -= es;
            p -= es;
        } else {
            System.arraycopy(n.buf, p, n.buf, p + es, n.end - p);
            n.end += es;
        }
        writeEntry(n.buf, p, v);
        n.count++;
        n.lpBytes += lpEntrySize(v, 0, v.length);
        size++;
    }
}
