package io.cinnabar.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;

import java.io.IOException;

/**
 * Sends a connection's replies straight to its socket while nothing of it waits in Netty's
 * outbound buffer, as Redis's writeToClient does, instead of through the pipeline: the outbound
 * buffer's entry, its recycling and the pipeline's walk cost ~3% of the event loop's CPU per
 * small reply (redis-benchmark GET -c 50), for a send() Netty would make at once as well. What
 * the socket does not take, or a send that fails, goes on through Netty as before, which then
 * waits for the socket to drain, or closes it; later replies follow it there until the buffer
 * is empty. Only for the native epoll transport without TLS (whose handler must see every byte).
 */
final class WriteThrough {
    private final Channel channel;
    private final Socket socket;

    private WriteThrough(Channel channel, Socket socket) {
        this.channel = channel;
        this.socket = socket;
    }

    /** For channel, or null where its replies must go through the pipeline. */
    static WriteThrough of(Channel channel) {
        if (channel.pipeline().get(io.netty.handler.ssl.SslHandler.class) != null) return null;
        return channel instanceof UnixChannel unix && unix.fd() instanceof Socket socket
                ? new WriteThrough(channel, socket) : null;
    }

    /** Writes replies (which it releases), else hands them to Netty. Event loop only. */
    void write(ByteBuf replies) {
        if (replies.hasMemoryAddress() && nothingQueued()) {
            int from = replies.readerIndex(), to = replies.writerIndex();
            try {
                int sent = socket.sendAddress(replies.memoryAddress(), from, to);
                if (sent == to - from) {
                    replies.release();
                    return;
                }
                replies.readerIndex(from + sent);
            } catch (IOException failed) {
                // Netty's own send fails the same way and closes the connection as usual.
            }
        }
        // A failed write reaches exceptionCaught, which closes the socket: no promise per reply.
        channel.writeAndFlush(replies, channel.voidPromise());
    }

    private boolean nothingQueued() {
        ChannelOutboundBuffer queued = channel.unsafe().outboundBuffer();
        return queued != null && queued.totalPendingWriteBytes() == 0 && queued.isEmpty() && channel.isActive();
    }
}
