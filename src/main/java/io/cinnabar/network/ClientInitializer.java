package io.cinnabar.network;

import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.RespDecoder;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** Builds each connection's pipeline: read counter, RESP decoder, then the connection that batches requests. */
@ChannelHandler.Sharable
final class ClientInitializer extends ChannelInitializer<SocketChannel> {
    private static final byte[] MAX_CLIENTS = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Dispatcher dispatcher;
    private final ServerContext server;
    private final AtomicInteger connected = new AtomicInteger();
    private final ReadCounter reads;

    private final ReplyRouter replies;

    ClientInitializer(Dispatcher dispatcher, ReplyRouter replies) {
        this.dispatcher = dispatcher;
        this.replies = replies;
        this.server = dispatcher.server();
        this.reads = new ReadCounter(server.stats());
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (connected.incrementAndGet() > server.config().getLong(ConfigOptions.MAXCLIENTS)) {
            connected.decrementAndGet();
            ch.writeAndFlush(Unpooled.wrappedBuffer(MAX_CLIENTS)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ch.closeFuture().addListener(f -> connected.decrementAndGet());
        ClientConnection connection = new ClientConnection(dispatcher, replies, ch, server.nextClientId(), !server.requirePass());
        RespDecoder decoder = new RespDecoder(
                () -> server.config().getLong(ConfigOptions.PROTO_MAX_BULK_LEN),
                () -> server.config().getLong(ConfigOptions.CLIENT_QUERY_BUFFER_LIMIT),
                () -> !connection.client().authenticated() && server.requirePass());
        ch.pipeline().addLast("reads", reads).addLast("resp", decoder).addLast("client", connection);
    }
}
