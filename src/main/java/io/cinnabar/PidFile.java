package io.cinnabar;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The "pidfile" option: written at start-up and removed at exit; failing to write it is not fatal. */
final class PidFile {
    private static final Logger log = LoggerFactory.getLogger(PidFile.class);

    private final Path path;

    private PidFile(Path path) {
        this.path = path;
    }

    /** Writes the pid to config's pidfile; returns null when there is none or it could not be written. */
    static PidFile write(Config config, long pid) {
        String name = config.getString(ConfigOptions.PIDFILE);
        if (name.isEmpty()) return null;
        Path path = config.fileInDir(name);
        try {
            Files.writeString(path, pid + "\n", StandardCharsets.US_ASCII);
            return new PidFile(path);
        } catch (IOException e) {
            log.warn("Failed to write PID file: {}", e.getMessage());
            return null;
        }
    }

    void remove() {
        log.info("Removing the pid file.");
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.warn("Error removing the pid file: {}", e.getMessage());
        }
    }
}
