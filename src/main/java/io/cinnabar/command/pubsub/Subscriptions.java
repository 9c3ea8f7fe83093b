package io.cinnabar.command.pubsub;

import java.nio.ByteBuffer;
import java.util.LinkedHashSet;

/** One client's subscriptions (Redis's pubsub_channels, pubsub_patterns, pubsubshard_channels). */
public final class Subscriptions {
    final LinkedHashSet<ByteBuffer> channels = new LinkedHashSet<>();
    final LinkedHashSet<ByteBuffer> patterns = new LinkedHashSet<>();
    final LinkedHashSet<ByteBuffer> shardChannels = new LinkedHashSet<>();

    /** Channels and patterns: the count SUBSCRIBE and PSUBSCRIBE reply with. */
    public int classic() {
        return channels.size() + patterns.size();
    }

    public int channels() {
        return channels.size();
    }

    public int patterns() {
        return patterns.size();
    }

    public int shardChannels() {
        return shardChannels.size();
    }

    /** Whether every channel, pattern and shard channel still passes allowed (a user's changed ACL rules). */
    public boolean all(java.util.function.BiPredicate<byte[], Boolean> allowed) {
        for (ByteBuffer p : patterns) if (!allowed.test(bytes(p), true)) return false;
        for (ByteBuffer c : channels) if (!allowed.test(bytes(c), false)) return false;
        for (ByteBuffer c : shardChannels) if (!allowed.test(bytes(c), false)) return false;
        return true;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    public int total() {
        return classic() + shardChannels.size();
    }
}
