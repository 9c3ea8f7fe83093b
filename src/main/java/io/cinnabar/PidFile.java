package io.cinnabar;

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

    /** Writes the pid to path; returns null when path is empty or could not be written. */
    static PidFile write(String path, long pid) {
        if (path.isEmpty()) return null;
        try {
            Files.writeString(Path.of(path), pid + "\n", StandardCharsets.US_ASCII);
            return new PidFile(Path.of(path));
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
