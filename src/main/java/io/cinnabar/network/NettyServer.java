package io.cinnabar.network;

import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.KeyspaceThread;
import io.cinnabar.command.MasterConnector;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Binds the listening sockets and runs the event loops that own client connections. */
public final class NettyServer implements AutoCloseable {
    static final Logger log = LoggerFactory.getLogger(NettyServer.class);

    private final ServerContext server;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final OpenChannels open = new OpenChannels();
    private final Class<? extends ServerChannel> channelClass;
    /** The plain port's listening sockets and the TLS port's (tls-port), on the same bind addresses. */
    private final Listener plain = new Listener("TCP");
    private final Listener secure = new Listener("TLS");
    private ServerBootstrap bootstrap;
    private String bindAddresses;
    /** The TLS context new connections on the TLS port get, null until TLS is first configured. */
    private volatile TlsContext tls;

    /**
     * The connections' buffer allocator. Netty 4.2's default (adaptive) allocator creates a
     * DirectByteBuffer slice for every buffer it hands out, one per read and per reply written
     * (~85 bytes of garbage per request, 14% of an unpipelined GET's); the pooled allocator
     * recycles its buffer objects. Its chunks are 1 MB instead of 4 (maxOrder 7): measured, the
     * empty server's RSS 73 -> 68 MB and ~950k keys' 181 -> 173 MB, at the same throughput.
     */
    static final ByteBufAllocator ALLOCATOR = new PooledByteBufAllocator(true,
            PooledByteBufAllocator.defaultNumHeapArena(), PooledByteBufAllocator.defaultNumDirectArena(),
            PooledByteBufAllocator.defaultPageSize(), Integer.getInteger("io.netty.allocator.maxOrder", 7),
            PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
            PooledByteBufAllocator.defaultUseCacheForAllThreads());

    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    public NettyServer(Dispatcher dispatcher) {
        this.server = dispatcher.server();
        Config config = server.config();
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        channelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        boss = new MultiThreadIoEventLoopGroup(1, new LoopThreads("cinnabar-accept", 0), factory);
        // With one io thread, commands (and scripts) run on it: the keyspace thread's stack.
        workers = new MultiThreadIoEventLoopGroup(config.getInt(ConfigOptions.IO_THREADS),
                new LoopThreads("cinnabar-io", KeyspaceThread.STACK_BYTES),
                epoll ? EpollIoHandler.newFactory(0, SpinBeforeSleep::new) : factory);
        if (config.getInt(ConfigOptions.IO_THREADS) == 1) {
            // One io thread: commands run on it too (no hand-offs; measured faster on 2 cores).
            EventLoop loop = workers.next();
            server.thread().runOn(loop, loop::inEventLoop, ((SingleThreadEventLoop) loop)::executeAfterEventLoopIteration);
        }
        ReplyRouter replies = new ReplyRouter();
        server.thread().afterWork(replies::flush);
        // The end of a turn hands its writes to the replicas' connections: they leave in the same
        // turn, not with the next round of work (the cron's, 100 ms later on an idle server).
        server.thread().atEndOfTurn(replies::flush);
        AtomicInteger connected = new AtomicInteger();
        this.initializer = new ClientInitializer(dispatcher, replies, connected, open, null);
        this.tlsInitializer = new ClientInitializer(dispatcher, replies, connected, open, () -> tls);
        server.component(MasterConnector.class, () -> (host, port, handshake, payloadFile, events) ->
                connectToMaster(dispatcher, host, port, handshake, payloadFile, events));
    }

