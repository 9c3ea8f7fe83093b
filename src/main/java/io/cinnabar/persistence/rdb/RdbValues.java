package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.BytesSet;
import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.IntSet;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.persistence.rdb.RdbFormatException.Kind;
import io.cinnabar.util.DoubleFormat;
import io.cinnabar.util.Numbers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.cinnabar.persistence.rdb.RdbType.*;

/**
 * Values to and from their RDB form. Writing follows Redis 7.0's rdbSaveObject for the encoding
 * the value has (compact encodings as one listpack or intset blob, the others element by
 * element). Reading accepts every value type Redis 7.0.15's rdbLoadObject does, except
 * module values, and gives the value the encoding Redis would give it after loading.
 */
public final class RdbValues {
    /** Presizing from a count read from the file stops here; growth handles the rest. */
    private static final int MAX_PRESIZE = 1 << 16;

    private RdbValues() {
    }

    /** The type byte Redis 7.0 writes for value in its current encoding. */
    public static int typeOf(Object value) {
        if (value instanceof byte[]) return STRING;
        if (value instanceof ListValue) return LIST_QUICKLIST_2;
        if (value instanceof SetValue s) return s.isIntset() ? SET_INTSET : SET;
        if (value instanceof ZSetValue z) return z.isListpack() ? ZSET_LISTPACK : ZSET_2;
        if (value instanceof HashValue h) return h.isCompact() ? HASH_LISTPACK : HASH;
        if (value instanceof StreamValue) return STREAM_LISTPACKS_2;
        throw new IllegalArgumentException("no RDB form for " + value.getClass().getName());
    }

    // ---- writing ----

    /** Writes value's body (not its type byte). */
    static void write(RdbOutput out, Object value) throws IOException {
        if (value instanceof byte[] s) {
            out.writeString(s);
        } else if (value instanceof ListValue l) {
            writeList(out, l);
        } else if (value instanceof SetValue s) {
            writeSet(out, s);
        } else if (value instanceof ZSetValue z) {
            writeZSet(out, z);
        } else if (value instanceof HashValue h) {
            writeHash(out, h);
        } else if (value instanceof StreamValue s) {
            RdbStreams.write(out, s);
        } else {
            throw new IllegalArgumentException("no RDB form for " + value.getClass().getName());
        }
    }

    /** One packed (listpack) node per list node, as Redis saves its quicklist. */
    private static void writeList(RdbOutput out, ListValue list) throws IOException {
        out.writeLength(list.nodeCount());
        forEachNodeListpack(list, node -> {
            out.writeLength(CONTAINER_PACKED);
            out.writeString(node);
        });
    }

    /** The listpacks of Redis's quicklist nodes for list, head to tail (DEBUG QUICKLIST, OBJECT). */
    public static List<byte[]> quicklistNodes(ListValue list) {
        List<byte[]> nodes = new ArrayList<>(list.nodeCount());
        forEachNodeListpack(list, nodes::add);
        return nodes;
    }

    private interface ListpackSink<E extends Exception> {
        void accept(byte[] listpack) throws E;
    }

    private static <E extends Exception> void forEachNodeListpack(ListValue list, ListpackSink<E> sink) throws E {
        NodeListpacks<E> nodes = new NodeListpacks<>(sink);
        list.forEachNode(nodes);
        nodes.finishNode();
    }

    private static final class NodeListpacks<E extends Exception> implements ListValue.NodeVisitor<E> {
        private final ListpackSink<E> sink;
        private Listpack.Builder node;

        NodeListpacks(ListpackSink<E> sink) {
            this.sink = sink;
        }

        @Override
        public void node(int count) throws E {
            finishNode();
            node = new Listpack.Builder();
        }

        @Override
        public void element(byte[] buf, int off, int len) {
            node.add(buf, off, len);
        }

        void finishNode() throws E {
            if (node != null) sink.accept(node.build());
            node = null;
        }
    }

    private static void writeSet(RdbOutput out, SetValue set) throws IOException {
        if (set.isIntset()) {
            out.writeString(IntsetBlob.encode(set.intset()));
            return;
        }
        List<byte[]> members = new ArrayList<>(set.size());
        set.forEach(members::add);
        out.writeLength(members.size());
        for (byte[] m : members) out.writeString(m);
    }

    /** A listpack-encoded sorted set as Redis holds it: member, score, ... (integral scores as integers). */
    public static byte[] listpack(ZSetValue z) {
        Listpack.Builder b = new Listpack.Builder();
        long[] integer = new long[1];
        z.forEach((member, score) -> {
            b.add(member);
            if (double2ll(score, integer)) {
                b.addInteger(integer[0]);
            } else {
                b.add(DoubleFormat.reply(score).getBytes(StandardCharsets.US_ASCII));
            }
        });
        return b.build();
    }

