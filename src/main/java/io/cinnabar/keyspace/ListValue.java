package io.cinnabar.keyspace;

import java.util.Arrays;

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
 * Keyspace thread only; element bytes are copied in and out, never shared.
 */
public final class ListValue implements TypedValue {
    private static final int SIZE_SAFETY_LIMIT = 8192;
    private static final int FILL_MAX = 32767;
    private static final int MIN_CAPACITY = 16;

    private final int fill;
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
        Node prev, next;

        Node(int capacity, boolean front) {
            buf = new byte[capacity];
            start = end = front ? capacity : 0;
        }

        int used() {
            return end - start;
        }
    }

    /** An empty list whose nodes are sized by fill ({@code list-max-listpack-size}). */
    public ListValue(long fill) {
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
        ListValue c = new ListValue(fill);
        for (Node n = head; n != null; n = n.next) {
            Node m = new Node(n.used(), false);
            System.arraycopy(n.buf, n.start, m.buf, 0, n.used());
            m.end = n.used();
            m.count = n.count;
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

    private boolean allowInsert(Node n, int entryBytes) {
        if (n == null) return false;
        if (n.count == 0) return true;
        long newSize = (long) n.used() + entryBytes;
        if (fill < 0) return newSize <= nodeBytes;
        return newSize <= SIZE_SAFETY_LIMIT && n.count < fill;
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
        if (atHead) {
            Node n = head;
            if (!allowInsert(n, es)) {
                n = newNode(es, true);
                linkAfter(null, n);
            }
            makeRoom(n, es, 0);
            n.start -= es;
            writeEntry(n.buf, n.start, v);
            n.count++;
        } else {
            Node n = tail;
            if (!allowInsert(n, es)) {
                n = newNode(es, false);
                linkAfter(tail, n);
            }
            makeRoom(n, es, 1);
            n.end = writeEntry(n.buf, n.end, v);
            n.count++;
        }
        size++;
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
            n.start += entrySize(len);
            removedFrom(n);
        } else {
            Node n = tail;
            int len = lengthBefore(n.buf, n.end);
            int data = n.end - varintSize(len) - len;
            out = Arrays.copyOfRange(n.buf, data, data + len);
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
            for (long i = 0; i < count; i++) pos += entrySize(lengthAt(n.buf, pos));
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
            for (long i = 0; i < count; i++) pos -= entrySize(lengthBefore(n.buf, pos));
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

    /** Inserts v before or after the cursor's element (LINSERT); the cursor becomes unusable. */
    public void insert(Cursor c, byte[] v, boolean after) {
        Node n = c.node;
        int p = after ? c.pos + entrySize(c.len) : c.pos;
        insertAt(n, p, v);
    }

    /** Inserts v so that it gets index (0..size). */
    public void insertAtIndex(long index, byte[] v) {
        if (index == size) {
            push(v, false);
        } else if (index == 0) {
            push(v, true);
        } else {
            Cursor c = cursor(index);
            insertAt(c.node, c.pos, v);
        }
    }

    /** Replaces the element at index (which must exist) with v (LSET). */
    public void set(long index, byte[] v) {
        Cursor c = cursor(index);
        if (entrySize(c.len) == entrySize(v.length)) {
            writeEntry(c.node.buf, c.pos, v);
            return;
        }
        remove(c, true);
        insertAtIndex(index, v);
    }

    private void insertAt(Node n, int p, byte[] v) {
        int es = entrySize(v.length);
        if (!allowInsert(n, es)) {
            if (p == n.end) {
                if (allowInsert(n.next, es)) {
                    insertAt(n.next, n.next.start, v);
                    return;
                }
                Node m = newNode(es, false);
                linkAfter(n, m);
                insertAt(m, m.start, v);
                return;
            }
            if (p == n.start) {
                if (allowInsert(n.prev, es)) {
                    insertAt(n.prev, n.prev.end, v);
                    return;
                }
                Node m = newNode(es, true);
                linkAfter(n.prev, m);
                insertAt(m, m.start, v);
                return;
            }
            // Split n at p: the entries from p on move to a new node right after it.
            Node m = newNode(Math.max(es, n.end - p), false);
            int moved = n.end - p;
            makeRoom(m, moved, 1);
            System.arraycopy(n.buf, p, m.buf, m.end, moved);
            m.end += moved;
            int cnt = 0;
            for (int q = p; q < n.end; q += entrySize(lengthAt(n.buf, q))) cnt++;
            m.count = cnt;
            n.count -= cnt;
            n.end = p;
            linkAfter(n, m);
            if (allowInsert(n, es)) {
                insertAt(n, n.end, v);
            } else if (allowInsert(m, es)) {
                insertAt(m, m.start, v);
            } else {
                Node k = newNode(es, false);
                linkAfter(n, k);
                insertAt(k, k.start, v);
            }
            return;
        }
        int rel = p - n.start;
        makeRoom(n, es, p == n.start ? 0 : p == n.end ? 1 : 2);
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
        size++;
    }
}
