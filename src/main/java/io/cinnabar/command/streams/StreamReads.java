package io.cinnabar.command.streams;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.StreamGroup;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * XREAD and XREADGROUP (xreadCommand). A call that finds nothing and may block waits on its keys
 * with the IDs it resolved ("$" becomes the stream's last ID then, as Redis records it); when a
 * key gets data the command runs again, and a retry answers as Redis's
 * serveClientsBlockedOnStreamKey does (that key only, default COUNT 1000, the group's errors).
 */
final class StreamReads {
    /** COUNT of a served blocked read that gave none (XREAD_BLOCKED_DEFAULT_COUNT). */
    private static final long BLOCKED_DEFAULT_COUNT = 1000;
    private static final StreamId GROUP_NEW = StreamId.MAX;

    private StreamReads() {
    }

    /** XREAD [COUNT n] [BLOCK ms] STREAMS key ... id ... / XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS ... */
    static void xread(Call c, boolean xreadgroup) {
        long timeout = -1, count = 0;
        int streamsArg = 0, streams = 0;
        boolean noack = false;
        byte[] groupName = null, consumerName = null;
        String cmd = c.argString(0);
        for (int i = 1; i < c.argCount(); i++) {
            int more = c.argCount() - i - 1;
            if (c.argIs(i, "BLOCK") && more > 0) {
                if (c.client().isScript()) {
                    throw new CommandError("ERR " + cmd + " command is not allowed with BLOCK option from scripts");
                }
                i++;
                timeout = c.longArg(i, "ERR timeout is not an integer or out of range");
                if (timeout < 0) throw new CommandError("ERR timeout is negative");
            } else if (c.argIs(i, "COUNT") && more > 0) {
                count = Math.max(0, c.longArg(++i));
            } else if (c.argIs(i, "STREAMS") && more > 0) {
                streamsArg = i + 1;
                streams = c.argCount() - streamsArg;
                if (streams % 2 != 0) {
                    throw new CommandError("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
                }
                streams /= 2;
                break;
            } else if (c.argIs(i, "GROUP") && more >= 2) {
                if (!xreadgroup) throw new CommandError("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                groupName = c.arg(i + 1);
                consumerName = c.arg(i + 2);
                i += 2;
            } else if (c.argIs(i, "NOACK")) {
                if (!xreadgroup) throw new CommandError("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                noack = true;
            } else {
                throw CommandError.syntax();
            }
        }
        if (streamsArg == 0) throw CommandError.syntax();
        if (xreadgroup && groupName == null) throw new CommandError("ERR Missing GROUP option for XREADGROUP");
        c.preventPropagation();
        boolean retry = c.isRetry();
        if (retry && count == 0) count = BLOCKED_DEFAULT_COUNT;

        StreamId[] ids = new StreamId[streams];
        boolean dollar = false;
        for (int k = 0; k < streams; k++) {
            int idArg = streamsArg + streams + k;
            byte[] key = c.arg(streamsArg + k);
            if (retry && !Arrays.equals(key, c.readyKey())) {
                // Served for the key that got data only; the others keep their recorded IDs.
                ids[k] = StreamId.MIN;
                continue;
            }
            StreamValue s = lookup(c, key, retry);
            if (groupName != null) {
                StreamGroup g = s == null ? null : s.group(groupName);
                if (g == null) {
                    if (retry) {
                        throw new CommandError(s == null ? "UNBLOCKED the stream key no longer exists"
                                : "NOGROUP the consumer group this client was blocked on no longer exists");
                    }
                    throw new CommandError("NOGROUP No such key '" + Streams.text(key) + "' or consumer group '"
                            + Streams.text(groupName) + "' in XREADGROUP with GROUP option");
                }
            }
            byte[] a = c.arg(idArg);
            if (BinaryText.cLength(a) == 1 && a[0] == '$') {
                if (xreadgroup) {
                    throw new CommandError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read "
                            + "the history of this consumer by specifying a proper ID, or use the > ID to get new "
                            + "messages. The $ ID would just return an empty result set.");
                }
                ids[k] = s == null ? StreamId.MIN : s.lastId;
                dollar = true;
            } else if (BinaryText.cLength(a) == 1 && a[0] == '>') {
                if (!xreadgroup) {
                    throw new CommandError("ERR The > ID can be specified only when calling XREADGROUP using the "
                            + "GROUP <group> <consumer> option.");
                }
                ids[k] = GROUP_NEW;
            } else {
                ids[k] = Streams.strictId(a);
            }
        }

        // Which keys have something to serve, before any reply is written (RESP2 wants the count first).
        List<Integer> served = new ArrayList<>();
        for (int k = 0; k < streams; k++) {
            if (retry && !Arrays.equals(c.arg(streamsArg + k), c.readyKey())) continue;
            StreamValue s = lookup(c, c.arg(streamsArg + k), retry);
            if (s == null) continue;
            StreamId gt = ids[k];
            if (retry) {
                // serveClientsBlockedOnStreamKey: served once the stream's last ID passed the one
                // waited for, even when nothing is left to read (XADD MAXLEN 0): an empty batch.
                if (s.lastId.compareTo(groupName == null ? gt : s.group(groupName).lastId) > 0) served.add(k);
            } else if (groupName != null) {
                if (!gt.equals(GROUP_NEW)) {
                    served.add(k);
                } else if (s.length > 0 && s.lastValidId().compareTo(deliveredBefore(c, s, groupName, streamsArg, ids, k, count)) > 0) {
                    served.add(k);
                }
            } else if (s.length > 0 && s.lastValidId().compareTo(gt) > 0) {
                served.add(k);
            }
        }
        Reply r = c.reply();
        if (!served.isEmpty()) {
            if (r.protocol() == 2) r.array(served.size()); else r.map(served.size());
            for (int k : served) {
                byte[] key = c.arg(streamsArg + k);
                if (r.protocol() == 2) r.array(2);
                r.bulk(key);
                if (groupName == null) {
                    StreamId start = ids[k].next();
                    Streams.entries(r, Streams.read(c, key), start == null ? StreamId.MAX : start, StreamId.MAX, count, false);
                } else {
                    StreamValue s = Streams.writeGroups(c, key);
                    serveGroup(c, key, s, groupName, consumerName, ids[k], count, noack);
                }
            }
            return;
        }
        if (timeout == -1 || !c.mayBlock()) {
            r.nullArray();
            return;
        }
        byte[][] keys = Arrays.copyOfRange(c.args(), streamsArg, streamsArg + streams);
        if (dollar) {
            // The retry must read after what was last when the client blocked, not what is last then.
            byte[][] args = c.args().clone();
            for (int k = 0; k < streams; k++) args[streamsArg + streams + k] = ids[k].toBytes();
            c.replaceArgs(args);
        }
        long deadline = timeout == 0 ? 0 : c.now() + timeout;
        if (xreadgroup) c.blockUntilDataOrGone(keys, deadline, Reply::nullArray); else c.block(keys, deadline, Reply::nullArray);
    }

    /**
     * The group's last delivered id as the k-th stream of an XREADGROUP will find it: Redis decides
     * stream by stream while serving, so a key named again with ">" only sees what the reads of it
     * before left (with COUNT, the next entries; without, nothing).
     */
    private static StreamId deliveredBefore(Call c, StreamValue s, byte[] groupName, int streamsArg, StreamId[] ids, int k, long count) {
        StreamId last = s.group(groupName).lastId;
        for (int j = 0; j < k; j++) {
            if (!ids[j].equals(GROUP_NEW) || !Arrays.equals(c.arg(streamsArg + j), c.arg(streamsArg + k))) continue;
            StreamId start = last.next();
            if (start == null) break;
            List<StreamValue.Item> items = s.items(start, StreamId.MAX, count, false);
            if (!items.isEmpty()) last = items.get(items.size() - 1).id();
        }
        return last;
    }

    /** The stream at key; a retry treats another type as no stream (Redis serves only streams then). */
    private static StreamValue lookup(Call c, byte[] key, boolean retry) {
        Object v = c.db().read(key);
        if (retry && v != null && !(v instanceof StreamValue)) return null;
        return Streams.asStream(v);
    }

    /** One key's reply for XREADGROUP: new entries (">") or the consumer's history. */
    private static void serveGroup(Call c, byte[] key, StreamValue s, byte[] groupName, byte[] consumerName,
                                   StreamId gt, long count, boolean noack) {
        StreamGroup g = s.group(groupName);
        StreamGroup.Consumer consumer = g.consumer(consumerName);
        if (consumer == null) {
            consumer = Streams.consumer(c, g, key, consumerName);
            if (noack) Streams.propagateConsumerCreation(c, key, groupName, consumerName);
        } else {
            consumer.seenTime = c.now();
        }
        Streams.changed(c, 1);
        Reply r = c.reply();
        if (!gt.equals(GROUP_NEW)) {
            history(c, r, s, consumer, gt.next() == null ? StreamId.MAX : gt.next(), count);
            return;
        }
        StreamId start = g.lastId.next();
        List<StreamValue.Item> items = s.items(start == null ? StreamId.MAX : start, StreamId.MAX, count, false);
        r.array(items.size());
        boolean propagateLastId = false;
        long now = c.now();
        for (StreamValue.Item item : items) {
            StreamId id = item.id();
            if (id.compareTo(g.lastId) > 0) {
                if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ && !s.rangeHasTombstones(id, null)) {
                    g.entriesRead++;
                } else if (s.entriesAdded != 0) {
                    g.entriesRead = s.estimateDistanceFromFirstEverEntry(id);
                }
                g.lastId = id;
                if (noack) propagateLastId = true;
            }
            Streams.entry(r, item);
            if (!noack) {
                // New entries lie past everything pending: no lookup for them.
                StreamGroup.Nack nack = g.pel.isEmpty() || id.compareTo(g.pel.lastKey()) > 0 ? null : g.pel.get(id);
                if (nack == null) {
                    nack = new StreamGroup.Nack(consumer, now, 1);
                    g.pel.put(id, nack);
                    consumer.pel.put(id, nack);
                } else {
                    g.assign(id, nack, consumer);
                    nack.deliveryTime = now;
                    nack.deliveryCount = 1;
                }
                Streams.propagateClaim(c, key, groupName, g, id, nack);
            }
        }
        if (propagateLastId) Streams.propagateGroupId(c, key, groupName, g);
    }

    /** The consumer's pending entries from start on (streamReplyWithRangeFromConsumerPEL). */
    private static void history(Call c, Reply r, StreamValue s, StreamGroup.Consumer consumer, StreamId start, long count) {
        List<Map.Entry<StreamId, StreamGroup.Nack>> pending = new ArrayList<>();
        for (Map.Entry<StreamId, StreamGroup.Nack> e : consumer.pel.tailMap(start, true).entrySet()) {
            if (count != 0 && pending.size() >= count) break;
            pending.add(e);
        }
        r.array(pending.size());
        for (Map.Entry<StreamId, StreamGroup.Nack> e : pending) {
            StreamValue.Item item = s.get(e.getKey());
            if (item == null) {
                r.array(2);
                r.bulk(e.getKey().toBytes());
                r.nullArray();
            } else {
                Streams.entry(r, item);
                e.getValue().deliveryTime = c.now();
                e.getValue().deliveryCount++;
            }
        }
    }
}
