package io.cinnabar.network;

import io.netty.channel.epoll.Epoll;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty's one-time costs in a JVM, paid on a helper thread while the first server builds its
 * command table and keyspace: loading the native transport library, and the allocator's
 * first buffer, whose event classes register with Java Flight Recorder (~90 ms even when nothing
 * records). Servers started later find both done.
 */
final class NettyWarmUp {
    private static final AtomicBoolean started = new AtomicBoolean();

    private NettyWarmUp() {}

    /** Starts the helper thread, once per JVM; call only once logging is set up (Netty logs from here on). */
    static void startOnce() {
        if (!started.compareAndSet(false, true)) return;
        Thread helper = new Thread(NettyWarmUp::run, "cinnabar-netty-warm-up");
        helper.setDaemon(true);
        helper.start();
    }

    private static void run() {
        try {
            Epoll.isAvailable();
            NettyServer.ALLOCATOR.ioBuffer(64).release();
        } catch (RuntimeException | LinkageError e) {
            // The server's own start makes the same calls, and reports what fails there.
        }
    }
}
