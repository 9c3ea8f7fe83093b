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
        if (cls != Limits.REPLICA) bytes -= REPLY_BUFFER_BYTES;
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
        return hard == 0 || cls == Limits.REPLICA ? hard : hard + REPLY_BUFFER_BYTES;
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
