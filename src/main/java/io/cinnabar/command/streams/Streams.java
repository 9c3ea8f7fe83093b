package io.cinnabar.command.streams;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;

/** What the stream commands share: the typed lookups, ID arguments, entry replies and propagation. */
final class Streams {
    static final String INVALID_ID = "ERR Invalid stream ID specified as stream command argument";
    static final byte[] XCLAIM = ascii("XCLAIM"), XGROUP = ascii("XGROUP"), SETID = ascii("SETID"),
            CREATECONSUMER = ascii("CREATECONSUMER"), ENTRIESREAD = ascii("ENTRIESREAD"), TIME = ascii("TIME"),
            RETRYCOUNT = ascii("RETRYCOUNT"), FORCE = ascii("FORCE"), JUSTID = ascii("JUSTID"),
            LASTID = ascii("LASTID"), ZERO = ascii("0"), EQUALS = ascii("=");

    private Streams() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static String text(byte[] b) {
        return BinaryText.decode(b);
    }

    // ---- lookups ----

    static StreamValue asStream(Object v) {
        if (v == null || v instanceof StreamValue) return (StreamValue) v;
        throw WrongTypeException.INSTANCE;
    }

    static StreamValue read(Call c, byte[] key) {
        return asStream(c.db().read(key));
    }

    /** The stream for a command that may change it (copy-on-write for snapshots, WATCH). */
    static StreamValue write(Call c, byte[] key) {
        return asStream(c.db().write(key));
    }

    /**
     * The stream for a command that changes only its consumer groups or IDs (XGROUP, XREADGROUP,
     * XACK, XCLAIM, XSETID): as Redis, such changes count as changes (dirty, see {@link #changed})
     * but do not touch WATCH; a running snapshot still gets its copy first.
     */
    static StreamValue writeGroups(Call c, byte[] key) {
        io.cinnabar.keyspace.Entry e = c.db().lookupForWrite(key);
        return e == null ? null : asStream(e.value());
    }

    /** As {@link #writeGroups} for the commands Redis looks the key up for as a read (hits, misses, "keymiss"). */
    static StreamValue readThenWriteGroups(Call c, byte[] key) {
        return read(c, key) == null ? null : writeGroups(c, key);
    }

    static void changed(Call c, long n) {
        c.keyspace().dirty(n);
    }

    // ---- IDs ----

    /** An ID argument: "ms-seq" or "ms" (seq = missingSeq), "-" and "+" too (streamParseIDOrReply). */
    static StreamId id(Call c, int i, long missingSeq) {
        StreamId id = StreamId.parse(c.arg(i), missingSeq, false, null);
        if (id == null) throw new CommandError(INVALID_ID);
        return id;
    }

    /** As {@link #id} without "-" and "+" (streamParseStrictIDOrReply). */
    static StreamId strictId(Call c, int i) {
        return strictId(c.arg(i));
    }

    static StreamId strictId(byte[] arg) {
        StreamId id = StreamId.parse(arg, 0, true, null);
        if (id == null) throw new CommandError(INVALID_ID);
        return id;
    }

    /** A range bound: "(" makes it exclusive (streamParseIntervalIDOrReply), then moved inwards. */
    static StreamId bound(Call c, int i, boolean start) {
        byte[] a = c.arg(i);
        StreamId id;
        if (a.length > 1 && a[0] == '(') {
            id = StreamId.parse(java.util.Arrays.copyOfRange(a, 1, a.length), start ? 0 : -1L, true, null);
            if (id == null) throw new CommandError(INVALID_ID);
            id = start ? id.next() : id.previous();
            if (id == null) throw new CommandError(start ? "ERR invalid start ID for the interval" : "ERR invalid end ID for the interval");
        } else {
            id = id(c, i, start ? 0 : -1L);
        }
        return id;
    }

    // ---- replies ----

    /** [id, [field, value, ...]] */
    static void entry(Reply r, StreamValue.Item item) {
        byte[] id = item.id().toBytes();
        byte[][] fv = item.fieldsAndValues();
        entryHead(r, id, id.length, fv.length);
        for (byte[] b : fv) r.bulk(b);
    }

    /** An entry's reply up to its fields and values: [id, [ then that many elements. */
    private static void entryHead(Reply r, byte[] id, int idLength, int elements) {
        r.array(2);
        r.bulk(id, 0, idLength);
        r.array(elements);
    }

    static void entries(Reply r, java.util.List<StreamValue.Item> items) {
        r.array(items.size());
        for (StreamValue.Item item : items) entry(r, item);
    }

    /** The entries start..end, at most count (0 = all), replied from their nodes (XRANGE, XREAD). */
    static void entries(Reply r, StreamValue s, StreamId start, StreamId end, long count, boolean reverse) {
        long n = s.count(start, end, count, reverse);
        r.array((int) n);
        if (n > 0) s.send(start, end, n, reverse, new EntryReply(r));
    }

    /** Writes each entry as [id, [field, value, ...]]. */
    private static final class EntryReply implements StreamValue.EntrySink {
        private final Reply r;
        private final byte[] id = new byte[StreamId.MAX_TEXT_LENGTH];

        EntryReply(Reply r) {
            this.r = r;
        }

        @Override
        public void entry(long ms, long seq, int pairs) {
            entryHead(r, id, StreamId.write(ms, seq, id), 2 * pairs);
        }

        @Override
        public void element(byte[] b, int off, int len) {
            r.bulk(b, off, len);
        }

        @Override
        public void element(long integer) {
            r.bulk(integer);
        }
    }

    // ---- propagation (streamPropagateXCLAIM, streamPropagateGroupID, streamPropagateConsumerCreation) ----

    /** XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID LASTID group-last-id */
    static void propagateClaim(Call c, byte[] key, byte[] groupName, StreamGroup g, byte[] id, StreamGroup.Nack nack) {
        if (!c.propagates()) return;
        c.alsoPropagate(XCLAIM, key, groupName, nack.consumer.name, ZERO, id, TIME, number(nack.deliveryTime),
                RETRYCOUNT, number(nack.deliveryCount), FORCE, JUSTID, LASTID, g.lastId.toBytes());
    }

    /** As above, for an entry known by its ID: its text is made only if the claim goes anywhere. */
    static void propagateClaim(Call c, byte[] key, byte[] groupName, StreamGroup g, StreamId id, StreamGroup.Nack nack) {
        if (c.propagates()) propagateClaim(c, key, groupName, g, id.toBytes(), nack);
    }

    /** XGROUP SETID key group last-id ENTRIESREAD n */
    static void propagateGroupId(Call c, byte[] key, byte[] groupName, StreamGroup g) {
        c.alsoPropagate(XGROUP, SETID, key, groupName, g.lastId.toBytes(), ENTRIESREAD, number(g.entriesRead));
    }

    static void propagateConsumerCreation(Call c, byte[] key, byte[] groupName, byte[] consumer) {
        c.alsoPropagate(XGROUP, CREATECONSUMER, key, groupName, consumer);
    }

    static byte[] number(long n) {
        return Numbers.toBytes(n);
    }

    /** Creates the consumer if needed (streamCreateConsumer's event included), refreshing its seen time. */
    static StreamGroup.Consumer consumer(Call c, StreamGroup g, byte[] key, byte[] name) {
        StreamGroup.Consumer consumer = g.consumer(name);
        if (consumer != null) {
            consumer.seenTime = c.now();
            return consumer;
        }
        consumer = g.createConsumer(name, c.now());
        c.notify(io.cinnabar.command.KeyspaceEvents.STREAM, "xgroup-createconsumer", key);
        return consumer;
    }
}
