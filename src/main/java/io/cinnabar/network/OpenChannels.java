package io.cinnabar.network;

import io.netty.channel.Channel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections a server has open: its clients' and its link to a master. Its close closes them
 * itself before it stops the event loops, which alone have been seen to leave a client's
 * connection open (2 embedded closes in 30), the client then waiting for a reply that never comes
 * and a replica for a master that is gone.
 */
final class OpenChannels {
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();

    void add(Channel ch) {
        channels.add(ch);
        ch.closeFuture().addListener(f -> channels.remove(ch));
    }

    void closeAll() {
        for (Channel ch : channels) ch.close();
    }
}
