package io.cinnabar.network;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;

/**
 * client-output-buffer-limit for one connection, as Redis's checkClientOutputBufferLimits
 * applies it to the client's class (normal, replica, pubsub): past the hard limit the client is
 * closed at once; past the soft limit it is closed once it has stayed there longer than
 * soft-seconds. 0 disables a limit (the default for normal clients).
 */
final class OutputBufferLimit {
    private static final String[] CLASSES = {"normal", "replica", "pubsub"};
    private static final int NORMAL = 0, PUBSUB = 2;
    /**
     * The option value parsed last, shared by every connection: each new connection parsed it
     * again for its first reply (String.split compiles a regex), 3.5% of the server's CPU
     * samples when clients connect per request (redis-benchmark -k 0).
     */
    private static volatile Parsed lastParsed = new Parsed(null, new long[CLASSES.length][3]);

    private final Config config;
    private Parsed parsed = lastParsed;
    private long softReachedAtMs;

    OutputBufferLimit(Config config) {
        this.config = config;
    }

    /**
     * True when a client (of class pubsub when subscribed) whose pending output would be
     * {@code bytes} must be closed. The clock is read only past a soft limit: this runs for every
     * reply written.
     */
    boolean exceeded(long bytes, boolean pubsub) {
        refresh();
        long[] l = parsed.limits[pubsub ? PUBSUB : NORMAL];
        long hard = l[0], soft = l[1], softSeconds = l[2];
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
     * The hard limit of the client's class (0: none), for a command building a reply that only
     * this limit bounds; reads the option afresh (any thread, seldom).
     */
    static long hardLimit(Config config, boolean pubsub) {
        OutputBufferLimit limit = new OutputBufferLimit(config);
        limit.refresh();
        return limit.parsed.limits[pubsub ? PUBSUB : NORMAL][0];
    }

    /** True while the output stays past a soft limit whose seconds have not run out yet. */
    boolean softLimitPending() {
        return softReachedAtMs != 0;
    }

    /** Re-reads the option only when CONFIG SET replaced it (the value is an immutable String). */
    private void refresh() {
        String value = config.getString(ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT);
        if (value == parsed.from) return;
        Parsed shared = lastParsed;
        if (value != shared.from) {
            shared = Parsed.of(value);
            lastParsed = shared;
        }
        parsed = shared;
    }

    /** An option value and its hard, soft, soft-seconds per class, indexed like {@link #CLASSES}; read-only. */
    private record Parsed(String from, long[][] limits) {
        static Parsed of(String value) {
            long[][] limits = new long[CLASSES.length][3];
            String[] w = value.trim().split("\\s+");
            for (int i = 0; i + 3 < w.length; i += 4) {
                String name = w[i].equals("slave") ? "replica" : w[i];
                for (int k = 0; k < CLASSES.length; k++) {
                    if (!CLASSES[k].equals(name)) continue;
                    limits[k][0] = Long.parseLong(w[i + 1]);
                    limits[k][1] = Long.parseLong(w[i + 2]);
                    limits[k][2] = Long.parseLong(w[i + 3]);
                }
            }
            return new Parsed(value, limits);
        }
    }
}
