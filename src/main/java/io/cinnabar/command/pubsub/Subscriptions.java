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

    public int total() {
        return classic() + shardChannels.size();
    }
}
