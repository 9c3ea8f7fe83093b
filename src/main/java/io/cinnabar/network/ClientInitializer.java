package io.cinnabar.network;

import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.MonitorLine;
import io.cinnabar.command.server.ClientInfo;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.ServerStats;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.RespDecoder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Builds each connection's pipeline: on the TLS port the TLS handler, then the RESP decoder
 * (which also counts reads) and the connection that batches requests. One initializer per kind
 * of port; they share the count of connected clients.
 */
@ChannelHandler.Sharable
final class ClientInitializer extends ChannelInitializer<Channel> {
    private static final byte[] MAX_CLIENTS = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);
    /** networking.c clientAcceptHandler, word for word. */
    private static final byte[] DENIED = ("-DENIED Redis is running in protected mode because protected "
            + "mode is enabled and no password is set for the default user. "
            + "In this mode connections are only accepted from the loopback interface. "
            + "If you want to connect from external computers to Redis you "
            + "may adopt one of the following solutions: "
            + "1) Just disable protected mode sending the command "
            + "'CONFIG SET protected-mode no' from the loopback interface "
            + "by connecting to Redis from the same host the server is "
            + "running, however MAKE SURE Redis is not publicly accessible "
            + "from internet if you do so. Use CONFIG REWRITE to make this "
            + "change permanent. "
            + "2) Alternatively you can just disable the protected mode by "
            + "editing the Redis configuration file, and setting the protected "
            + "mode option to 'no', and then restarting the server. "
            + "3) If you started the server manually just for testing, restart "
            + "it with the '--protected-mode no' option. "
            + "4) Setup a an authentication password for the default user. "
            + "NOTE: You only need to do one of the above things in order for "
            + "the server to start accepting connections from the outside.\r\n").getBytes(StandardCharsets.US_ASCII);

    private final Dispatcher dispatcher;
    private final ServerContext server;
    private final AtomicInteger connected;
    private final OpenChannels open;
    private final ReplyRouter replies;
    /** The TLS port's current context (a CONFIG SET may replace it), or null on the plain port. */
    private final Supplier<TlsContext> tls;

    ClientInitializer(Dispatcher dispatcher, ReplyRouter replies, AtomicInteger connected, OpenChannels open, Supplier<TlsContext> tls) {
        this.dispatcher = dispatcher;
        this.replies = replies;
        this.server = dispatcher.server();
        this.connected = connected;
        this.open = open;
        this.tls = tls;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (connected.incrementAndGet() > server.config().getLong(ConfigOptions.MAXCLIENTS)) {
            connected.decrementAndGet();
            refuse(ch, MAX_CLIENTS);
            return;
        }
        if (protectedModeRefuses(ch)) {
            connected.decrementAndGet();
            refuse(ch, DENIED);
            return;
        }
        ch.closeFuture().addListener(f -> connected.decrementAndGet());
        open.add(ch);
        if (ch instanceof SocketChannel) TcpKeepAlive.apply(ch.config(), server.config().getLong(ConfigOptions.TCP_KEEPALIVE));
        if (tls != null) {
            TlsContext context = tls.get();
            ch.pipeline().addLast("tls", context.newHandler(ch.alloc(), server.config().getString(ConfigOptions.TLS_AUTH_CLIENTS)))
                    .addLast("tls-errors", new TlsErrors(context.sessionCaching()));
        }
        ClientConnection connection = new ClientConnection(dispatcher, replies, ch, server.nextClientId(), !server.requirePass());
        RespDecoder decoder = new RespDecoder(
                () -> server.config().getLong(ConfigOptions.PROTO_MAX_BULK_LEN),
                () -> server.config().getLong(ConfigOptions.CLIENT_QUERY_BUFFER_LIMIT),
                () -> !connection.client().authenticated() && server.requirePass(),
                initial -> server.thread().execute(() -> NettyServer.log.warn(
                        "Closing client that reached max query buffer length: {} (qbuf initial bytes: {})",
                        ClientInfo.line(connection.client(), server.keyspace().mstime()), MonitorLine.repr(initial))),
                this::countRead);
        connection.readingWith(decoder);
        ch.config().setRecvByteBufAllocator(new BulkSizedReads(ch.config().getRecvByteBufAllocator(), decoder));
        ch.pipeline().addLast("resp", decoder).addLast("client", connection);
    }

    /**
     * A read from a client, counted before it is decoded, as Redis's readQueryFromClient counts
     * (INFO total_reads_processed, total_net_input_bytes, instantaneous_input_kbps); event loop.
     */
    private void countRead(int bytes) {
        ServerStats stats = server.stats();
        stats.reads.increment();
        stats.netInputBytes.add(bytes);
    }

    /**
     * Redis 7.0's clientAcceptHandler: with protected-mode on and a default user without a
     * password, only 127.0.0.1 and ::1 may connect. (7.0 no longer looks at bind here: its
     * default bind is always set.)
     */
    private boolean protectedModeRefuses(Channel ch) {
        return server.config().getBool(ConfigOptions.PROTECTED_MODE) && server.acl().defaultUserNopass()
                && !ClientConnection.isLoopback(ch.remoteAddress());
    }

    /**
     * Writes the refusal, closes, and counts it in INFO's rejected_connections. Before a handshake
     * the error cannot reach a TLS client (Redis's write fails there too): it is only closed.
     */
    private void refuse(Channel ch, byte[] error) {
        server.thread().execute(() -> server.stats().rejectedConnections++);
        if (tls != null) ch.close();
        else ch.writeAndFlush(Unpooled.wrappedBuffer(error)).addListener(ChannelFutureListener.CLOSE);
    }
}
