package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stream (Redis's t_stream.c storage): entries packed in nodes, each a listpack in Redis's
 * exact format, keyed by the ID of its master entry (the first entry added to it). A node holds
 * a master entry (valid count, deleted count, the master field names) followed by entries whose
 * IDs are deltas from the master ID and whose field names are omitted when they equal the
 * master's. Deletion only flags an entry; a node goes when its last valid entry does. A sorted
 * map of nodes stands in for Redis's radix tree.
 */
public final class StreamValue implements TypedValue {
    static final int FLAG_DELETED = 1, FLAG_SAMEFIELDS = 2;
    /** Redis caps a node at 1 GB whatever stream-node-max-bytes says (STREAM_LISTPACK_MAX_SIZE). */
    public static final long LISTPACK_MAX_SIZE = 1L << 30;
    private static final int MAX_PREALLOCATE = 4096;

    final TreeMap<StreamId, StreamListpack> nodes = new TreeMap<>();
    /**
     * {@link #radixTreeNodes()} since the nodes last changed, -1 when it must be counted again: the
     * count walks every node (1.6 ms for a stream of 2M entries), and XINFO STREAM asks it each time.
     */
    private long raxNodes = -1;
    /**
     * What the nodes take ({@link #NODE_BYTES} each and their buffers), kept as they change:
     * memoryUsage runs before and after every write, and summing the nodes there made each XADD
     * to a long stream walk all of them.
     */
    private long nodeBytes;
    public long length;
    public StreamId lastId = StreamId.MIN;
    public StreamId firstId = StreamId.MIN;
    public StreamId maxDeletedId = StreamId.MIN;
    public long entriesAdded;
    /** Consumer groups by name in rax (unsigned byte) order; null until the first is created. */
    private TreeMap<byte[], StreamGroup> groups;

    /** One entry as read: its ID and its fields and values interleaved. */
    public record Item(StreamId id, byte[][] fieldsAndValues) {
    }

    /** Receives entries in iteration order; false stops the iteration. */
    public interface Visitor {
        boolean visit(Item item);
    }

    /**
     * Receives entries as their node holds them, without an object per entry or element: an
     * entry's ID and how many field/value pairs follow, then its fields and values in order.
     */
    public interface EntrySink {
        void entry(long ms, long seq, int pairs);

        void element(byte[] b, int off, int len);

        /** An element the node holds as an integer (its text is the decimal, as lpGet gives it). */
        void element(long integer);
    }

    /** Consumes the entry whose header a NodeReader has just read; false stops the iteration. */
    private interface ReaderVisitor {
        boolean visit(NodeReader r);
    }

    @Override
    public ValueType type() {
        return ValueType.STREAM;
    }

    @Override
    public String encoding() {
        return "stream";
    }

    @Override
    public StreamValue copy() {
        StreamValue s = new StreamValue();
        for (Map.Entry<StreamId, StreamListpack> e : nodes.entrySet()) s.putNode(e.getKey(), e.getValue().copy());
        s.length = length;
        s.lastId = lastId;
        s.firstId = firstId;
        s.maxDeletedId = maxDeletedId;
        s.entriesAdded = entriesAdded;
        if (groups != null) {
            s.groups = new TreeMap<>(Arrays::compareUnsigned);
            for (Map.Entry<byte[], StreamGroup> e : groups.entrySet()) s.groups.put(e.getKey(), e.getValue().copy());
        }
        return s;
    }

    @Override
    public long memoryUsage() {
        long m = 96 + nodeBytes;
        if (groups != null) {
            for (Map.Entry<byte[], StreamGroup> e : groups.entrySet()) m += e.getKey().length + e.getValue().memoryUsage();
        }
        return m;
    }

    public int nodeCount() {
        return nodes.size();
    }

    /**
     * The node count of the radix tree Redis would hold the node keys in (XINFO's
     * radix-tree-nodes): a compressed node for each run shared by all keys below a point, a
     * branching node where they part, and an empty node where each key ends.
     */
    public long radixTreeNodes() {
        if (raxNodes < 0) raxNodes = countRadixTreeNodes();
        return raxNodes;
    }

    private long countRadixTreeNodes() {
        if (nodes.isEmpty()) return 1;
        List<byte[]> keys = new ArrayList<>(nodes.size());
        for (StreamId id : nodes.keySet()) keys.add(id.encode());
        return raxSubtree(keys, 0, keys.size(), 0);
    }

    /** Nodes holding keys[lo, hi) (sorted, 16 bytes) from byte pos on. */
    private static long raxSubtree(List<byte[]> keys, int lo, int hi, int pos) {
        if (pos == 16) return 1;
        if (hi - lo == 1) return 2;
        byte[] first = keys.get(lo), last = keys.get(hi - 1);
        int p = pos;
        while (first[p] == last[p]) p++;
        long n = p > pos ? 2 : 1;
        for (int i = lo; i < hi; ) {
            int j = i;
            while (j < hi && keys.get(j)[p] == keys.get(i)[p]) j++;
            n += raxSubtree(keys, i, j, p + 1);
            i = j;
        }
        return n;
    }

    // ---- adding ----

    /**
     * Appends an entry of numFields field/value pairs from fv[from...] (streamAppendItem). The ID
     * is generated from nowMs when useId is null, taken as is when seqGiven, or given the next
     * sequence of its millisecond otherwise. Returns the new ID, or null when it would not be
     * greater than the last one (EDOM).
     */
    public StreamId append(byte[][] fv, int from, int numFields, StreamId useId, boolean seqGiven, long nowMs,
                           long nodeMaxBytes, long nodeMaxEntries) {
        StreamId id;
        if (useId != null) {
            if (seqGiven) {
                id = useId;
            } else if (lastId.ms == useId.ms) {
                if (lastId.seq == -1L) return null;
                id = new StreamId(lastId.ms, lastId.seq + 1);
            } else {
                id = useId;
            }
        } else if (Long.compareUnsigned(nowMs, lastId.ms) > 0) {
            id = new StreamId(nowMs, 0);
        } else {
            id = lastId.next();
            if (id == null) id = StreamId.MIN;
        }
        if (id.compareTo(lastId) <= 0) return null;

        long totalLength = 0;
        for (int i = 0; i < numFields * 2; i++) totalLength += fv[from + i].length;
        long[] scratch = new long[1];

        Map.Entry<StreamId, StreamListpack> tail = nodes.lastEntry();
        StreamListpack lp = tail == null ? null : tail.getValue();
        if (lp != null) {
            long maxBytes = nodeMaxBytes == 0 || nodeMaxBytes > LISTPACK_MAX_SIZE ? LISTPACK_MAX_SIZE : nodeMaxBytes;
            boolean full = lp.bytes() + totalLength >= maxBytes;
            if (!full && nodeMaxEntries != 0) {
                StreamListpack.Cursor c = new StreamListpack.Cursor(lp, StreamListpack.first());
                full = c.nextInt() + c.nextInt() >= nodeMaxEntries;
            }
            if (full) {
                int before = lp.buf.length;
                lp.shrinkToFit();
                nodeBytes += lp.buf.length - before;
                lp = null;
            }
        }
        StreamId master;
        int flags = 0;
        int before; // the node's buffer before this entry
        if (lp == null) {
            master = id;
            long prealloc = nodeMaxBytes > 0 && nodeMaxBytes < MAX_PREALLOCATE ? nodeMaxBytes : MAX_PREALLOCATE;
            lp = new StreamListpack((int) Math.max(prealloc, Math.min(totalLength + 64, LISTPACK_MAX_SIZE)));
            lp.appendInteger(1);
            lp.appendInteger(0);
            lp.appendInteger(numFields);
            for (int i = 0; i < numFields; i++) lp.appendString(fv[from + 2 * i], scratch);
            lp.appendInteger(0);
            putNode(master, lp);
            before = lp.buf.length;
            flags = FLAG_SAMEFIELDS;
        } else {
            before = lp.buf.length;
            master = tail.getKey();
            StreamListpack.Cursor c = new StreamListpack.Cursor(lp, StreamListpack.first());
            int countPos = c.pos;
            long count = c.nextInt();
            c.next();
            long masterFields = c.nextInt();
            if (masterFields == numFields) {
                int i = 0;
                while (i < masterFields && c.next().equalsBytes(fv[from + 2 * i])) i++;
                if (i == masterFields) flags = FLAG_SAMEFIELDS;
            }
            lp.replaceInteger(countPos, count + 1);
        }
        boolean same = flags == FLAG_SAMEFIELDS;
        lp.appendInteger(flags);
        lp.appendInteger(id.ms - master.ms);
        lp.appendInteger(id.seq - master.seq);
        if (!same) lp.appendInteger(numFields);
        for (int i = 0; i < numFields; i++) {
            if (!same) lp.appendString(fv[from + 2 * i], scratch);
            lp.appendString(fv[from + 2 * i + 1], scratch);
        }
        lp.appendInteger(numFields + 3 + (same ? 0 : numFields + 1));
        nodeBytes += lp.buf.length - before;
        length++;
        entriesAdded++;
        lastId = id;
        if (length == 1) firstId = id;
        return id;
    }

    // ---- reading a node ----

    /** Walks the entries of one node in order; fields are resolved against the master entry. */
    private static final class NodeReader {
        final StreamId master;
        final StreamListpack lp;
        final byte[][] masterFields;
        final int countPos, deletedPos, entriesStart;
        final StreamListpack.Cursor c;
        // the entry last read by read()
        int flagsPos, flags;
        long ms, seq;

        NodeReader(StreamId master, StreamListpack lp) {
            this.master = master;
            this.lp = lp;
            c = new StreamListpack.Cursor(lp, StreamListpack.first());
            countPos = c.pos;
            c.next();
            deletedPos = c.pos;
            c.next();
            int n = (int) c.nextInt();
            masterFields = new byte[n][];
            for (int i = 0; i < n; i++) masterFields[i] = c.next().bytes();
            c.next();
            entriesStart = c.pos;
        }

        boolean hasNext() {
            return !lp.isEnd(c.pos);
        }

        /** Reads the ID and flags of the entry at the cursor; the cursor stays on its fields. */
        void readHeader() {
            flagsPos = c.pos;
            flags = (int) c.nextInt();
            ms = master.ms + c.nextInt();
            seq = master.seq + c.nextInt();
        }

        /** After readHeader: the fields and values, cursor moved past the entry. */
        byte[][] readFields() {
            boolean same = (flags & FLAG_SAMEFIELDS) != 0;
            int n = same ? masterFields.length : (int) c.nextInt();
            byte[][] fv = new byte[2 * n][];
            for (int i = 0; i < n; i++) {
                fv[2 * i] = same ? masterFields[i] : c.next().bytes();
                fv[2 * i + 1] = c.next().bytes();
            }
            c.next();
            return fv;
        }

        /** After readHeader: hands the entry to the sink, cursor moved past it. */
        void sendFields(EntrySink sink) {
            boolean same = (flags & FLAG_SAMEFIELDS) != 0;
            int n = same ? masterFields.length : (int) c.nextInt();
            sink.entry(ms, seq, n);
            for (int i = 0; i < n; i++) {
                if (same) sink.element(masterFields[i], 0, masterFields[i].length); else sendElement(sink);
                sendElement(sink);
            }
            c.next();
        }

        private void sendElement(EntrySink sink) {
            c.next();
            if (c.isInt) sink.element(c.intValue); else sink.element(lp.buf, c.strOff, c.strLen);
        }

        /** After readHeader: moves past the entry without decoding it. */
        void skipFields() {
            boolean same = (flags & FLAG_SAMEFIELDS) != 0;
            long n = same ? masterFields.length : 2 * c.nextInt();
            c.skip(n + 1);
        }

        int compareTo(StreamId id) {
            return StreamId.compare(ms, seq, id.ms, id.seq);
        }
    }

    // ---- iterating ----

    /**
     * Visits the entries with start <= ID <= end, in order or reversed; tombstones only when
     * withTombstones (streamIterator).
     */
    public void range(StreamId start, StreamId end, boolean reverse, boolean withTombstones, Visitor v) {
        walk(start, end, reverse, withTombstones, r -> v.visit(new Item(new StreamId(r.ms, r.seq), r.readFields())));
    }

    /** How many entries start..end holds, at most limit (0 = no limit): what send then visits. */
    public long count(StreamId start, StreamId end, long limit, boolean reverse) {
        return send(start, end, limit, reverse, null);
    }

    /**
     * Hands the entries start..end, at most limit (0 = all), to the sink as their nodes hold them
     * (none with a null sink); returns how many there were.
     */
    public long send(StreamId start, StreamId end, long limit, boolean reverse, EntrySink sink) {
        long[] n = new long[1];
        walk(start, end, reverse, false, r -> {
            if (sink == null) r.skipFields(); else r.sendFields(sink);
            return ++n[0] != limit;
        });
        return n[0];
    }

    /**
     * Walks start..end for range, count and send: each entry's header is read, then the visitor
     * consumes its fields.
     */
    private void walk(StreamId start, StreamId end, boolean reverse, boolean withTombstones, ReaderVisitor v) {
        if (nodes.isEmpty() || start.compareTo(end) > 0) return;
        if (!reverse) {
            StreamId from = nodes.floorKey(start);
            if (from == null) from = nodes.firstKey();
            for (Map.Entry<StreamId, StreamListpack> e : nodes.tailMap(from, true).entrySet()) {
                if (e.getKey().compareTo(end) > 0) return;
                NodeReader r = new NodeReader(e.getKey(), e.getValue());
                while (r.hasNext()) {
                    r.readHeader();
                    if (r.compareTo(start) < 0 || (!withTombstones && (r.flags & FLAG_DELETED) != 0)) {
                        if (r.compareTo(end) > 0) return;
                        r.skipFields();
                        continue;
                    }
                    if (r.compareTo(end) > 0) return;
                    if (!v.visit(r)) return;
                }
            }
        } else {
            StreamId from = nodes.floorKey(end);
            if (from == null) return;
            for (Map.Entry<StreamId, StreamListpack> e : nodes.headMap(from, true).descendingMap().entrySet()) {
                NodeReader r = new NodeReader(e.getKey(), e.getValue());
                // Backwards as Redis's iterator goes: each entry ends with its element count (lp-count).
                for (int entryEnd = r.lp.end(); entryEnd > r.entriesStart; ) {
                    int countPos = r.lp.previous(entryEnd);
                    r.c.pos = countPos;
                    long elements = r.c.nextInt();
                    int flagsPos = countPos;
                    for (long i = 0; i < elements; i++) flagsPos = r.lp.previous(flagsPos);
                    entryEnd = flagsPos;
                    r.c.pos = flagsPos;
                    r.readHeader();
                    if (r.compareTo(start) < 0) return;
                    if (r.compareTo(end) > 0 || (!withTombstones && (r.flags & FLAG_DELETED) != 0)) continue;
                    if (!v.visit(r)) return;
                }
            }
        }
    }

    /** The entries start..end (count 0 = all), for replies. */
    public List<Item> items(StreamId start, StreamId end, long count, boolean reverse) {
        List<Item> out = new ArrayList<>();
        range(start, end, reverse, false, item -> {
            out.add(item);
            return count == 0 || out.size() < count;
        });
        return out;
    }

    /** The entry with this ID, null if absent or deleted. */
    public Item get(StreamId id) {
        Item[] found = new Item[1];
        range(id, id, false, false, item -> {
            found[0] = item;
            return false;
        });
        return found[0];
    }

    public boolean exists(StreamId id) {
        return get(id) != null;
    }

    /**
     * The first or last entry's ID (streamGetEdgeID); with no such entry, MAX for the first and
     * 0-0 for the last.
     */
    public StreamId edgeId(boolean first, boolean skipTombstones) {
        StreamId[] found = new StreamId[1];
        range(StreamId.MIN, StreamId.MAX, !first, !skipTombstones, item -> {
            found[0] = item.id();
            return false;
        });
        if (found[0] != null) return found[0];
        return first ? StreamId.MAX : StreamId.MIN;
    }

    /** The last valid entry's ID, 0-0 when empty (streamLastValidID). */
    public StreamId lastValidId() {
        return edgeId(false, true);
    }

    // ---- deleting ----

    /** Flags the entry as deleted (streamDeleteItem); true if it existed. */
    public boolean delete(StreamId id) {
        StreamId master = nodes.floorKey(id);
        if (master == null) return false;
        StreamListpack lp = nodes.get(master);
        NodeReader r = new NodeReader(master, lp);
        while (r.hasNext()) {
            r.readHeader();
            int cmp = r.compareTo(id);
            if (cmp > 0) return false;
            if (cmp == 0) {
                if ((r.flags & FLAG_DELETED) != 0) return false;
                removeAt(r);
                return true;
            }
            r.skipFields();
        }
        return false;
    }

    /** Marks the entry the reader just read as deleted; drops the node when it was its last valid one. */
    private void removeAt(NodeReader r) {
        StreamListpack lp = r.lp;
        // Flags are 0..3: a one-byte integer, rewritten in place.
        lp.buf[r.flagsPos] = (byte) (r.flags | FLAG_DELETED);
        StreamListpack.Cursor c = new StreamListpack.Cursor(lp, r.countPos);
        long count = c.nextInt();
        long deleted = c.nextInt();
        if (count == 1) {
            removeNode(r.master);
        } else {
            int before = lp.buf.length;
            lp.replaceInteger(r.countPos, count - 1);
            int deletedPos = new StreamListpack.Cursor(lp, r.countPos).next().pos;
            lp.replaceInteger(deletedPos, deleted + 1);
            nodeBytes += lp.buf.length - before;
        }
        length--;
    }

    /** How XADD/XTRIM trim (streamAddTrimArgs): MAXLEN or MINID, exact or approximate, with a work limit. */
    public record Trim(boolean byLength, long maxLen, StreamId minId, boolean approx, long limit) {
    }

    /** Removes entries from the head as trim says (streamTrim); returns how many went. */
    public long trim(Trim t) {
        long deleted = 0;
        while (!nodes.isEmpty()) {
            if (t.byLength() && length <= t.maxLen()) break;
            Map.Entry<StreamId, StreamListpack> head = nodes.firstEntry();
            NodeReader r = new NodeReader(head.getKey(), head.getValue());
            long entries = new StreamListpack.Cursor(r.lp, r.countPos).nextInt();
            if (t.limit() != 0 && deleted + entries > t.limit()) break;
            boolean removeNode;
            if (t.byLength()) {
                removeNode = length - entries >= t.maxLen();
            } else {
                removeNode = nodeLastId(head.getKey(), head.getValue()).compareTo(t.minId()) < 0;
            }
            if (removeNode) {
                removeNode(head.getKey());
                length -= entries;
                deleted += entries;
                continue;
            }
            if (t.approx()) break;
            long fromNode = 0;
            while (r.hasNext()) {
                r.readHeader();
                boolean stop = t.byLength() ? length <= t.maxLen() : r.compareTo(t.minId()) >= 0;
                if (stop) break;
                r.skipFields();
                if ((r.flags & FLAG_DELETED) == 0) {
                    r.lp.buf[r.flagsPos] = (byte) (r.flags | FLAG_DELETED);
                    fromNode++;
                    length--;
                }
            }
            deleted += fromNode;
            StreamListpack.Cursor c = new StreamListpack.Cursor(r.lp, r.countPos);
            c.next();
            long markedDeleted = c.nextInt();
            int before = r.lp.buf.length;
            r.lp.replaceInteger(r.countPos, entries - fromNode);
            int deletedPos = new StreamListpack.Cursor(r.lp, r.countPos).next().pos;
            r.lp.replaceInteger(deletedPos, markedDeleted + fromNode);
            nodeBytes += r.lp.buf.length - before;
            break;
        }
        if (length == 0) {
            firstId = StreamId.MIN;
        } else if (deleted > 0) {
            firstId = edgeId(true, true);
        }
        return deleted;
    }

    /** The ID of the node's last entry, tombstone or not (lpGetEdgeStreamID). */
    private static StreamId nodeLastId(StreamId master, StreamListpack lp) {
        NodeReader r = new NodeReader(master, lp);
        long ms = master.ms, seq = master.seq;
        while (r.hasNext()) {
            r.readHeader();
            ms = r.ms;
            seq = r.seq;
            r.skipFields();
        }
        return new StreamId(ms, seq);
    }

    // ---- consumer groups' arithmetic (t_stream.c) ----

    /** True if a deleted entry may lie in start..end (streamRangeHasTombstones); end null = open. */
    public boolean rangeHasTombstones(StreamId start, StreamId end) {
        if (length == 0 || maxDeletedId.isZero()) return false;
        if (firstId.compareTo(maxDeletedId) > 0) return false;
        StreamId e = end == null ? StreamId.MAX : end;
        StreamId s = start == null ? StreamId.MIN : start;
        return s.compareTo(maxDeletedId) <= 0 && maxDeletedId.compareTo(e) <= 0;
    }

    /** Entries read by a reader at id, when it can be known (streamEstimateDistanceFromFirstEverEntry). */
    public long estimateDistanceFromFirstEverEntry(StreamId id) {
        if (entriesAdded == 0) return 0;
        if (length == 0 && id.compareTo(lastId) < 1) return entriesAdded;
        int cmpLast = id.compareTo(lastId);
        if (cmpLast == 0) return entriesAdded;
        if (cmpLast > 0) return StreamGroup.INVALID_ENTRIES_READ;
        int cmpFirst = id.compareTo(firstId);
        if (maxDeletedId.isZero() || maxDeletedId.compareTo(firstId) < 0) {
            if (cmpFirst < 0) return entriesAdded - length;
            if (cmpFirst == 0) return entriesAdded - length + 1;
        }
        return StreamGroup.INVALID_ENTRIES_READ;
    }

    /** A group's lag, or null when it cannot be computed (streamReplyWithCGLag). */
    public Long lag(StreamGroup g) {
        if (entriesAdded == 0) return 0L;
        if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ && !rangeHasTombstones(g.lastId, null)) {
            return entriesAdded - g.entriesRead;
        }
        long read = estimateDistanceFromFirstEverEntry(g.lastId);
        return read == StreamGroup.INVALID_ENTRIES_READ ? null : entriesAdded - read;
    }

    // ---- consumer groups ----

    public StreamGroup group(byte[] name) {
        return groups == null ? null : groups.get(name);
    }

    /** Creates a group; null if one of that name exists. */
    public StreamGroup createGroup(byte[] name, StreamId lastDelivered, long entriesRead) {
        if (groups == null) groups = new TreeMap<>(Arrays::compareUnsigned);
        if (groups.containsKey(name)) return null;
        StreamGroup g = new StreamGroup(lastDelivered, entriesRead);
        groups.put(name, g);
        return g;
    }

    public boolean destroyGroup(byte[] name) {
        return groups != null && groups.remove(name) != null;
    }

    /** The groups by name, in rax order (empty map when there are none). */
    public Map<byte[], StreamGroup> groups() {
        return groups == null ? Map.of() : groups;
    }

    public int groupCount() {
        return groups == null ? 0 : groups.size();
    }

    // ---- persistence ----

    /** Visits each node's master ID and listpack bytes, in order (RDB saving). */
    public void forEachNode(java.util.function.BiConsumer<StreamId, byte[]> visitor) {
        for (Map.Entry<StreamId, StreamListpack> e : nodes.entrySet()) visitor.accept(e.getKey(), e.getValue().toBytes());
    }

    /** Adds a node read from a file; false if its key is a duplicate. */
    public boolean addLoadedNode(StreamId master, byte[] lp) {
        if (nodes.containsKey(master)) return false;
        putNode(master, new StreamListpack(lp));
        return true;
    }

    /** Heap bytes of a node besides its buffer: the map entry, the StreamListpack, the ID. */
    private static final int NODE_BYTES = 64;

    private void putNode(StreamId master, StreamListpack lp) {
        nodes.put(master, lp);
        nodeBytes += NODE_BYTES + lp.buf.length;
        raxNodes = -1;
    }

    private void removeNode(StreamId master) {
        nodeBytes -= NODE_BYTES + nodes.remove(master).buf.length;
        raxNodes = -1;
    }
}
