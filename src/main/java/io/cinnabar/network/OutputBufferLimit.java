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

    /** The hard limit of the client's class (0: none), for a command building a reply that only this limit bounds. */
    static long hardLimit(Config config, int cls) {
        return ClientOutputBufferLimit.hardLimit(config, cls);
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
