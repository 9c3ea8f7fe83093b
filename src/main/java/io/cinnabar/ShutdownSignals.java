package io.cinnabar;

import io.cinnabar.config.ConfigOptions;
import io.cinnabar.log.CrashReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * SIGTERM and SIGINT as redis-server takes them (sigShutdownHandler): the signal only asks for a
 * shutdown, which the next cron carries out as shutdown-on-sigterm/-sigint says, so a failed final
 * save keeps the server running and SHUTDOWN ABORT can still cancel it. A second SIGINT while one
 * is pending exits at once, removing the half-written snapshot. The JVM's own handling of these
 * signals (run the shutdown hooks, then exit whatever happens) is replaced for the standalone server.
 */
final class ShutdownSignals {
    private static final Logger log = LoggerFactory.getLogger(ShutdownSignals.class);

    private ShutdownSignals() {}

    static void install(CinnabarServer server, long pid) {
        Signal.handle(new Signal("TERM"), s -> received(server, s.getNumber(), pid));
        // Redis's sigsegvHandler for the one fatal signal the JVM leaves to applications (it
        // keeps SIGSEGV, SIGBUS, SIGFPE and SIGILL for itself).
        CrashReport.endProcessOnCrash();
        Signal.handle(new Signal("ABRT"), s -> {
            if (server.config().getBool(ConfigOptions.CRASH_LOG_ENABLED)) CrashReport.signal(CrashReport.SIGABRT, 0, null);
            else CrashReport.die(CrashReport.SIGABRT);
        });
        if (Signal.handle(new Signal("INT"), s -> received(server, s.getNumber(), pid)) == SignalHandler.SIG_IGN) {
            // Inherited from a background job of a non-interactive shell; the JVM keeps it ignored.
            log.warn("SIGINT was ignored when this process started and stays ignored: use SIGTERM or SHUTDOWN to stop it");
        }
    }

    private static void received(CinnabarServer server, int signal, long pid) {
        boolean sigint = signal == new Signal("INT").getNumber();
        if (server.shutdownRequested() && sigint) {
            log.warn("You insist... exiting now.");
            removeTempSnapshot(server, pid);
            Runtime.getRuntime().halt(1);
        }
        if (server.isLoading()) log.warn("Received shutdown signal during loading, scheduling shutdown.");
        else log.warn(sigint ? "Received SIGINT scheduling shutdown..." : "Received SIGTERM scheduling shutdown...");
        server.requestShutdown(sigint ? 2 : 15);
    }

    /** Redis's rdbRemoveTempFile: the temp-<pid>.rdb a save in progress writes. */
    private static void removeTempSnapshot(CinnabarServer server, long pid) {
        try {
            Files.deleteIfExists(Path.of(server.config().getString(ConfigOptions.DIR)).resolve("temp-" + pid + ".rdb"));
        } catch (IOException e) {
            log.warn("Could not remove the temp snapshot: {}", e.toString());
        }
    }
}
