package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consumer group (Redis's streamCG): the last delivered ID, the logical read counter, the
 * pending entries list and the consumers, which are kept in name order (rax order) as XINFO
 * lists them. A pending entry ({@link Nack}) is shared by the group's PEL and its consumer's.
 */
public final class StreamGroup {
    /** entries_read when it is not known (SCG_INVALID_ENTRIES_READ). */
    public static final long INVALID_ENTRIES_READ = -1;

    public StreamId lastId;
    public long entriesRead;
    public final TreeMap<StreamId, Nack> pel = new TreeMap<>();
    public final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);

    public StreamGroup(StreamId lastId, long entriesRead) {
        this.lastId = lastId;
        this.entriesRead = entriesRead;
    }

    /** A consumer of a group (streamConsumer); seenTime is the last time it was active. */
    public static final class Consumer {
        public final byte[] name;
        public long seenTime;
        public final TreeMap<StreamId, Nack> pel = new TreeMap<>();

        public Consumer(byte[] name, long seenTime) {
            this.name = name;
            this.seenTime = seenTime;
        }
    }

    /** A delivered, not yet acknowledged entry (streamNACK); consumer is null only while loading. */
    public static final class Nack {
        public long deliveryTime;
        public long deliveryCount;
        public Consumer consumer;

        public Nack(Consumer consumer, long deliveryTime, long deliveryCount) {
            this.consumer = consumer;
            this.deliveryTime = deliveryTime;
            this.deliveryCount = deliveryCount;
        }
    }

    public Consumer consumer(byte[] name) {
        return consumers.get(name);
    }

    /** Creates the consumer; null if one of that name exists. */
    public Consumer createConsumer(byte[] name, long now) {
        if (consumers.containsKey(name)) return null;
        Consumer c = new Consumer(name, now);
        consumers.put(name, c);
        return c;
    }

    /** Removes the consumer and its pending entries from the group (streamDelConsumer). */
    public void deleteConsumer(Consumer c) {
        for (StreamId id : c.pel.keySet()) pel.remove(id);
        consumers.remove(c.name);
    }

    /** Drops a pending entry from the group's and its owner's PEL. */
    public void acknowledge(StreamId id, Nack nack) {
        pel.remove(id);
        if (nack.consumer != null) nack.consumer.pel.remove(id);
    }

    /** Gives a pending entry to consumer (it leaves its previous owner's PEL). */
    public void assign(StreamId id, Nack nack, Consumer to) {
        if (nack.consumer == to) return;
        if (nack.consumer != null) nack.consumer.pel.remove(id);
        to.pel.put(id, nack);
        nack.consumer = to;
    }

    StreamGroup copy() {
        StreamGroup g = new StreamGroup(lastId, entriesRead);
        Map<Nack, Nack> copies = new IdentityHashMap<>();
        for (Map.Entry<StreamId, Nack> e : pel.entrySet()) {
            Nack n = e.getValue();
            Nack c = new Nack(null, n.deliveryTime, n.deliveryCount);
            copies.put(n, c);
            g.pel.put(e.getKey(), c);
        }
        for (Consumer c : consumers.values()) {
            Consumer cc = new Consumer(c.name, c.seenTime);
            for (Map.Entry<StreamId, Nack> e : c.pel.entrySet()) {
                Nack n = copies.get(e.getValue());
                n.consumer = cc;
                cc.pel.put(e.getKey(), n);
            }
            g.consumers.put(cc.name, cc);
        }
        return g;
    }

    long memoryUsage() {
        long m = 96 + pel.size() * 120L;
        for (Consumer c : consumers.values()) m += 96 + c.name.length + c.pel.size() * 80L;
        return m;
    }
}
