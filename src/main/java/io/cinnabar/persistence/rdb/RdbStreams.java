package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;

import java.io.IOException;
import java.util.Map;

import static io.cinnabar.persistence.rdb.RdbType.STREAM_LISTPACKS_2;

/**
 * Streams in RDB form (rdb.c, Redis 7.0.15): the nodes as they are in memory (16-byte master ID,
 * listpack), the stream's counters and IDs, then each consumer group with its PEL and consumers.
 * Written as RDB_TYPE_STREAM_LISTPACKS_2 (19); the older type 15 is read too, with the 7.0
 * fields derived as Redis derives them.
 */
final class RdbStreams {
    private RdbStreams() {
    }

    static void write(RdbOutput out, StreamValue s) throws IOException {
        out.writeLength(s.nodeCount());
        IOException[] failure = new IOException[1];
        s.forEachNode((master, lp) -> {
            if (failure[0] != null) return;
            try {
                out.writeString(master.encode());
                out.writeString(lp);
            } catch (IOException e) {
                failure[0] = e;
            }
        });
        if (failure[0] != null) throw failure[0];
        out.writeLength(s.length);
        writeId(out, s.lastId);
        writeId(out, s.firstId);
        writeId(out, s.maxDeletedId);
        out.writeLength(s.entriesAdded);
        out.writeLength(s.groupCount());
        for (Map.Entry<byte[], StreamGroup> e : s.groups().entrySet()) {
            StreamGroup g = e.getValue();
            out.writeString(e.getKey());
            writeId(out, g.lastId);
            out.writeLength(g.entriesRead);
            out.writeLength(g.pel.size());
            for (Map.Entry<StreamId, StreamGroup.Nack> p : g.pel.entrySet()) {
                byte[] raw = p.getKey().encode();
                out.write(raw, 0, raw.length);
                out.writeLittleEndian(p.getValue().deliveryTime, 8);
                out.writeLength(p.getValue().deliveryCount);
            }
            out.writeLength(g.consumers.size());
            for (StreamGroup.Consumer c : g.consumers.values()) {
                out.writeString(c.name);
                out.writeLittleEndian(c.seenTime, 8);
                out.writeLength(c.pel.size());
                for (StreamId id : c.pel.keySet()) {
                    byte[] raw = id.encode();
                    out.write(raw, 0, raw.length);
                }
            }
        }
    }

    private static void writeId(RdbOutput out, StreamId id) throws IOException {
        out.writeLength(id.ms);
        out.writeLength(id.seq);
    }

    private static StreamId readId(RdbInput in) throws IOException {
        long ms = in.readLength();
        return new StreamId(ms, in.readLength());
    }

    /** Reads a stream of type 15 or 19; null for an empty stream with nothing else (never written by Redis). */
    static StreamValue read(RdbInput in, int type) throws IOException {
        StreamValue s = new StreamValue();
        long nodes = in.readCount();
        while (nodes-- > 0) {
            byte[] key = in.readString();
            if (key.length != 16) throw in.corrupt("Stream node key entry is not the size of a stream ID");
            byte[] lp = in.readString();
            if (!StreamNodeCheck.valid(lp)) throw in.corrupt("Stream listpack integrity check failed.");
            if (Listpack.headerCount(lp) == 0) throw in.corrupt("Empty listpack inside stream");
            if (!s.addLoadedNode(StreamId.decode(key, 0), lp)) throw in.corrupt("Listpack re-added with existing key");
        }
        s.length = in.readLength();
        s.lastId = readId(in);
        if (type == STREAM_LISTPACKS_2) {
            s.firstId = readId(in);
            s.maxDeletedId = readId(in);
            s.entriesAdded = in.readLength();
        } else {
            s.entriesAdded = s.length;
            s.firstId = s.edgeId(true, true);
        }
        if (s.length != 0 && s.nodeCount() == 0) throw in.corrupt("Stream length inconsistent with rax entries");
        long groups = in.readCount();
        while (groups-- > 0) {
            byte[] name = in.readString();
            StreamId lastId = readId(in);
            long entriesRead = type == STREAM_LISTPACKS_2 ? in.readLength() : s.estimateDistanceFromFirstEverEntry(lastId);
            StreamGroup g = s.createGroup(name, lastId, entriesRead);
            if (g == null) throw in.corrupt("Duplicated consumer group name " + new String(name, java.nio.charset.StandardCharsets.UTF_8));
            long pel = in.readCount();
            while (pel-- > 0) {
                StreamId id = readRawId(in);
                long deliveryTime = in.readLittleEndian(8);
                long deliveryCount = in.readLength();
                if (g.pel.putIfAbsent(id, new StreamGroup.Nack(null, deliveryTime, deliveryCount)) != null) {
                    throw in.corrupt("Duplicated global PEL entry loading stream consumer group");
                }
            }
            long consumers = in.readCount();
            while (consumers-- > 0) {
                byte[] cname = in.readString();
                StreamGroup.Consumer c = g.createConsumer(cname, 0);
                if (c == null) throw in.corrupt("Duplicate stream consumer detected.");
                c.seenTime = in.readLittleEndian(8);
                long owned = in.readCount();
                while (owned-- > 0) {
                    StreamId id = readRawId(in);
                    StreamGroup.Nack nack = g.pel.get(id);
                    if (nack == null) throw in.corrupt("Consumer entry not found in group global PEL");
                    if (nack.consumer != null || c.pel.putIfAbsent(id, nack) != null) {
                        throw in.corrupt("Duplicated consumer PEL entry  loading a stream consumer group");
                    }
                    nack.consumer = c;
                }
            }
            for (StreamGroup.Nack nack : g.pel.values()) {
                if (nack.consumer == null) throw in.corrupt("Stream CG PEL entry without consumer");
            }
        }
        return s;
    }

    private static StreamId readRawId(RdbInput in) throws IOException {
        byte[] raw = new byte[16];
        in.readFully(raw, 0, 16);
        return StreamId.decode(raw, 0);
    }
}