    /** A listpack-encoded hash as Redis holds it: field, value, ... */
    public static byte[] listpack(HashValue h) {
        Listpack.Builder b = new Listpack.Builder();
        h.forEach((f, fo, fl, v, vo, vl) -> {
            b.add(f, fo, fl);
            b.add(v, vo, vl);
        });
        return b.build();
    }

    private static void writeZSet(RdbOutput out, ZSetValue z) throws IOException {
        if (z.isListpack()) {
            out.writeString(listpack(z));
            return;
        }
        int n = z.size();
        out.writeLength(n);
        // Highest score first, as Redis does, so a loader inserting into a skiplist adds at the head.
        for (ZSetValue.Cursor c = z.at(n - 1); c.valid(); c.previous()) {
            out.writeString(c.member());
            out.writeBinaryDouble(c.score());
        }
    }

    private static void writeHash(RdbOutput out, HashValue h) throws IOException {
        if (h.isCompact()) {
            out.writeString(listpack(h));
            return;
        }
        byte[][] pairs = h.toPairs();
        out.writeLength(pairs.length / 2);
        for (byte[] item : pairs) out.writeString(item);
    }

    /**
     * Redis's double2ll: the score as a long when it is integral and within +-2^62, which is how
     * a listpack sorted set stores integral scores (as integers, not text).
     */
    static boolean double2ll(double d, long[] out) {
        if (d < -(double) (Long.MAX_VALUE / 2) || d > (double) (Long.MAX_VALUE / 2)) return false;
        long l = (long) d;
        if (l != d) return false;
        out[0] = l;
        return true;
    }

    // ---- reading ----

    /**
     * Reads a value of the given type. Returns null for an empty collection, which Redis skips
     * when loading a file ("rdbLoadObject skipping empty key") and refuses in RESTORE.
     */
    static Object read(RdbInput in, int type, RdbLoadOptions o) throws IOException {
        switch (type) {
            case STRING:
                return in.readString();
            case LIST:
                return readLinkedList(in, o);
            case SET:
                return readSet(in, o);
            case ZSET:
            case ZSET_2:
                return readZSet(in, o, type == ZSET_2);
            case HASH:
                return readHash(in, o);
            case LIST_QUICKLIST:
            case LIST_QUICKLIST_2:
                return readQuicklist(in, o, type == LIST_QUICKLIST_2);
            case HASH_ZIPMAP:
            case LIST_ZIPLIST:
            case SET_INTSET:
            case ZSET_ZIPLIST:
            case ZSET_LISTPACK:
            case HASH_ZIPLIST:
            case HASH_LISTPACK:
                return readBlobValue(in, type, in.readString(), o);
            case STREAM_LISTPACKS:
            case STREAM_LISTPACKS_2:
                return RdbStreams.read(in, type);
            case STREAM_LISTPACKS_3:
                throw new RdbFormatException(Kind.UNSUPPORTED_TYPE, in.offset(),
                        "Stream values (RDB type " + type + ") are not supported by Cinnabar yet");
            case MODULE:
            case MODULE_2:
                long id = in.readLength();
                throw new RdbFormatException(Kind.UNSUPPORTED_TYPE, in.offset(),
                        "The RDB file contains module data I can't load: no matching module type '"
                                + moduleName(id) + "' (RDB type " + type + ")");
            default:
                throw in.corrupt("Unknown RDB encoding type " + type);
        }
    }

    /** The 9-character module type name packed in a module id (Redis's moduleTypeNameByID). */
    static String moduleName(long id) {
        String charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char[] name = new char[9];
        id >>>= 10;
        for (int j = 0; j < 9; j++) {
            name[8 - j] = charset.charAt((int) (id & 63));
            id >>>= 6;
        }
        return new String(name);
    }

    private static int presize(long n) {
        return (int) Math.min(n, MAX_PRESIZE);
    }

    /** RDB_TYPE_LIST: a count and the elements (files before quicklists). */
    private static ListValue readLinkedList(RdbInput in, RdbLoadOptions o) throws IOException {
        long len = in.readCount();
        if (len == 0) return null;
        ListValue list = new ListValue(o.listMaxListpackSize(), o.listCompressDepth());
        for (long i = 0; i < len; i++) list.push(in.readString(), false);
        return list;
    }

