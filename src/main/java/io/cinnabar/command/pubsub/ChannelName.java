package io.cinnabar.command.pubsub;

import java.util.Arrays;

/** A channel or pattern name as a hash key: binary-safe bytes compared by content. */
final class ChannelName {
    final byte[] bytes;
    private final int hash;

    ChannelName(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelName other && hash == other.hash && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
