package io.cinnabar;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * oom-score-adj and oom-score-adj-values as Redis's setOOMScoreAdj: the process's
 * /proc/self/oom_score_adj is set to the score of its class (master or replica: there is no
 * background child here), added to the score the process had when Cinnabar first took control
 * ("yes"/"relative") or as it is ("absolute"), clamped to -1000..1000; turning it off puts that
 * first score back. Process-wide state, as the file is.
 */
final class OomScoreAdj {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OomScoreAdj.class);
    private static final Path FILE = Path.of("/proc/self/oom_score_adj");
    private static final ConfigOption MODE = Config.option("oom-score-adj");
    private static final ConfigOption VALUES = Config.option("oom-score-adj-values");
    private static final ConfigOption REPLICAOF = Config.option("replicaof");
    static final String FAILED = "Failed to set current oom_score_adj. Check server logs.";

    private static boolean adjusted;
    private static int base;

    private OomScoreAdj() {}

    /** Applies the configuration now, and again whenever CONFIG SET or REPLICAOF changes what it asks. */
    static void follow(Config config) {
        Supplier<String> apply = () -> apply(config) ? null : FAILED;
        config.onApply(MODE, apply);
        config.onApply(VALUES, apply);
        config.onChange(o -> {
            if (o == REPLICAOF) apply(config);
        });
        apply(config);
    }

    /** False, with a log line, when the file cannot be read or written. */
    static synchronized boolean apply(Config config) {
        String mode = config.getString(MODE);
        int score;
        try {
            if (!mode.equals("no")) {
                if (!adjusted) {
                    base = Integer.parseInt(Files.readString(FILE, StandardCharsets.US_ASCII).trim());
                    adjusted = true;
                }
                int replica = config.getString(REPLICAOF).isEmpty() ? 0 : 1;
                score = Integer.parseInt(config.getString(VALUES).split(" ")[replica]);
                if (mode.equals("yes")) score += base;
                score = Math.max(-1000, Math.min(1000, score));
            } else if (adjusted) {
                adjusted = false;
                score = base;
            } else {
                return true;
            }
        } catch (IOException | NumberFormatException e) {
            log.warn("Unable to read oom_score_adj: {}", e.getMessage());
            return false;
        }
        try {
            Files.writeString(FILE, score + "\n", StandardCharsets.US_ASCII);
            return true;
        } catch (IOException e) {
            log.warn("Unable to write oom_score_adj: {}", e.getMessage());
            return false;
        }
    }
}
