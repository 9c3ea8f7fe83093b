package io.cinnabar.persistence.aof;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.persistence.RespCommandBuffer;
import io.cinnabar.util.DoubleFormat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes the commands that rebuild a data set, as Redis's rewriteAppendOnlyFileRio does for a
 * BASE file without RDB preamble: SELECT when the database changes, SET for strings, RPUSH / SADD /
 * ZADD / HMSET in commands of at most 64 items (AOF_REWRITE_ITEMS_PER_CMD), XADD and friends for
 * streams, PEXPIREAT for a TTL.
 * Feed it keys in snapshot order, then call {@link #finish()}. Single-threaded; it reads values
 * but never modifies them, so the caller must keep them unchanged while a key is being written.
 */
public final class AofRewriteEmitter {
    /** AOF_REWRITE_ITEMS_PER_CMD. */
    static final int ITEMS_PER_COMMAND = 64;
    private static final int FLUSH_AT = 64 * 1024;

    private static final byte[] SET = ascii("SET");
    private static final byte[] RPUSH = ascii("RPUSH");
    private static final byte[] SADD = ascii("SADD");
    private static final byte[] ZADD = ascii("ZADD");
    private static final byte[] HMSET = ascii("HMSET");
    private static final byte[] PEXPIREAT = ascii("PEXPIREAT");
    private static final byte[] XADD = ascii("XADD"), MAXLEN = ascii("MAXLEN"), ZERO = ascii("0"),
            XSETID = ascii("XSETID"), ENTRIESADDED = ascii("ENTRIESADDED"), MAXDELETEDID = ascii("MAXDELETEDID"),
            XGROUP = ascii("XGROUP"), CREATE = ascii("CREATE"), ENTRIESREAD = ascii("ENTRIESREAD"),
            CREATECONSUMER = ascii("CREATECONSUMER"), XCLAIM = ascii("XCLAIM"), TIME = ascii("TIME"),
            RETRYCOUNT = ascii("RETRYCOUNT"), JUSTID = ascii("JUSTID"), FORCE = ascii("FORCE");
    private static final byte[] FUNCTION = ascii("FUNCTION");
    private static final byte[] LOAD = ascii("LOAD");

    private final OutputStream out;
    private final RespCommandBuffer buf = new RespCommandBuffer(FLUSH_AT + 1024);
    private int selectedDb = -1;

    public AofRewriteEmitter(OutputStream out) {
        this.out = out;
    }

    /**
     * The {@code #TS:<unix seconds>} line Redis writes first when aof-timestamp-enabled is on.
     * Call before any key.
     */
    public void timestamp(long unixSeconds) throws IOException {
        buf.raw(ascii("#TS:" + unixSeconds + "\r\n"));
        flushIfFull();
    }

    /** FUNCTION LOAD of one library's code; Redis writes these before the keys. */
    public void functionLoad(byte[] code) throws IOException {
        buf.command(FUNCTION, LOAD, code);
        flushIfFull();
    }

    /**
     * One key.
     *
     * @param value      a {@code byte[]} string, a {@link ListValue}, {@link SetValue},
     *                   {@link HashValue}, {@link ZSetValue} or {@link StreamValue}
     * @param expireAtMs absolute expiry in unix milliseconds, or -1 for none
     * @throws IllegalArgumentException for a value type this emitter does not know
     */
    public void key(int db, byte[] key, Object value, long expireAtMs) throws IOException {
        if (db != selectedDb) {
            buf.select(db);
            selectedDb = db;
        }
        if (value instanceof byte[]) {
            buf.arrayHeader(3).bulk(SET).bulk(key).bulk((byte[]) value);
        } else if (value instanceof ListValue) {
            list(key, (ListValue) value);
        } else if (value instanceof SetValue) {
            set(key, (SetValue) value);
        } else if (value instanceof ZSetValue) {
            zset(key, (ZSetValue) value);
        } else if (value instanceof HashValue) {
            hash(key, (HashValue) value);
        } else if (value instanceof StreamValue) {
            stream(key, (StreamValue) value);
        } else {
            throw new IllegalArgumentException("AOF rewrite of " + (value == null ? "null" : value.getClass().getSimpleName())
                    + " values is not supported");
        }
        if (expireAtMs != -1) buf.arrayHeader(3).bulk(PEXPIREAT).bulk(key).bulk(expireAtMs);
        flushIfFull();
    }

    /** Writes out whatever is buffered and flushes the stream. */
    public void finish() throws IOException {
        buf.writeTo(out);
        buf.clear();
        out.flush();
    }

    private void list(byte[] key, ListValue list) throws IOException {
        Chunks c = new Chunks(RPUSH, key, list.size(), 1);
        ListValue.Cursor cur = list.cursorAtEnd(true);
        if (cur == null) return;
        do {
            c.item();
            buf.bulk(cur.buffer(), cur.offset(), cur.length());
            flushIfFull();
        } while (cur.next());
    }

    private void set(byte[] key, SetValue set) throws IOException {
        Chunks c = new Chunks(SADD, key, set.size(), 1);
        visiting(() -> set.forEach(member -> {
            c.item();
            buf.bulk(member);
            flushIfFullUnchecked();
        }));
    }

    private void zset(byte[] key, ZSetValue zset) throws IOException {
        Chunks c = new Chunks(ZADD, key, zset.size(), 2);
        visiting(() -> zset.forEach((member, score) -> {
            c.item();
            // rioWriteBulkDouble: "%.17g", which prints infinities as inf and -inf.
            buf.bulk(ascii(DoubleFormat.reply(score)));
            buf.bulk(member);
            flushIfFullUnchecked();
        }));
    }

    private void hash(byte[] key, HashValue hash) throws IOException {
        Chunks c = new Chunks(HMSET, key, hash.size(), 2);
        visiting(() -> hash.forEach((f, fOff, fLen, v, vOff, vLen) -> {
            c.item();
            buf.bulk(f, fOff, fLen);
            buf.bulk(v, vOff, vLen);
            flushIfFullUnchecked();
        }));
    }

    /**
     * As Redis's rewriteStreamObject: one XADD per entry (an empty stream is created by adding
     * and trimming one), XSETID with the counters, then per group XGROUP CREATE and one XCLAIM
     * per pending entry (XGROUP CREATECONSUMER for a consumer owning none).
     */
    private void stream(byte[] key, StreamValue s) throws IOException {
        if (s.length > 0) {
            visiting(() -> s.range(StreamId.MIN, StreamId.MAX, false, false, item -> {
                byte[][] fv = item.fieldsAndValues();
                buf.arrayHeader(3 + fv.length).bulk(XADD).bulk(key).bulk(item.id().toBytes());
                for (byte[] b : fv) buf.bulk(b);
                flushIfFullUnchecked();
                return true;
            }));
        } else {
            buf.command(XADD, key, MAXLEN, ZERO, ascii("0-1"), ascii("x"), ascii("y"));
        }
        buf.command(XSETID, key, s.lastId.toBytes(), ENTRIESADDED, ascii(Long.toString(s.entriesAdded)),
                MAXDELETEDID, s.maxDeletedId.toBytes());
        for (java.util.Map.Entry<byte[], StreamGroup> e : s.groups().entrySet()) {
            byte[] group = e.getKey();
            StreamGroup g = e.getValue();
            buf.command(XGROUP, CREATE, key, group, g.lastId.toBytes(), ENTRIESREAD, ascii(Long.toString(g.entriesRead)));
            for (StreamGroup.Consumer c : g.consumers.values()) {
                if (c.pel.isEmpty()) {
                    buf.command(XGROUP, CREATECONSUMER, key, group, c.name);
                    continue;
                }
                for (java.util.Map.Entry<StreamId, StreamGroup.Nack> p : c.pel.entrySet()) {
                    buf.command(XCLAIM, key, group, c.name, ZERO, p.getKey().toBytes(), TIME,
                            ascii(Long.toString(p.getValue().deliveryTime)), RETRYCOUNT,
                            ascii(Long.toString(p.getValue().deliveryCount)), JUSTID, FORCE);
                    flushIfFull();
                }
            }
        }
    }

    /** Runs a value visitor, which cannot throw checked exceptions, and rethrows its write failure. */
    private static void visiting(Runnable visit) throws IOException {
        try {
            visit.run();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Starts a new command every 64 items, sized for what is left, as Redis's rewrite*Object do. */
    private final class Chunks {
        private final byte[] command, key;
        private final int bulksPerItem;
        private long remaining;
        private int inCommand;

        Chunks(byte[] command, byte[] key, long items, int bulksPerItem) {
            this.command = command;
            this.key = key;
            this.remaining = items;
            this.bulksPerItem = bulksPerItem;
        }

        void item() {
            if (inCommand == 0) {
                long n = Math.min(ITEMS_PER_COMMAND, remaining);
                buf.arrayHeader(2 + n * bulksPerItem).bulk(command).bulk(key);
            }
            if (++inCommand == ITEMS_PER_COMMAND) inCommand = 0;
            remaining--;
        }
    }

    private void flushIfFull() throws IOException {
        if (buf.size() >= FLUSH_AT) {
            buf.writeTo(out);
            buf.clear();
        }
    }

    private void flushIfFullUnchecked() {
        try {
            flushIfFull();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
