package io.cinnabar;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * maxclients against the process's open files limit, as Redis's adjustOpenFilesLimit: every client
 * is a descriptor, and Redis keeps 32 for itself. A JVM cannot raise the limit (HotSpot already
 * raised its soft limit to the hard one at start), so what it allows is what the limit is now.
 */
final class OpenFilesLimit {
    /** Redis's CONFIG_MIN_RESERVED_FDS. */
    static final long RESERVED = 32;

    private OpenFilesLimit() {}

    /** The most clients the limit allows, wanted itself when it allows that many or cannot be read. */
    static long allowedClients(long wanted) {
        long limit = current();
        if (limit < 0 || limit >= wanted + RESERVED) return wanted;
        return limit - RESERVED;
    }

    /** The soft RLIMIT_NOFILE from /proc/self/limits; -1 when there is none to read. */
    static long current() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (!line.startsWith("Max open files")) continue;
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: nothing to check against
        }
        return -1;
    }
}
