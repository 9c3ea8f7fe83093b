package io.cinnabar.network;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClientChannel;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.protocol.Request;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One socket. Collects the requests decoded from one read into a batch and hands the batch to
 * the keyspace thread on channelReadComplete; reading stays paused (autoRead off) until that
 * batch's replies are written and the socket is writable again, so a client never has more than
 * one batch in flight and a slow reader cannot make the server buffer without bound.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter implements ClientChannel {
    private final Dispatcher dispatcher;
    private final Channel channel;
    private final Client client;
    private List<Request> batch = new ArrayList<>();
    private boolean awaitingReplies;

    ClientConnection(Dispatcher dispatcher, Channel channel, long id, boolean authenticated) {
        this.dispatcher = dispatcher;
        this.channel = channel;
        this.client = new Client(id, this, authenticated);
    }

    Client client() {
        return client;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        dispatcher.server().thread().execute(() -> dispatcher.server().addClient(client));
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        batch.add((Request) msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (batch.isEmpty()) return;
        List<Request> toRun = batch;
        batch = new ArrayList<>(Math.min(toRun.size(), 64));
        awaitingReplies = true;
        channel.config().setAutoRead(false);
        dispatcher.server().thread().execute(() -> dispatcher.executeBatch(client, toRun));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (channel.isWritable() && !awaitingReplies) channel.config().setAutoRead(true);
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dispatcher.server().thread().execute(() -> dispatcher.disconnected(client));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and broken pipes are a client's business; anything else is still only this socket's.
        if (!(cause instanceof IOException)) {
            NettyServer.log.warn("Closing client {} after error", client.id(), cause);
        }
        ctx.close();
    }

    // ---- ClientChannel: called on the keyspace thread ----

    @Override
    public void send(byte[] replies, boolean closeAfterReply) {
        channel.eventLoop().execute(() -> {
            awaitingReplies = false;
            if (replies.length > 0) {
                channel.writeAndFlush(Unpooled.wrappedBuffer(replies))
                        .addListener(closeAfterReply ? ChannelFutureListener.CLOSE : ChannelFutureListener.CLOSE_ON_FAILURE);
            } else if (closeAfterReply) {
                channel.close();
            }
            if (!closeAfterReply && channel.isWritable()) channel.config().setAutoRead(true);
        });
    }

    @Override
    public void close() {
        channel.close();
    }

    @Override
    public String remoteAddress() {
        return format(channel.remoteAddress());
    }

    @Override
    public String localAddress() {
        return format(channel.localAddress());
    }

    private static String format(SocketAddress a) {
        if (a instanceof InetSocketAddress) {
            InetSocketAddress i = (InetSocketAddress) a;
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return host + ":" + i.getPort();
        }
        return String.valueOf(a);
    }
}
