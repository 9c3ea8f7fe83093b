package io.cinnabar.network;

import io.cinnabar.config.ClientOutputBufferLimit;
import io.cinnabar.config.ClientOutputBufferLimit.Limits;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;

/**
 * client-output-buffer-limit for one connection, as Redis's checkClientOutputBufferLimits
 * applies it to the client's class (normal, replica, pubsub): past the hard limit the client is
 * closed at once; past the soft limit it is closed once it has stayed there longer than
 * soft-seconds. 0 disables a limit (the default for normal clients).
 */
final class OutputBufferLimit {
    /**
     * Redis counts only a client's reply list against its limit, not the client's own reply
     * buffer, which its cron shrinks to 1 KB (PROTO_REPLY_MIN_BYTES) within a few hundred ms of
     * the connection (it grows back only for clients whose replies keep filling it): under
     * "normal 1 2 3" a PING or a 1000-byte GET still gets its reply. Replicas have no such buffer.
     */
    private static final int REPLY_BUFFER_BYTES = 1024;
    /**
     * What passes that buffer goes to a node of the reply list allocated for at least 16 KB
     * (PROTO_REPLY_CHUNK_BYTES) plus its 16-byte header, and counted as the allocation's size, as
     * jemalloc rounds it, plus 40 bytes of list node: measured with redis-server 7.0.15, a GET of
     * 3,000 bytes is refused under hard limits up to 20,504 bytes, one of 40,000 up to 40,984.
     */
    private static final long CHUNK = 16 * 1024, BLOCK_HEADER = 16, NODE_OVERHEAD = 40;

    private final Config config;
    private long softReachedAtMs;

    OutputBufferLimit(Config config) {
        this.config = config;
    }

    /**
     * True when a client (of class pubsub when subscribed) whose pending output would be
     * {@code bytes} must be closed. The clock is read only past a soft limit: this runs for every
     * reply written.
     */
    boolean exceeded(long bytes, int cls) {
        Limits limits = limits(config);
        long hard = cls == Limits.REPLICA ? ClientOutputBufferLimit.hardLimit(config, cls) : limits.hard(cls);
        long soft = limits.soft(cls), softSeconds = limits.softSeconds(cls);
        if (cls != Limits.REPLICA) bytes = counted(bytes);
        if (hard > 0 && bytes >= hard) return true;
        if (soft > 0 && bytes >= soft) {
            long nowMs = System.currentTimeMillis();
            if (softReachedAtMs == 0) {
                softReachedAtMs = nowMs;
                return false;
            }
            return (nowMs - softReachedAtMs) / 1000 > softSeconds;
        }
        softReachedAtMs = 0;
        return false;
    }

    /**
     * The pending output that passes the hard limit of the client's class (0: no limit), for a
     * command building a reply that only this limit bounds.
     */
    static long hardLimit(Config config, int cls) {
        long hard = ClientOutputBufferLimit.hardLimit(config, cls);
        if (hard == 0 || cls == Limits.REPLICA) return hard;
        // The least pending output Redis would count at the limit (counted grows with the bytes,
        // and counts more than the bytes past the buffer).
        long low = REPLY_BUFFER_BYTES + 1, high = REPLY_BUFFER_BYTES + hard;
        while (low < high) {
            long mid = (low + high) >>> 1;
            if (counted(mid) >= hard) high = mid; else low = mid + 1;
        }
        return low;
    }

    /** Redis's count for a normal or pubsub client with this many bytes of replies pending. */
    static long counted(long pendingBytes) {
        long listed = pendingBytes - REPLY_BUFFER_BYTES;
        if (listed <= 0) return 0;
        return jemallocSize(Math.max(listed, CHUNK) + BLOCK_HEADER) - BLOCK_HEADER + NODE_OVERHEAD;
    }

    /** jemalloc's size class for a request of more than 16 KB: four classes per power of two. */
    private static long jemallocSize(long n) {
        long step = Long.highestOneBit(n - 1) >> 2;
        return (n + step - 1) / step * step;
    }

    /** True while the output stays past a soft limit whose seconds have not run out yet. */
    boolean softLimitPending() {
        return softReachedAtMs != 0;
    }

    /** The option as the config table keeps it, parsed once per CONFIG SET (not per connection or reply). */
    private static Limits limits(Config config) {
        return (Limits) config.get(ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT);
    }
}
