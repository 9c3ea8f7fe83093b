package io.cinnabar.command.streams;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The consumer group commands: XGROUP's subcommands, XACK, XPENDING, XCLAIM, XAUTOCLAIM (t_stream.c). */
final class StreamGroupCommands {
    private StreamGroupCommands() {
    }

    private static String noGroup(byte[] group, byte[] key) {
        return "NOGROUP No such consumer group '" + Streams.text(group) + "' for key name '" + Streams.text(key) + "'";
    }

    private static String noKeyOrGroup(byte[] key, byte[] group) {
        return "NOGROUP No such key '" + Streams.text(key) + "' or consumer group '" + Streams.text(group) + "'";
    }

    // ---- XGROUP ----

    /** What every XGROUP subcommand with a key starts with (xgroupCommand's prelude). */
    private static final class GroupCall {
        StreamValue stream;
        StreamGroup group;
        boolean mkstream;
        long entriesRead = StreamGroup.INVALID_ENTRIES_READ;
    }

    private static GroupCall prelude(Call c, boolean needsGroup) {
        GroupCall g = new GroupCall();
        boolean create = c.argIs(1, "CREATE"), setid = c.argIs(1, "SETID");
        for (int i = 5; i < c.argCount(); ) {
            if (create && c.argIs(i, "MKSTREAM")) {
                g.mkstream = true;
                i++;
            } else if ((create || setid) && c.argIs(i, "ENTRIESREAD") && i + 1 < c.argCount()) {
                g.entriesRead = c.longArg(i + 1);
                if (g.entriesRead < 0 && g.entriesRead != StreamGroup.INVALID_ENTRIES_READ) {
                    throw new CommandError("ERR value for ENTRIESREAD must be positive or -1");
                }
                i += 2;
            } else {
                throw CommandError.subcommandSyntax(c.args());
            }
        }
        byte[] key = c.arg(2);
        g.stream = Streams.writeGroups(c, key);
        if (!g.mkstream) {
            if (g.stream == null) {
                throw new CommandError("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE "
                        + "you may want to use the MKSTREAM option to create an empty stream automatically.");
            }
            g.group = g.stream.group(c.arg(3));
            if (g.group == null && needsGroup) throw new CommandError(noGroup(c.arg(3), key));
        }
        return g;
    }

    /** XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read] */
    static void create(Call c) {
        GroupCall g = prelude(c, false);
        if (c.argCount() > 8) throw CommandError.subcommandSyntax(c.args());
        byte[] key = c.arg(2);
        StreamId id;
        byte[] a = c.arg(4);
        if (BinaryText.cLength(a) == 1 && a[0] == '$') {
            id = g.stream == null ? StreamId.MIN : g.stream.lastId;
        } else {
            id = Streams.strictId(c, 4);
        }
        StreamValue s = g.stream;
        if (s == null) {
            s = new StreamValue();
            c.db().set(key, s);
        }
        if (s.createGroup(c.arg(3), id, g.entriesRead) == null) {
            throw new CommandError("BUSYGROUP Consumer Group name already exists");
        }
        Streams.changed(c, 1);
        c.reply().ok();
        c.notify(KeyspaceEvents.STREAM, "xgroup-create", key);
    }

    /** XGROUP SETID key group id|$ [ENTRIESREAD entries-read] */
    static void setid(Call c) {
        GroupCall g = prelude(c, true);
        if (c.argCount() != 5 && c.argCount() != 7) throw CommandError.subcommandSyntax(c.args());
        byte[] a = c.arg(4);
        StreamId id = BinaryText.cLength(a) == 1 && a[0] == '$' ? g.stream.lastId : Streams.id(c, 4, 0);
        g.group.lastId = id;
        g.group.entriesRead = g.entriesRead;
        Streams.changed(c, 1);
        c.reply().ok();
        c.notify(KeyspaceEvents.STREAM, "xgroup-setid", c.arg(2));
    }

    /** XGROUP DESTROY key group */
    static void destroy(Call c) {
        GroupCall g = prelude(c, false);
        if (g.group == null) {
            c.reply().integer(0);
            return;
        }
        g.stream.destroyGroup(c.arg(3));
        Streams.changed(c, 1);
        c.reply().integer(1);
        c.notify(KeyspaceEvents.STREAM, "xgroup-destroy", c.arg(2));
        // Clients blocked on the group get their NOGROUP error now.
        c.signalReady(c.arg(2));
    }

