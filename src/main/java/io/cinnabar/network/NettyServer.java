package io.cinnabar.network;

import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
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

/** Binds the listening sockets and runs the event loops that own client connections. */
public final class NettyServer implements AutoCloseable {
    static final Logger log = LoggerFactory.getLogger(NettyServer.class);

    private final ServerContext server;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Class<? extends ServerChannel> channelClass;
    private final List<Channel> listeners = new ArrayList<>();
    private ServerBootstrap bootstrap;
    /** What the listeners were bound for: the port option (0: any free port) and the bind option. */
    private int wantedPort;
    private String bindAddresses;
    /** The port actually bound. */
    private volatile int port;

    /**
     * Starts Netty's one-time work of the JVM on a helper thread (see {@link NettyWarmUp}), for the
     * caller to build what needs no network meanwhile. Logging must be set up already.
     */
    public static void warmUp() {
        NettyWarmUp.startOnce();
    }

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
        boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cinnabar-accept", false), factory);
        workers = new MultiThreadIoEventLoopGroup(config.getInt(ConfigOptions.IO_THREADS),
                new DefaultThreadFactory("cinnabar-io", false), factory);
        if (config.getInt(ConfigOptions.IO_THREADS) == 1) {
            // One io thread: commands run on it too (no hand-offs; measured faster on 2 cores).
            EventLoop loop = workers.next();
            server.thread().runOn(loop, loop::inEventLoop);
        }
        ReplyRouter replies = new ReplyRouter();
        server.thread().afterWork(replies::flush);
        this.initializer = new ClientInitializer(dispatcher, replies);
    }

    private final ClientInitializer initializer;

    /** Binds every address of the "bind" option on the configured port; returns the port bound. */
    public synchronized int bind() throws IOException {
        Config config = server.config();
        bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, config.getInt(ConfigOptions.TCP_BACKLOG))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.ALLOCATOR, ALLOCATOR)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(initializer);
        wantedPort = config.getInt(ConfigOptions.PORT);
        bindAddresses = config.getString(ConfigOptions.BIND);
        try {
            listeners.addAll(listen(bindAddresses, wantedPort));
            unixListener = listenOnUnixSocket(config);
            if (listeners.isEmpty() && unixListener == null) throw new BindException("Configured to not listen anywhere, exiting.");
        } catch (BindException e) {
            close();
            throw e;
        }
        return port;
    }

    /**
     * CONFIG SET port or bind: listens where the options now say, keeping the clients already
     * connected. Returns null when done, else why not (and the old listeners are still there).
     * The old listeners close only once the new ones are bound, except when the port stays: the
     * old sockets would hold it, so they close first and come back if the new addresses fail
     * (as Redis's changeBindAddr). Port 0 takes a free port, as at startup.
     */
    public synchronized String rebind(int newPort, String newAddresses) {
        if (newPort == wantedPort && newAddresses.equals(bindAddresses)) return null;
        List<Channel> old = new ArrayList<>(listeners);
        int oldPort = port;
        try {
            if (newPort != 0 && newPort == oldPort) {
                closeAll(old);
                listeners.clear();
                try {
                    listeners.addAll(listen(newAddresses, newPort));
                } catch (BindException e) {
                    listeners.addAll(listen(bindAddresses, oldPort));
                    throw e;
                }
            } else {
                List<Channel> fresh = listen(newAddresses, newPort);
                closeAll(old);
                listeners.clear();
                listeners.addAll(fresh);
            }
        } catch (BindException e) {
            log.warn("CONFIG SET: {}", e.getMessage());
            return e.getMessage();
        }
        log.info("Listening on port {} ({})", port, newAddresses);
        wantedPort = newPort;
        bindAddresses = newAddresses;
        return null;
    }

    /**
     * Binds every address of addresses (words, "-" marking optional ones) on wanted; all or none.
     * No addresses at all (CONFIG SET bind "") is no listener, as in Redis: existing clients stay.
     */
    private List<Channel> listen(String addresses, int wanted) throws BindException {
        List<Channel> opened = new ArrayList<>();
        if (addresses.isBlank()) return opened;
        int p = wanted;
        for (String spec : addresses.trim().split("\\s+")) {
            boolean optional = spec.startsWith("-");
            String host = optional ? spec.substring(1) : spec;
            if (host.equals("*")) host = "0.0.0.0";
            if (host.equals("::*")) host = "::";
            try {
                Channel ch = bootstrap.bind(new InetSocketAddress(host, p)).syncUninterruptibly().channel();
                opened.add(ch);
                p = ((InetSocketAddress) ch.localAddress()).getPort();
            } catch (Exception e) {
                if (optional) continue;
                closeAll(opened);
                String reason = e instanceof BindException ? "Address already in use" : e.getMessage();
                throw new BindException("Could not create server TCP listening socket " + host + ":" + p + ": " + reason);
            }
        }
        if (opened.isEmpty()) throw new BindException("Failed listening on port " + wanted + " (tcp), aborting.");
        port = p;
        return opened;
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
        unixSocket = java.nio.file.Path.of(path);
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

    public int port() {
        return port;
    }

    /**
     * Closes the listeners and stops the event loops. Every wait is bounded: a loop that died
     * (e.g. the jar was replaced under a running server) must not hang SIGTERM forever.
     */
    @Override
    public synchronized void close() {
        closeAll(listeners);
        listeners.clear();
        if (unixListener != null) unixListener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        unixListener = null;
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
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
