package io.cinnabar.command.pubsub;

import io.cinnabar.command.Client;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.protocol.RespWriter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Who listens to what, server-wide (Redis's pubsub.c): channels, patterns and shard channels with
 * their subscribers, and message delivery. Keyspace thread only.
 */
public final class PubSub {
    /** Writes bytes that do not answer a request to a client (into its own batch if it is the one running). */
    public interface Outbox {
        void push(Client target, byte[] bytes);
    }

    /** Classic channels or shard channels: the reply words and registry of each. */
    enum Kind {
        CHANNEL("subscribe", "unsubscribe", "message"),
        SHARD("ssubscribe", "sunsubscribe", "smessage");

        final String subscribed, unsubscribed, message;

        Kind(String subscribed, String unsubscribed, String message) {
            this.subscribed = subscribed;
            this.unsubscribed = unsubscribed;
            this.message = message;
        }
    }

    private final Map<ByteBuffer, LinkedHashSet<Client>> channels = new HashMap<>();
    private final Map<ByteBuffer, LinkedHashSet<Client>> shardChannels = new HashMap<>();
    private final Map<ByteBuffer, LinkedHashSet<Client>> patterns = new LinkedHashMap<>();
    private final Outbox outbox;

    public PubSub(Outbox outbox) {
        this.outbox = outbox;
    }

    public int channelCount() {
        return channels.size();
    }

    public int patternCount() {
        return patterns.size();
    }

    public int shardChannelCount() {
        return shardChannels.size();
    }

    private Map<ByteBuffer, LinkedHashSet<Client>> registry(Kind kind) {
        return kind == Kind.SHARD ? shardChannels : channels;
    }

    private static LinkedHashSet<ByteBuffer> own(Subscriptions s, Kind kind) {
        return kind == Kind.SHARD ? s.shardChannels : s.channels;
    }

    private static int count(Client c, Kind kind) {
        Subscriptions s = c.subscriptions();
        if (s == null) return 0;
        return kind == Kind.SHARD ? s.shardChannels() : s.classic();
    }

    private static Subscriptions of(Client c) {
        Subscriptions s = c.subscriptions();
        if (s == null) {
            s = new Subscriptions();
            c.subscriptions(s);
        }
        return s;
    }

    /** SUBSCRIBE / SSUBSCRIBE of one channel, confirmed to the client. */
    void subscribe(Client c, byte[] channel, Kind kind) {
        ByteBuffer name = ByteBuffer.wrap(channel);
        if (own(of(c), kind).add(name)) {
            registry(kind).computeIfAbsent(name, k -> new LinkedHashSet<>()).add(c);
        }
        c.subscribed(true);
        confirm(c, kind.subscribed, channel, count(c, kind));
    }

    /** UNSUBSCRIBE / SUNSUBSCRIBE of one channel; confirmed to the client if notify. */
    void unsubscribe(Client c, byte[] channel, Kind kind, boolean notify) {
        Subscriptions s = c.subscriptions();
        ByteBuffer name = ByteBuffer.wrap(channel);
        if (s != null && own(s, kind).remove(name)) {
            forget(registry(kind), name, c);
        }
        if (notify) confirm(c, kind.unsubscribed, channel, count(c, kind));
        updateFlag(c);
    }

    /** UNSUBSCRIBE / SUNSUBSCRIBE without arguments: every channel, or one reply with a null name. */
    void unsubscribeAll(Client c, Kind kind, boolean notify) {
        Subscriptions s = c.subscriptions();
        List<ByteBuffer> names = s == null ? List.of() : new ArrayList<>(own(s, kind));
        for (ByteBuffer n : names) unsubscribe(c, n.array(), kind, notify);
        if (names.isEmpty() && notify) confirm(c, kind.unsubscribed, null, count(c, kind));
        updateFlag(c);
    }

    void psubscribe(Client c, byte[] pattern) {
        ByteBuffer name = ByteBuffer.wrap(pattern);
        if (of(c).patterns.add(name)) {
            patterns.computeIfAbsent(name, k -> new LinkedHashSet<>()).add(c);
        }
        c.subscribed(true);
        confirm(c, "psubscribe", pattern, count(c, Kind.CHANNEL));
    }

    void punsubscribe(Client c, byte[] pattern, boolean notify) {
        Subscriptions s = c.subscriptions();
        ByteBuffer name = ByteBuffer.wrap(pattern);
        if (s != null && s.patterns.remove(name)) forget(patterns, name, c);
        if (notify) confirm(c, "punsubscribe", pattern, count(c, Kind.CHANNEL));
        updateFlag(c);
    }

    void punsubscribeAll(Client c, boolean notify) {
        Subscriptions s = c.subscriptions();
        List<ByteBuffer> names = s == null ? List.of() : new ArrayList<>(s.patterns);
        for (ByteBuffer n : names) punsubscribe(c, n.array(), notify);
        if (names.isEmpty() && notify) confirm(c, "punsubscribe", null, count(c, Kind.CHANNEL));
        updateFlag(c);
    }

    /**
     * The client leaves every channel and pattern and is told so, as if it had sent UNSUBSCRIBE,
     * PUNSUBSCRIBE and SUNSUBSCRIBE (CINNABAR RESET: client libraries then end their listeners).
     */
    public void unsubscribeEverything(Client c) {
        Subscriptions s = c.subscriptions();
        if (s == null || s.total() == 0) return;
        if (!s.channels.isEmpty()) unsubscribeAll(c, Kind.CHANNEL, true);
        if (!s.patterns.isEmpty()) punsubscribeAll(c, true);
        if (!s.shardChannels.isEmpty()) unsubscribeAll(c, Kind.SHARD, true);
    }

    /** The client leaves every channel and pattern silently (disconnection, RESET). */
    public void forgetClient(Client c) {
        if (c.subscriptions() == null) return;
        unsubscribeAll(c, Kind.CHANNEL, false);
        unsubscribeAll(c, Kind.SHARD, false);
        punsubscribeAll(c, false);
    }

    private static void forget(Map<ByteBuffer, LinkedHashSet<Client>> registry, ByteBuffer name, Client c) {
        LinkedHashSet<Client> subscribers = registry.get(name);
        if (subscribers == null) return;
        subscribers.remove(c);
        // Empty entries go, so that PUBSUB CHANNELS and memory only count live channels.
        if (subscribers.isEmpty()) registry.remove(name);
    }

    private static void updateFlag(Client c) {
        Subscriptions s = c.subscriptions();
        if (s == null || s.total() == 0) c.subscribed(false);
    }

    /**
     * A (un)subscription's confirmation: a push, so that it reaches the client even under CLIENT
     * REPLY OFF, as Redis's CLIENT_PUSHING replies do.
     */
    private void confirm(Client c, String kind, byte[] name, int count) {
        RespWriter w = new RespWriter(64);
        w.protocol(c.protocol());
        w.push(3);
        w.bulk(kind);
        if (name == null) w.nullBulk(); else w.bulk(name);
        w.integer(count);
        outbox.push(c, w.takeBytes());
    }

    /** PUBLISH: to the channel's subscribers, then to every matching pattern's; the number of receivers. */
    public int publish(byte[] channel, byte[] message) {
        return publish(channel, message, Kind.CHANNEL);
    }

    /** SPUBLISH: to the shard channel's subscribers only (patterns do not see shard messages). */
    public int spublish(byte[] channel, byte[] message) {
        return publish(channel, message, Kind.SHARD);
    }

    private int publish(byte[] channel, byte[] message, Kind kind) {
        int receivers = 0;
        LinkedHashSet<Client> direct = registry(kind).get(ByteBuffer.wrap(channel));
        if (direct != null) {
            Encoded encoded = new Encoded(w -> {
                w.bulk(kind.message);
                w.bulk(channel);
                w.bulk(message);
            }, 3);
            for (Client c : direct) {
                outbox.push(c, encoded.forProtocol(c.protocol()));
                receivers++;
            }
        }
        if (kind == Kind.SHARD || patterns.isEmpty()) return receivers;
        for (Map.Entry<ByteBuffer, LinkedHashSet<Client>> e : patterns.entrySet()) {
            byte[] pattern = e.getKey().array();
            if (!GlobMatcher.matches(pattern, channel, false)) continue;
            Encoded encoded = new Encoded(w -> {
                w.bulk("pmessage");
                w.bulk(pattern);
                w.bulk(channel);
                w.bulk(message);
            }, 4);
            for (Client c : e.getValue()) {
                outbox.push(c, encoded.forProtocol(c.protocol()));
                receivers++;
            }
        }
        return receivers;
    }

    /** Names of active channels (or shard channels) matching pattern (null: all). */
    List<byte[]> channelNames(byte[] pattern, Kind kind) {
        List<byte[]> out = new ArrayList<>();
        for (ByteBuffer n : registry(kind).keySet()) {
            if (pattern == null || GlobMatcher.matches(pattern, n.array(), false)) out.add(n.array());
        }
        return out;
    }

    int subscriberCount(byte[] channel, Kind kind) {
        LinkedHashSet<Client> s = registry(kind).get(ByteBuffer.wrap(channel));
        return s == null ? 0 : s.size();
    }

    /** A push message encoded once per protocol version in use among its receivers. */
    private static final class Encoded {
        private final Consumer<RespWriter> body;
        private final int length;
        private byte[] resp2, resp3;

        Encoded(Consumer<RespWriter> body, int length) {
            this.body = body;
            this.length = length;
        }

        byte[] forProtocol(int protocol) {
            if (protocol == 3) {
                if (resp3 == null) resp3 = encode(3);
                return resp3;
            }
            if (resp2 == null) resp2 = encode(2);
            return resp2;
        }

        private byte[] encode(int protocol) {
            RespWriter w = new RespWriter(64);
            w.protocol(protocol);
            w.push(length);
            body.accept(w);
            return w.takeBytes();
        }
    }
}
