package io.cinnabar.network;

import io.netty.channel.epoll.Epoll;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty's one-time costs in a JVM, paid on a helper thread while the first server builds its
 * command table and keyspace: initialising Netty and the connections' allocator, and loading the
 * native transport library. Servers started later find them done.
 */
public final class NettyWarmUp {
    /** Netty's switch for its allocator's Java Flight Recorder events. */
    private static final String NETTY_JFR = "io.netty.jfr.enabled";
    private static final AtomicBoolean started = new AtomicBoolean();

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
        try {
            NettyServer.ALLOCATOR.ioBuffer(64).release();
            Epoll.isAvailable();
        } catch (RuntimeException | LinkageError e) {
            // The server's own start makes the same calls, and reports what fails there.
        }
    }
}
