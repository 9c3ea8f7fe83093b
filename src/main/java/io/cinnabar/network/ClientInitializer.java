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
import java.util.function.Supplier;

/**
 * Builds each connection's pipeline: on the TLS port the TLS handler, then the read counter, the
 * RESP decoder and the connection that batches requests. One initializer per kind of port; they
 * share the count of connected clients.
 */
@ChannelHandler.Sharable
final class ClientInitializer extends ChannelInitializer<SocketChannel> {
    private static final byte[] MAX_CLIENTS = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Dispatcher dispatcher;
    private final ServerContext server;
    private final AtomicInteger connected;
    private final ReadCounter reads;
    private final ReplyRouter replies;
    /** The TLS port's current context (a CONFIG SET may replace it), or null on the plain port. */
    private final Supplier<TlsContext> tls;

    ClientInitializer(Dispatcher dispatcher, ReplyRouter replies, AtomicInteger connected, Supplier<TlsContext> tls) {
        this.dispatcher = dispatcher;
        this.replies = replies;
        this.server = dispatcher.server();
        this.connected = connected;
        this.tls = tls;
        this.reads = new ReadCounter(server.stats());
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (connected.incrementAndGet() > server.config().getLong(ConfigOptions.MAXCLIENTS)) {
            connected.decrementAndGet();
            // Before a handshake the error cannot reach a TLS client: Redis's write fails there too.
            if (tls != null) ch.close();
            else ch.writeAndFlush(Unpooled.wrappedBuffer(MAX_CLIENTS)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ch.closeFuture().addListener(f -> connected.decrementAndGet());
        if (tls != null) {
            TlsContext context = tls.get();
            ch.pipeline().addLast("tls", context.newHandler(ch.alloc(), server.config().getString(ConfigOptions.TLS_AUTH_CLIENTS)))
                    .addLast("tls-errors", new TlsErrors(context.sessionCaching()));
        }
        ClientConnection connection = new ClientConnection(dispatcher, replies, ch, server.nextClientId(), !server.requirePass());
        RespDecoder decoder = new RespDecoder(
                () -> server.config().getLong(ConfigOptions.PROTO_MAX_BULK_LEN),
                () -> server.config().getLong(ConfigOptions.CLIENT_QUERY_BUFFER_LIMIT),
                () -> !connection.client().authenticated() && server.requirePass());
        ch.pipeline().addLast("reads", reads).addLast("resp", decoder).addLast("client", connection);
    }
}