    /** A replica's link to its master: a client connection on an event loop of this server's. */
    private MasterConnector.Link connectToMaster(Dispatcher dispatcher, String host, int port, List<byte[][]> handshake,
            java.nio.file.Path payloadFile, MasterConnector.Events events) {
        MasterConnection link = new MasterConnection(dispatcher, handshake, payloadFile, events);
        long timeoutMs = server.config().getLong(Config.option("repl-timeout")) * 1000;
        ChannelFuture connecting = new Bootstrap()
                .group(workers)
                .channel(Epoll.isAvailable() ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.ALLOCATOR, ALLOCATOR)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMs))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // tls-replication: the link is TLS, with the context of the TLS port (Redis's client SSL_CTX).
                        TlsContext context = tls;
                        if (server.config().getBool(ConfigOptions.TLS_REPLICATION) && context != null) {
                            ch.pipeline().addLast("tls", context.newClientHandler(ch.alloc(), host, port));
                        }
                        ch.pipeline().addLast("master", link);
                    }
                })
                .connect(InetSocketAddress.createUnresolved(host, port), sourceAddress());
        link.attach(connecting.channel());
        open.add(connecting.channel());
        connecting.addListener(f -> {
            if (!f.isSuccess()) link.closed("Error condition on socket for SYNC: " + f.cause().getMessage());
        });
        return link;
    }

    /** bind-source-addr: the address a replica connects to its master from, or null for the system's choice. */
    private InetSocketAddress sourceAddress() {
        String source = server.config().getString(Config.option("bind-source-addr"));
        return source.isEmpty() ? null : new InetSocketAddress(source, 0);
    }

    private final ClientInitializer initializer;
    private final ClientInitializer tlsInitializer;
    /** Set once close() starts: from then on the event loops end because they were told to. */
    private volatile boolean closing;
    private volatile boolean loopDied;

    /**
     * Event loop threads that report their own end when nobody asked for it. An Error escaping
     * Netty's loop (out of memory outside any handler, a class that no longer loads) ends the
     * thread while the process lives on: connections are accepted and never answered, and SIGTERM
     * waits for a cron that never runs. Redis would crash with a bug report there, and so does
     * this server, so that a supervisor restarts it.
     */
    private final class LoopThreads extends DefaultThreadFactory {
        private final long stackBytes;

        LoopThreads(String prefix, long stackBytes) {
            super(prefix, false);
            this.stackBytes = stackBytes;
        }

        @Override
        protected Thread newThread(Runnable r, String name) {
            return new io.netty.util.concurrent.FastThreadLocalThread(threadGroup, () -> {
                Throwable cause = null;
                try {
                    r.run();
                } catch (Throwable e) {
                    cause = e;
                } finally {
                    if (!closing) died(name, cause);
                }
            }, name, stackBytes);
        }
    }

    /**
     * A server that owns its process ends it with Redis's bug report (exit status 134, as an
     * abort); an embedded one stops listening, and its close() no longer waits for the dead
     * loop to save. Not on the dying thread: closing the listeners may need another loop.
     */
    private void died(String thread, Throwable cause) {
        loopDied = true;
        Thread report = new Thread(() -> {
            io.cinnabar.log.CrashReport.panic("The event loop thread " + thread + " ended"
                    + (cause != null ? " by " + cause : ""), "NettyServer", true, null);
            stopListening();
        }, "cinnabar-loop-death");
        report.setDaemon(true);
        report.start();
    }

    /** True once an event loop thread ended without close(): its connections are lost. */
    public boolean loopDied() {
        return loopDied;
    }

    /**
     * Binds every address of the "bind" option on the configured port, and on tls-port when set
     * (TLS configured first); returns the plain port bound. Port 0 with a tls-port means no plain
     * port, as in Redis; port 0 alone means any free port (embedded servers, tests).
     */
    public synchronized int bind() throws IOException {
        Config config = server.config();
        // Netty sets TCP_NODELAY on accepted sockets itself. Accepting on the io thread instead of
        // this separate one saved ~10 us of CPU per connection (no hand-off), but a benchmark's 50
        // clients connecting at once then waited longer for their first replies: max latency
        // 2.9-13.8 ms against 2.1-8.3 (Redis 0.7-3.7).
        bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, config.getInt(ConfigOptions.TCP_BACKLOG))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.ALLOCATOR, ALLOCATOR)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(initializer);
        bindAddresses = config.getString(ConfigOptions.BIND);
        int tlsPort = config.getInt(ConfigOptions.TLS_PORT);
        if (tlsPort != 0 || config.getBool(ConfigOptions.TLS_REPLICATION) || config.getBool(ConfigOptions.TLS_CLUSTER)) {
            try {
                tls = TlsContext.configure(config);
            } catch (TlsConfigurationException e) {
                close();
                throw e;
            }
        }
        int port = config.getInt(ConfigOptions.PORT);
        try {
            if (port != 0 || tlsPort == 0) plain.listen(bindAddresses, port);
            if (tlsPort != 0) secure.listen(bindAddresses, tlsPort);
            unixListener = listenOnUnixSocket(config);
            if (plain.channels.isEmpty() && secure.channels.isEmpty() && unixListener == null) {
                throw new BindException("Configured to not listen anywhere, exiting.");
            }
        } catch (BindException e) {
            close();
            throw e;
        }
        return plain.port;
    }

    /**
     * CONFIG SET port or bind: listens where the options now say, keeping the clients already
     * connected, on the plain port and on the TLS port. Returns null when done, else why not (and
     * the old listeners are still there). Port 0 closes the plain port when a TLS port is open,
     * else takes a free port, as at startup.
     */
    public synchronized String rebind(int newPort, String newAddresses) {
        boolean addressesChange = !newAddresses.equals(bindAddresses);
        String oldAddresses = bindAddresses;
        int oldPlain = plain.wanted;
        try {
            if (newPort == 0 && !secure.channels.isEmpty()) {
                if (addressesChange) secure.move(oldAddresses, newAddresses, secure.wanted);
                plain.stop();
            } else {
                plain.move(oldAddresses, newAddresses, newPort);
                if (addressesChange && !secure.channels.isEmpty()) {
                    try {
                        secure.move(oldAddresses, newAddresses, secure.wanted);
                    } catch (BindException e) {
                        plain.move(newAddresses, oldAddresses, oldPlain);
                        throw e;
                    }
                }
            }
        } catch (BindException e) {
            log.warn("CONFIG SET: {}", e.getMessage());
            return e.getMessage();
        }
        bindAddresses = newAddresses;
        return null;
    }

    /** The tls-* options whose change reconfigures TLS (Redis's applyTlsCfg): all but tls-port and tls-auth-clients. */
    public static final List<io.cinnabar.config.ConfigOption> TLS_CONTEXT_OPTIONS = TlsContext.REBUILD_OPTIONS;

    /** Whether a TLS context was configured (at startup, or by an earlier CONFIG SET). */
    public boolean tlsConfigured() {
        return tls != null;
    }

    /**
     * (Re)configures TLS from the tls-* options for the connections accepted from now on (Redis's
     * tlsConfigure); on failure the context in use stays, and the reason is logged and returned.
     */
    public String configureTls() {
        try {
            tls = TlsContext.configure(server.config());
            return null;
        } catch (TlsConfigurationException e) {
            return e.getMessage();
        }
    }

    /** CONFIG SET tls-port: listens on the new TLS port (0: none), keeping connected clients; null or why not. */
    public synchronized String relistenTls(int newTlsPort) {
        try {
            if (newTlsPort == 0) {
                secure.stop();
            } else {
                secure.move(bindAddresses, bindAddresses, newTlsPort);
            }
        } catch (BindException e) {
            log.warn("CONFIG SET: {}", e.getMessage());
            return e.getMessage();
        }
        return null;
    }

    /** A port that could not be listened on: which one ("TCP" or "TLS") and its number, for Redis's log line. */
    public static final class ListenFailure extends BindException {
        private final String kind;
        private final int port;

        ListenFailure(String message, String kind, int port) {
            super(message);
            this.kind = kind;
            this.port = port;
        }

        public String kind() {
            return kind;
        }

        public int port() {
            return port;
        }
    }

    /** The listening sockets of one port, plain or TLS. */
    private final class Listener {
        private final String kind;
        private final List<Channel> channels = new ArrayList<>();
        /** What the port option asked for (0: any free port), and the port actually bound (0: none). */
        private int wanted;
        private int port;

        Listener(String kind) {
            this.kind = kind;
        }

        void listen(String addresses, int wantedPort) throws BindException {
            channels.addAll(open(addresses, wantedPort));
            wanted = wantedPort;
        }

        void stop() {
            closeAll(channels);
            channels.clear();
            wanted = 0;
            port = 0;
        }

        /**
         * Moves to newPort on newAddresses, all or nothing. The old sockets close only once the
         * new ones are bound, except when the port stays: they would hold it, so they close first
         * and come back if the new addresses fail (as Redis's changeBindAddr).
         */
        void move(String oldAddresses, String newAddresses, int newPort) throws BindException {
            if (newPort == wanted && newAddresses.equals(oldAddresses) && !channels.isEmpty()) return;
            List<Channel> old = new ArrayList<>(channels);
            int oldPort = port;
            int oldWanted = wanted;
            if (newPort != 0 && newPort == oldPort) {
                closeAll(old);
                channels.clear();
                try {
                    channels.addAll(open(newAddresses, newPort));
                } catch (BindException e) {
                    channels.addAll(open(oldAddresses, oldPort));
                    wanted = oldWanted;
                    throw e;
                }
            } else {
                List<Channel> fresh = open(newAddresses, newPort);
                closeAll(old);
                channels.clear();
                channels.addAll(fresh);
            }
            wanted = newPort;
            log.info("Listening on port {} ({}, {})", port, kind, newAddresses);
        }

        /** Binds every address of addresses (words, "-" marking optional ones) on wanted; all or none. */
        private List<Channel> open(String addresses, int wantedPort) throws BindException {
            ServerBootstrap b = this == secure ? bootstrap.clone().childHandler(tlsInitializer) : bootstrap;
            List<Channel> opened = new ArrayList<>();
            // No addresses at all (CONFIG SET bind "") is no listener, as in Redis: existing clients stay.
            if (addresses.isBlank()) {
                port = 0;
                return opened;
            }
            int p = wantedPort;
            for (String spec : addresses.trim().split("\\s+")) {
                boolean optional = spec.startsWith("-");
                String host = optional ? spec.substring(1) : spec;
                if (host.equals("*")) host = "0.0.0.0";
                if (host.equals("::*")) host = "::";
                try {
                    Channel ch = b.bind(new InetSocketAddress(host, p)).syncUninterruptibly().channel();
                    opened.add(ch);
                    p = ((InetSocketAddress) ch.localAddress()).getPort();
                } catch (Exception e) {
                    if (optional) continue;
                    closeAll(opened);
                    String reason = e instanceof BindException ? "Address already in use" : e.getMessage();
                    throw new ListenFailure("Could not create server TCP listening socket " + host + ":" + p + ": " + reason,
                            kind, wantedPort);
                }
            }
            if (opened.isEmpty()) {
                throw new ListenFailure("Failed listening on port " + wantedPort + " (" + kind + "), aborting.", kind, wantedPort);
            }
            port = p;
            return opened;
        }
    }

    /**
     * The unixsocket option, as Redis's anetUnixServer: an old socket file is removed first and
     * the new one gets unixsocketperm (when not 0). Epoll only; null when there is none.
     */
    private Channel listenOnUnixSocket(Config config) throws BindException {
        String path = config.getString(ConfigOptions.UNIXSOCKET);
        if (path.isEmpty()) return null;
        if (channelClass != EpollServerSocketChannel.class) {
            log.warn("unixsocket {} ignored: unix sockets need the epoll transport", path);
            return null;
        }
        unixSocket = config.fileInDir(path);
        try {
            java.nio.file.Files.deleteIfExists(unixSocket);
            Channel ch = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(EpollServerDomainSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, config.getInt(ConfigOptions.TCP_BACKLOG))
                    .childOption(ChannelOption.ALLOCATOR, ALLOCATOR)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                    .childHandler(initializer)
                    .bind(new DomainSocketAddress(path)).syncUninterruptibly().channel();
            long perm = config.getLong(ConfigOptions.UNIXSOCKETPERM);
            if (perm != 0) java.nio.file.Files.setPosixFilePermissions(unixSocket, permissions((int) perm));
            log.info("The server is now ready to accept connections at {}", path);
            return ch;
        } catch (Exception e) {
            throw new BindException("Failed opening Unix socket: " + e.getMessage());
        }
    }

    /** The unix socket file, removed at close as Redis removes it at shutdown, and its listener (CONFIG SET bind/port keep it). */
    private java.nio.file.Path unixSocket;
    private Channel unixListener;

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions(int mode) {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> set = new java.util.HashSet<>();
        java.nio.file.attribute.PosixFilePermission[] bits = java.nio.file.attribute.PosixFilePermission.values();
        // values() runs OWNER_READ .. OTHERS_EXECUTE: bit 8 down to bit 0 of the octal mode.
        for (int i = 0; i < 9; i++) if ((mode & (1 << (8 - i))) != 0) set.add(bits[i]);
        return set;
    }

    private static void closeAll(List<Channel> channels) {
        for (Channel ch : channels) ch.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The plain port bound (0: none, with only a TLS port). */
    public int port() {
        return plain.port;
    }

    /** The TLS port bound (0: none). */
    public int tlsPort() {
        return secure.port;
    }

    /** Closes the listening sockets (TCP, TLS, unix); the connected clients stay. */
    public synchronized void stopListening() {
        plain.stop();
        secure.stop();
        if (unixListener != null) unixListener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        unixListener = null;
    }

    /**
     * Closes the listeners and stops the event loops. Every wait is bounded: a loop that died
     * (e.g. the jar was replaced under a running server) must not hang SIGTERM forever.
     */
    @Override
    public synchronized void close() {
        closing = true;
        stopListening();
        if (unixSocket != null) {
            // Without Redis's "Removing the unix socket file." line: close() also runs when start-up
            // fails, where the reason must stay the log's last line (the test suite reads it there).
            try {
                java.nio.file.Files.deleteIfExists(unixSocket);
            } catch (IOException e) {
                log.warn("Error removing the unix socket file: {}", e.getMessage());
            }
            unixSocket = null;
        }
        open.closeAll();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
