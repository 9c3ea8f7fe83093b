package io.cinnabar.persistence;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * appendfsync always: when to write and fsync rounds handed while replies are being sent. An event
 * loop sending the replies the last fsync released reads no requests meanwhile, and the clients it
 * answers are about to send their next ones. An fsync started then takes only the few rounds handed
 * before, and those requests wait for the fsync after it. So handed rounds wait for the deliveries
 * to end, at most {@link #MAX_WAIT_NANOS}, and one fsync takes them with what follows, as Redis's
 * event loop fsyncs once after serving every ready client. Measured with 50 clients: 20 requests
 * per fsync on average (many of 1 to 5) became 44.
 */
final class DeliveryWait {
    static final long MAX_WAIT_NANOS = 1_000_000L;

    private final AtomicInteger running = new AtomicInteger();
    /** Persistence thread: System.nanoTime() since which rounds wait; 0 when none wait. */
    private long since;

    /** A delivery was handed to an event loop. */
    void started() {
        running.incrementAndGet();
    }

    /** A delivery finished (any thread); true when it was the last one running. */
    boolean ended() {
        return running.decrementAndGet() == 0;
    }

    /**
     * Persistence thread, with rounds waiting to be written: 0 to write them now, else the
     * System.nanoTime() at which to ask again unless a delivery ends first.
     */
    long writeAfter(long now) {
        if (running.get() == 0) {
            since = 0;
            return 0;
        }
        if (since == 0) since = now;
        long until = since + MAX_WAIT_NANOS;
        if (now - until >= 0) {
            since = 0;
            return 0;
        }
        return until;
    }
}