    private static SetValue readSet(RdbInput in, RdbLoadOptions o) throws IOException {
        long len = in.readCount();
        if (len == 0) return null;
        long maxIntset = Math.min(o.setMaxIntsetEntries(), 1L << 30);
        SetValue set = len > maxIntset ? SetValue.hashtable(presize(len)) : SetValue.empty();
        for (long i = 0; i < len; i++) {
            if (!set.add(in.readString(), o.setMaxIntsetEntries())) throw in.corrupt("Duplicate set members detected");
        }
        return set;
    }

    private static ZSetValue readZSet(RdbInput in, RdbLoadOptions o, boolean binaryScores) throws IOException {
        long len = in.readCount();
        if (len == 0) return null;
        byte[][] members = new byte[presize(len)][];
        double[] scores = new double[members.length];
        BytesSet seen = new BytesSet(presize(len));
        long maxLength = 0, totalLength = 0;
        int n = 0;
        for (long i = 0; i < len; i++) {
            byte[] member = in.readString();
            double score = binaryScores ? in.readBinaryDouble() : in.readTextDouble();
            if (Double.isNaN(score)) throw in.corrupt("Zset with NAN score detected");
            if (!seen.add(member)) throw in.corrupt("Duplicate zset fields detected");
            if (n == members.length) {
                members = Arrays.copyOf(members, n * 2);
                scores = Arrays.copyOf(scores, n * 2);
            }
            members[n] = member;
            scores[n++] = score;
            maxLength = Math.max(maxLength, member.length);
            totalLength += member.length;
        }
        long maxEntries = totalLength > Listpack.MAX_SAFE_SIZE ? -1 : o.zsetMaxListpackEntries();
        return ZSetValue.build(members, scores, n, maxEntries, o.zsetMaxListpackValue());
    }

    private static HashValue readHash(RdbInput in, RdbLoadOptions o) throws IOException {
        long len = in.readCount();
        if (len == 0) return null;
        boolean table = len > o.hashMaxListpackEntries();
        BytesSet seen = !table && o.deepSanitize() ? new BytesSet() : null;
        byte[][] items = new byte[2 * presize(len)][];
        long totalLength = 0;
        int n = 0;
        for (long i = 0; i < len; i++) {
            byte[] field = in.readString();
            byte[] value = in.readString();
            if (seen != null && !seen.add(field)) throw in.corrupt("Hash with dup elements");
            if (field.length > o.hashMaxListpackValue() || value.length > o.hashMaxListpackValue()) table = true;
            totalLength += field.length + value.length;
            if (n == items.length) items = Arrays.copyOf(items, n * 2);
            items[n++] = field;
            items[n++] = value;
        }
        if (totalLength > Listpack.MAX_SAFE_SIZE) table = true;
        HashValue h = HashValue.loaded(items, n, !table);
        if (table && h.size() != n / 2) throw in.corrupt("Duplicate hash fields detected");
        return h;
    }

    private static ListValue readQuicklist(RdbInput in, RdbLoadOptions o, boolean listpackNodes) throws IOException {
        long nodes = in.readCount();
        if (nodes == 0) return null;
        ListValue list = new ListValue(o.listMaxListpackSize(), o.listCompressDepth());
        for (long i = 0; i < nodes; i++) {
            long container = CONTAINER_PACKED;
            if (listpackNodes) {
                container = in.readLength();
                if (container != CONTAINER_PACKED && container != CONTAINER_PLAIN) {
                    throw in.corrupt("Quicklist integrity check failed.");
                }
            }
            byte[] data = in.readString();
            if (data.length == 0) throw in.corrupt("Quicklist node of zero bytes");
            // Each node as it is (quicklistAppendListpack), not pushed again into nodes of this fill.
            List<byte[]> elements = new ArrayList<>();
            if (container == CONTAINER_PLAIN) {
                elements.add(data);
            } else if (listpackNodes) {
                if (Listpack.walk(data, collector(elements)) < 0) throw in.corrupt("Listpack integrity check failed.");
            } else if (Ziplist.walk(data, collector(elements)) < 0) {
                throw in.corrupt("Ziplist integrity check failed.");
            }
            list.appendNode(elements);
        }
        // Empty nodes are skipped silently; a list left with nothing is an empty key.
        return list.isEmpty() ? null : list;
    }

    private static Listpack.EntryVisitor listAppender(ListValue list) {
        return collecting(v -> list.push(v, false));
    }

    private static Listpack.EntryVisitor collector(List<byte[]> elements) {
        return collecting(elements::add);
    }

