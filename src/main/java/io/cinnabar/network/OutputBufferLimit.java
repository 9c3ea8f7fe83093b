package io.cinnabar.network;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;

/**
 * One class ("normal", "pubsub") of client-output-buffer-limit, as Redis's
 * checkClientOutputBufferLimits applies it: past the hard limit the client is closed at once; past
 * the soft limit it is closed once it has stayed there longer than soft-seconds. 0 disables a limit.
 */
final class OutputBufferLimit {
    private final Config config;
    private final String clientClass;
    private String parsedFrom;
    private long hard;
    private long soft;
    private long softSeconds;
    private long softReachedAtMs;

    OutputBufferLimit(Config config, String clientClass) {
        this.config = config;
        this.clientClass = clientClass;
    }

    /** True when a client whose pending output would be {@code bytes} must be closed. */
    boolean exceeded(long bytes, long nowMs) {
        refresh();
        if (hard > 0 && bytes >= hard) return true;
        if (soft > 0 && bytes >= soft) {
            if (softReachedAtMs == 0) {
                softReachedAtMs = nowMs;
                return false;
            }
            return (nowMs - softReachedAtMs) / 1000 > softSeconds;
        }
        softReachedAtMs = 0;
        return false;
    }

    /** Re-reads the option only when CONFIG SET replaced it (the value is an immutable String). */
    private void refresh() {
        String value = config.getString(ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT);
        if (value == parsedFrom) return;
        parsedFrom = value;
        hard = soft = softSeconds = 0;
        String[] w = value.trim().split("\\s+");
        for (int i = 0; i + 3 < w.length; i += 4) {
            if (w[i].equals(clientClass)) {
                hard = Long.parseLong(w[i + 1]);
                soft = Long.parseLong(w[i + 2]);
                softSeconds = Long.parseLong(w[i + 3]);
            }
        }
    }
}