    /** XGROUP CREATECONSUMER key group consumer */
    static void createConsumer(Call c) {
        GroupCall g = prelude(c, true);
        StreamGroup.Consumer created = g.group.createConsumer(c.arg(4), c.now());
        if (created != null) {
            Streams.changed(c, 1);
            c.notify(KeyspaceEvents.STREAM, "xgroup-createconsumer", c.arg(2));
        }
        c.reply().integer(created != null ? 1 : 0);
    }

    /** XGROUP DELCONSUMER key group consumer */
    static void delConsumer(Call c) {
        GroupCall g = prelude(c, true);
        StreamGroup.Consumer consumer = g.group.consumer(c.arg(4));
        long pending = 0;
        if (consumer != null) {
            pending = consumer.pel.size();
            g.group.deleteConsumer(consumer);
            Streams.changed(c, 1);
            c.notify(KeyspaceEvents.STREAM, "xgroup-delconsumer", c.arg(2));
        }
        c.reply().integer(pending);
    }

    /** XGROUP HELP */
    static void help(Call c) {
        HelpReply.reply(c,
                "CREATE <key> <groupname> <id|$> [option]",
                "    Create a new consumer group. Options are:",
                "    * MKSTREAM",
                "      Create the empty stream if it does not exist.",
                "    * ENTRIESREAD entries_read",
                "      Set the group's entries_read counter (internal use).",
                "CREATECONSUMER <key> <groupname> <consumer>",
                "    Create a new consumer in the specified group.",
                "DELCONSUMER <key> <groupname> <consumer>",
                "    Remove the specified consumer.",
                "DESTROY <key> <groupname>",
                "    Remove the specified group.",
                "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                "    Set the current group ID and entries_read counter.");
    }

    // ---- XACK / XPENDING ----

    /** XACK key group id [id ...] */
    static void xack(Call c) {
        StreamValue s = Streams.readThenWriteGroups(c, c.arg(1));
        StreamGroup g = s == null ? null : s.group(c.arg(2));
        if (g == null) {
            c.reply().integer(0);
            return;
        }
        StreamId[] ids = new StreamId[c.argCount() - 3];
        for (int j = 3; j < c.argCount(); j++) ids[j - 3] = Streams.strictId(c, j);
        int acknowledged = 0;
        for (StreamId id : ids) {
            StreamGroup.Nack nack = g.pel.get(id);
            if (nack == null) continue;
            g.acknowledge(id, nack);
            acknowledged++;
        }
        Streams.changed(c, acknowledged);
        c.reply().integer(acknowledged);
    }

    /** XPENDING key group [[IDLE min-idle-time] start end count [consumer]] */
    static void xpending(Call c) {
        int argc = c.argCount();
        if (argc != 3 && (argc < 6 || argc > 9)) throw CommandError.syntax();
        StreamId start = null, end = null;
        long count = 0, minIdle = 0;
        byte[] consumerName = null;
        if (argc >= 6) {
            int startIdx = 3;
            if (c.argIs(3, "IDLE")) {
                minIdle = c.longArg(4);
                if (argc < 8) throw CommandError.syntax();
                startIdx += 2;
            }
            count = Math.max(0, c.longArg(startIdx + 2));
            start = Streams.bound(c, startIdx, true);
            end = Streams.bound(c, startIdx + 1, false);
            if (startIdx + 3 < argc) consumerName = c.arg(startIdx + 3);
        }
        StreamValue s = Streams.read(c, c.arg(1));
        StreamGroup g = s == null ? null : s.group(c.arg(2));
        if (g == null) throw new CommandError(noKeyOrGroup(c.arg(1), c.arg(2)));
        Reply r = c.reply();
        if (argc == 3) {
            r.array(4);
            r.integer(g.pel.size());
            if (g.pel.isEmpty()) {
                r.nullBulk();
                r.nullBulk();
                r.nullArray();
                return;
            }
            r.bulk(g.pel.firstKey().toBytes());
            r.bulk(g.pel.lastKey().toBytes());
            List<StreamGroup.Consumer> owners = new ArrayList<>();
            for (StreamGroup.Consumer consumer : g.consumers.values()) if (!consumer.pel.isEmpty()) owners.add(consumer);
            r.array(owners.size());
            for (StreamGroup.Consumer consumer : owners) {
                r.array(2);
                r.bulk(consumer.name);
                r.bulk(Long.toString(consumer.pel.size()));
            }
            return;
        }
        Map<StreamId, StreamGroup.Nack> pel = g.pel;
        if (consumerName != null) {
            StreamGroup.Consumer consumer = g.consumer(consumerName);
            if (consumer == null) {
                r.emptyArray();
                return;
            }
            pel = consumer.pel;
        }
        long now = c.now();
        List<Map.Entry<StreamId, StreamGroup.Nack>> out = new ArrayList<>();
        if (start.compareTo(end) <= 0) {
            for (Map.Entry<StreamId, StreamGroup.Nack> e : ((java.util.NavigableMap<StreamId, StreamGroup.Nack>) pel).subMap(start, true, end, true).entrySet()) {
                if (out.size() >= count) break;
                if (minIdle != 0 && now - e.getValue().deliveryTime < minIdle) continue;
                out.add(e);
            }
        }
        r.array(out.size());
        for (Map.Entry<StreamId, StreamGroup.Nack> e : out) {
            StreamGroup.Nack nack = e.getValue();
            r.array(4);
            r.bulk(e.getKey().toBytes());
            r.bulk(nack.consumer.name);
            r.integer(Math.max(0, now - nack.deliveryTime));
            r.integer(nack.deliveryCount);
        }
    }

    // ---- XCLAIM / XAUTOCLAIM ----

    /** XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-ms] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id] */
    static void xclaim(Call c) {
        byte[] key = c.arg(1), groupName = c.arg(2);
        StreamValue s = Streams.readThenWriteGroups(c, key);
        StreamGroup g = s == null ? null : s.group(groupName);
        if (g == null) throw new CommandError(noKeyOrGroup(key, groupName));
        long minIdle = Math.max(0, c.longArg(4, "ERR Invalid min-idle-time argument for XCLAIM"));
        int j = 5;
        List<StreamId> ids = new ArrayList<>();
        for (; j < c.argCount(); j++) {
            StreamId id = StreamId.parse(c.arg(j), 0, true, null);
            if (id == null) break;
            ids.add(id);
        }
        int lastIdArg = j - 1;
        long now = c.now();
        long retryCount = -1, deliveryTime = -1;
        boolean force = false, justId = false;
        StreamId lastId = StreamId.MIN;
        for (; j < c.argCount(); j++) {
            boolean more = j + 1 < c.argCount();
            if (c.argIs(j, "FORCE")) {
                force = true;
            } else if (c.argIs(j, "JUSTID")) {
                justId = true;
            } else if (c.argIs(j, "IDLE") && more) {
                deliveryTime = now - c.longArg(++j, "ERR Invalid IDLE option argument for XCLAIM");
            } else if (c.argIs(j, "TIME") && more) {
                deliveryTime = c.longArg(++j, "ERR Invalid TIME option argument for XCLAIM");
            } else if (c.argIs(j, "RETRYCOUNT") && more) {
                retryCount = c.longArg(++j, "ERR Invalid RETRYCOUNT option argument for XCLAIM");
            } else if (c.argIs(j, "LASTID") && more) {
                lastId = Streams.strictId(c, ++j);
            } else {
                throw new CommandError("ERR Unrecognized XCLAIM option '" + c.quoted(j) + "'");
            }
        }
        c.preventPropagation();
        boolean propagateLastId = false;
        if (lastId.compareTo(g.lastId) > 0) {
            g.lastId = lastId;
            propagateLastId = true;
        }
        if (deliveryTime != -1) {
            if (deliveryTime < 0 || deliveryTime > now) deliveryTime = now;
        } else {
            deliveryTime = now;
        }
        StreamGroup.Consumer consumer = null;
        Reply r = c.reply();
        List<Object> claimed = new ArrayList<>();
        for (int k = 0; k <= lastIdArg - 5; k++) {
            StreamId id = ids.get(k);
            StreamGroup.Nack nack = g.pel.get(id);
            StreamValue.Item item = s.get(id);
            if (item == null) {
                if (nack != null) {
                    Streams.propagateClaim(c, key, groupName, g, c.arg(5 + k), nack);
                    propagateLastId = false;
                    Streams.changed(c, 1);
                    g.acknowledge(id, nack);
                }
                continue;
            }
            if (force && nack == null) {
                nack = new StreamGroup.Nack(null, now, 1); // streamCreateNACK counts one delivery; the claim adds its own
                g.pel.put(id, nack);
            }
            if (nack == null) continue;
            if (nack.consumer != null && minIdle != 0 && now - nack.deliveryTime < minIdle) continue;
            if (consumer == null) consumer = Streams.consumer(c, g, key, c.arg(3));
            g.assign(id, nack, consumer);
            nack.deliveryTime = deliveryTime;
            if (retryCount >= 0) nack.deliveryCount = retryCount;
            else if (!justId) nack.deliveryCount++;
            claimed.add(justId ? id : item);
            Streams.propagateClaim(c, key, groupName, g, c.arg(5 + k), nack);
            propagateLastId = false;
            Streams.changed(c, 1);
        }
        if (propagateLastId) {
            Streams.propagateGroupId(c, key, groupName, g);
            Streams.changed(c, 1);
        }
        replyClaimed(r, claimed);
    }

    private static void replyClaimed(Reply r, List<Object> claimed) {
        r.array(claimed.size());
        for (Object o : claimed) {
            if (o instanceof StreamId id) r.bulk(id.toBytes()); else Streams.entry(r, (StreamValue.Item) o);
        }
    }

    /** XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID] */
    static void xautoclaim(Call c) {
        byte[] key = c.arg(1), groupName = c.arg(2);
        long minIdle = Math.max(0, c.longArg(4, "ERR Invalid min-idle-time argument for XAUTOCLAIM"));
        StreamId start = Streams.bound(c, 5, true);
        long count = 100;
        boolean justId = false;
        for (int j = 6; j < c.argCount(); j++) {
            if (c.argIs(j, "COUNT") && j + 1 < c.argCount()) {
                count = c.longArg(j + 1, "ERR COUNT must be > 0");
                if (count < 1 || count > Long.MAX_VALUE / 16) throw new CommandError("ERR COUNT must be > 0");
                j++;
            } else if (c.argIs(j, "JUSTID")) {
                justId = true;
            } else {
                throw CommandError.syntax();
            }
        }
        StreamValue s = Streams.readThenWriteGroups(c, key);
        StreamGroup g = s == null ? null : s.group(groupName);
        if (g == null) throw new CommandError(noKeyOrGroup(key, groupName));
        c.preventPropagation();
        long attempts = count * 10;
        long now = c.now();
        StreamGroup.Consumer consumer = null;
        List<Object> claimed = new ArrayList<>();
        List<StreamId> deleted = new ArrayList<>();
        StreamId cursor = start;
        while (attempts-- > 0 && count > 0 && cursor != null) {
            Map.Entry<StreamId, StreamGroup.Nack> e = g.pel.ceilingEntry(cursor);
            if (e == null) {
                cursor = null;
                break;
            }
            StreamId id = e.getKey();
            StreamGroup.Nack nack = e.getValue();
            cursor = id.next();
            StreamValue.Item item = s.get(id);
            if (item == null) {
                Streams.propagateClaim(c, key, groupName, g, id, nack);
                Streams.changed(c, 1);
                g.acknowledge(id, nack);
                deleted.add(id);
                count--;
                continue;
            }
            if (minIdle != 0 && now - nack.deliveryTime < minIdle) continue;
            if (consumer == null) consumer = Streams.consumer(c, g, key, c.arg(3));
            g.assign(id, nack, consumer);
            nack.deliveryTime = now;
            if (!justId) nack.deliveryCount++;
            claimed.add(justId ? id : item);
            count--;
            Streams.propagateClaim(c, key, groupName, g, id, nack);
            Streams.changed(c, 1);
        }
        StreamId next = cursor == null ? null : g.pel.ceilingKey(cursor);
        Reply r = c.reply();
        r.array(3);
        r.bulk((next == null ? StreamId.MIN : next).toBytes());
        replyClaimed(r, claimed);
        r.array(deleted.size());
        for (StreamId id : deleted) r.bulk(id.toBytes());
    }
}
