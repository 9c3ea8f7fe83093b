package io.cinnabar;

/**
 * The block Redis prints at start-up when its logo is shown. Ours has no ASCII art but keeps the
 * facts Redis's has, in the same words: the Redis test suite waits for the " PID: <pid>" line of
 * the process it spawned.
 */
final class StartupBanner {
    private StartupBanner() {}

    static String text(int port, long pid) {
        String indent = "                ";
        return "\n"
                + indent + "Cinnabar " + Version.CINNABAR_VERSION + " (Redis " + Version.REDIS_VERSION
                + " compatible) 64 bit, Java " + System.getProperty("java.version") + "\n"
                + indent + "Running in standalone mode\n"
                + indent + "Port: " + port + "\n"
                + indent + "PID: " + pid + "\n\n";
    }
}
