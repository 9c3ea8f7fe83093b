package io.cinnabar.network;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty's one-time costs in a JVM, paid on a helper thread while the first server builds its
 * config, command table and keyspace: loading the native transport library and the classes of the
 * listening socket, event loops and channels first (what the server's thread reaches first), then
 * the connections' allocator and its classes. Servers started later find them done. Started by
 * CinnabarServer.builder() in that order, the first embedded start went from 360 to 342 ms
 * (builder to ready, medians of 30 fresh JVMs each, interleaved).
 * <p>
 * It takes no buffer from the allocator: that would tie this thread to one of the pool's arenas,
 * whose first 1 MB chunk then stays for the life of the process though the io threads use other
 * arenas (Netty's native memory with ~950k keys loaded: 3.2 -> 2.1 MB).
 */
public final class NettyWarmUp {
    /** Netty's switch for its allocator's Java Flight Recorder events. */
    private static final String NETTY_JFR = "io.netty.jfr.enabled";
    private static final AtomicBoolean started = new AtomicBoolean();
    /**
     * Classes the server's threads would otherwise load and initialise when they make the event
     * loops, bind and serve the first connection, in that order. The adaptive allocator is Netty's
     * default, which every channel's config initialises though the server's channels use
     * {@link NettyServer#ALLOCATOR} (made by NettyServer's initialiser) and the pool's classes.
     */
    private static final String[] CLASSES = {
        "io.netty.channel.MultiThreadIoEventLoopGroup", "io.netty.channel.SingleThreadIoEventLoop",
        "io.netty.channel.epoll.EpollIoHandler", "io.netty.bootstrap.ServerBootstrap",
        "io.netty.channel.DefaultChannelPipeline", "io.netty.channel.epoll.EpollSocketChannel",
        "io.netty.buffer.AdaptiveByteBufAllocator", "io.cinnabar.network.NettyServer",
        "io.netty.buffer.PoolThreadCache", "io.netty.buffer.PoolChunk", "io.netty.buffer.PoolSubpage",
        "io.netty.buffer.PoolChunkList", "io.netty.buffer.PooledUnsafeDirectByteBuf",
    };

    private NettyWarmUp() {}

    /**
     * Starts the helper thread, once per JVM; call only once logging is set up (Netty logs from
     * here on). Turns Netty's allocator events for Java Flight Recorder off unless the application
     * set {@value #NETTY_JFR} itself (conf/jvm.options turns them off for the standalone server):
     * at the first buffer Netty registers their classes with JFR even when nothing records, 60-80 ms
     * of a first embedded start (measured, means of 8 fresh JVMs: builder to the first PONG 459 -> 403 ms).
     */
    public static void startOnce() {
        if (!started.compareAndSet(false, true)) return;
        if (System.getProperty(NETTY_JFR) == null) System.setProperty(NETTY_JFR, "false");
        Thread helper = new Thread(NettyWarmUp::run, "cinnabar-netty-warm-up");
        helper.setDaemon(true);
        helper.start();
    }

    private static void run() {
        // The server's own start makes the same calls, and reports what fails there.
        try {
            if (Epoll.isAvailable()) new EpollServerSocketChannel().unsafe().closeForcibly();
        } catch (RuntimeException | LinkageError e) {
            // no listening socket here (out of descriptors): the classes below still help
        }
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, NettyWarmUp.class.getClassLoader());
            } catch (LinkageError | ClassNotFoundException | RuntimeException e) {
                // an epoll class where the native transport does not load: the others still help
            }
        }
    }
}
