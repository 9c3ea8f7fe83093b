package io.cinnabar.command.streams;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.HelpReply;
import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.protocol.Reply;

import java.util.List;
import java.util.Map;

/** XINFO STREAM [FULL [COUNT n]] / GROUPS / CONSUMERS / HELP, with Redis 7.0.15's fields (xinfoCommand). */
final class StreamInfo {
    private StreamInfo() {
    }

    private static StreamValue stream(Call c, byte[] key) {
        StreamValue s = Streams.read(c, key);
        if (s == null) throw new CommandError("ERR no such key");
        return s;
    }

    /** XINFO CONSUMERS key group */
    static void consumers(Call c) {
        StreamValue s = stream(c, c.arg(2));
        StreamGroup g = s.group(c.arg(3));
        if (g == null) {
            throw new CommandError("NOGROUP No such consumer group '" + Streams.text(c.arg(3)) + "' for key name '"
                    + Streams.text(c.arg(2)) + "'");
        }
        Reply r = c.reply();
        long now = c.now();
        r.array(g.consumers.size());
        for (StreamGroup.Consumer consumer : g.consumers.values()) {
            r.map(3);
            r.bulk("name");
            r.bulk(consumer.name);
            r.bulk("pending");
            r.integer(consumer.pel.size());
            r.bulk("idle");
            r.integer(Math.max(0, now - consumer.seenTime));
        }
    }

    /** XINFO GROUPS key */
    static void groups(Call c) {
        StreamValue s = stream(c, c.arg(2));
        Reply r = c.reply();
        r.array(s.groupCount());
        for (Map.Entry<byte[], StreamGroup> e : s.groups().entrySet()) {
            StreamGroup g = e.getValue();
            r.map(6);
            r.bulk("name");
            r.bulk(e.getKey());
            r.bulk("consumers");
            r.integer(g.consumers.size());
            r.bulk("pending");
            r.integer(g.pel.size());
            r.bulk("last-delivered-id");
            r.bulk(g.lastId.toBytes());
            entriesReadAndLag(r, s, g);
        }
    }

    private static void entriesReadAndLag(Reply r, StreamValue s, StreamGroup g) {
        r.bulk("entries-read");
        if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ) r.integer(g.entriesRead); else r.nullBulk();
        r.bulk("lag");
        Long lag = s.lag(g);
        if (lag != null) r.integer(lag); else r.nullBulk();
    }

    /** XINFO HELP */
    static void help(Call c) {
        HelpReply.reply(c,
                "CONSUMERS <key> <groupname>",
                "    Show consumers of <groupname>.",
                "GROUPS <key>",
                "    Show the stream consumer groups.",
                "STREAM <key> [FULL [COUNT <count>]",
                "    Show information about the stream.");
    }

    /** XINFO STREAM key [FULL [COUNT count]] */
    static void stream(Call c) {
        // xinfoCommand looks the key up before the options are parsed: WRONGTYPE and "no such key" win.
        StreamValue s = stream(c, c.arg(2));
        int optc = c.argCount() - 3;
        boolean full = optc > 0;
        long count = 10;
        if (full) {
            if (optc != 1 && optc != 3) throw CommandError.subcommandSyntax(c.args());
            if (!c.argIs(3, "FULL")) throw CommandError.subcommandSyntax(c.args());
            if (optc == 3) {
                if (!c.argIs(4, "COUNT")) throw CommandError.subcommandSyntax(c.args());
                count = c.longArg(5);
                if (count < 0) count = 10;
            }
        }
        Reply r = c.reply();
        r.map(full ? 9 : 10);
        r.bulk("length");
        r.integer(s.length);
        r.bulk("radix-tree-keys");
        r.integer(s.nodeCount());
        r.bulk("radix-tree-nodes");
        r.integer(s.radixTreeNodes());
        r.bulk("last-generated-id");
        r.bulk(s.lastId.toBytes());
        r.bulk("max-deleted-entry-id");
        r.bulk(s.maxDeletedId.toBytes());
        r.bulk("entries-added");
        r.integer(s.entriesAdded);
        r.bulk("recorded-first-entry-id");
        r.bulk(s.firstId.toBytes());
        if (!full) {
            r.bulk("groups");
            r.integer(s.groupCount());
            r.bulk("first-entry");
            edgeEntry(r, s.items(StreamId.MIN, StreamId.MAX, 1, false));
            r.bulk("last-entry");
            edgeEntry(r, s.items(StreamId.MIN, StreamId.MAX, 1, true));
            return;
        }
        r.bulk("entries");
        Streams.entries(r, s.items(StreamId.MIN, StreamId.MAX, count, false));
        r.bulk("groups");
        r.array(s.groupCount());
        for (Map.Entry<byte[], StreamGroup> e : s.groups().entrySet()) fullGroup(r, s, e.getKey(), e.getValue(), count);
    }

    private static void edgeEntry(Reply r, List<StreamValue.Item> items) {
        if (items.isEmpty()) r.nullBulk(); else Streams.entry(r, items.get(0));
    }

    private static void fullGroup(Reply r, StreamValue s, byte[] name, StreamGroup g, long count) {
        r.map(7);
        r.bulk("name");
        r.bulk(name);
        r.bulk("last-delivered-id");
        r.bulk(g.lastId.toBytes());
        entriesReadAndLag(r, s, g);
        r.bulk("pel-count");
        r.integer(g.pel.size());
        r.bulk("pending");
        pending(r, g.pel, count, true);
        r.bulk("consumers");
        r.array(g.consumers.size());
        for (StreamGroup.Consumer consumer : g.consumers.values()) {
            r.map(4);
            r.bulk("name");
            r.bulk(consumer.name);
            r.bulk("seen-time");
            r.integer(consumer.seenTime);
            r.bulk("pel-count");
            r.integer(consumer.pel.size());
            r.bulk("pending");
            pending(r, consumer.pel, count, false);
        }
    }

    /** [id, consumer?, delivery-time, delivery-count] for up to count entries (0 = all). */
    private static void pending(Reply r, Map<StreamId, StreamGroup.Nack> pel, long count, boolean withConsumer) {
        long n = count == 0 ? pel.size() : Math.min(count, pel.size());
        r.array((int) n);
        long i = 0;
        for (Map.Entry<StreamId, StreamGroup.Nack> e : pel.entrySet()) {
            if (i++ >= n) break;
            StreamGroup.Nack nack = e.getValue();
            r.array(withConsumer ? 4 : 3);
            r.bulk(e.getKey().toBytes());
            if (withConsumer) r.bulk(nack.consumer.name);
            r.integer(nack.deliveryTime);
            r.integer(nack.deliveryCount);
        }
    }
}