    /** A walker that gives each entry, as bytes, to sink. */
    private static Listpack.EntryVisitor collecting(java.util.function.Consumer<byte[]> sink) {
        return new Listpack.EntryVisitor() {
            @Override
            public boolean string(byte[] buf, int off, int len) {
                sink.accept(Arrays.copyOfRange(buf, off, off + len));
                return true;
            }

            @Override
            public boolean integer(long value) {
                sink.accept(Numbers.toBytes(value));
                return true;
            }
        };
    }

    /** The types stored as one blob: zipmap, ziplists, intset, listpacks. */
    private static Object readBlobValue(RdbInput in, int type, byte[] blob, RdbLoadOptions o) throws IOException {
        boolean deep = o.deepSanitize();
        switch (type) {
            case HASH_ZIPMAP: {
                EntryCollector c = new EntryCollector(2, true);
                if (Zipmap.walk(blob, c) < 0 || c.totalLength() > Listpack.MAX_SAFE_SIZE) {
                    throw in.corrupt("Zipmap integrity check failed.");
                }
                boolean table = c.size() / 2 > o.hashMaxListpackEntries() || c.maxLength() > o.hashMaxListpackValue();
                return HashValue.loaded(c.items(), c.size(), !table);
            }
            case LIST_ZIPLIST: {
                ListValue list = new ListValue(o.listMaxListpackSize(), o.listCompressDepth());
                if (Ziplist.walk(blob, listAppender(list)) < 0) throw in.corrupt("List ziplist integrity check failed.");
                return list.isEmpty() ? null : list;
            }
            case SET_INTSET: {
                IntSet ints = IntsetBlob.decode(blob, deep);
                if (ints == null) throw in.corrupt("Intset integrity check failed.");
                return SetValue.loadedIntset(ints, o.setMaxIntsetEntries());
            }
            case ZSET_ZIPLIST:
                return zsetFromPairs(in, o, blob, false, "Zset ziplist integrity check failed.");
            case ZSET_LISTPACK:
                return zsetFromPairs(in, o, blob, true, "Zset listpack integrity check failed.");
            case HASH_ZIPLIST:
                return hashFromPairs(in, o, blob, false, "Hash ziplist integrity check failed.");
            case HASH_LISTPACK:
                return hashFromPairs(in, o, blob, true, "Hash listpack integrity check failed.");
            default:
                throw in.corrupt("Unknown RDB encoding type " + type);
        }
    }

    /**
     * Walks a pair blob. Ziplists are always converted entry by entry in Redis, duplicates
     * included; listpacks are checked for duplicates only when sanitizing deeply.
     */
    private static EntryCollector pairs(RdbInput in, RdbLoadOptions o, byte[] blob, boolean listpack, String failure)
            throws RdbFormatException {
        EntryCollector c = new EntryCollector(2, !listpack || o.deepSanitize());
        int n = listpack ? Listpack.walk(blob, c) : Ziplist.walk(blob, c);
        if (n < 0 || (n & 1) != 0) throw in.corrupt(failure);
        return c;
    }

    private static ZSetValue zsetFromPairs(RdbInput in, RdbLoadOptions o, byte[] blob, boolean listpack, String failure)
            throws RdbFormatException {
        EntryCollector c = pairs(in, o, blob, listpack, failure);
        int n = c.size() / 2;
        if (n == 0) return null;
        byte[][] items = c.items();
        byte[][] members = new byte[n][];
        double[] scores = new double[n];
        for (int i = 0; i < n; i++) {
            members[i] = items[2 * i];
            scores[i] = Numbers.strtod(items[2 * i + 1]);
            if (Double.isNaN(scores[i])) throw in.corrupt(failure);
        }
        boolean skiplist = n > o.zsetMaxListpackEntries();
        if (skiplist && hasDuplicate(members, n)) throw in.corrupt(failure);
        return ZSetValue.build(members, scores, n, o.zsetMaxListpackEntries(), Long.MAX_VALUE);
    }

    private static HashValue hashFromPairs(RdbInput in, RdbLoadOptions o, byte[] blob, boolean listpack, String failure)
            throws RdbFormatException {
        EntryCollector c = pairs(in, o, blob, listpack, failure);
        int n = c.size();
        if (n == 0) return null;
        boolean table = n / 2 > o.hashMaxListpackEntries();
        HashValue h = HashValue.loaded(c.items(), n, !table);
        if (table && h.size() != n / 2) throw in.corrupt(failure);
        return h;
    }

    private static boolean hasDuplicate(byte[][] items, int n) {
        BytesSet seen = new BytesSet(n);
        for (int i = 0; i < n; i++) {
            if (!seen.add(items[i])) return true;
        }
        return false;
    }
}
