package io.cinnabar.command;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an OutOfMemoryError that got past {@link MemoryLimit} does. A server that owns its process
 * exits (status 1, after its shutdown steps) rather than linger half-dead: a supervisor then
 * restarts it, where an event loop killed by the error would leave a process that accepts
 * connections and never answers. An embedded server leaves the decision to its application.
 */
public final class HeapExhaustion {
    private static final Logger log = LoggerFactory.getLogger(HeapExhaustion.class);
    private static volatile boolean exitProcess;
    private static volatile boolean exiting;

    private HeapExhaustion() {}

    /** For a server that owns its process: an OutOfMemoryError from now on ends it. */
    public static void exitProcessOnIt() {
        exitProcess = true;
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            if (e instanceof Error) {
                log.warn("Thread {} died of {}", thread.getName(), e.toString(), e);
                happened(e);
            }
        });
    }

    /** True once an error made the process exit (its shutdown steps are not a SIGTERM's). */
    public static boolean exiting() {
        return exiting;
    }

    /** Reports an error that ended a command or a thread; exits the process if it is a fatal one here. */
    public static void happened(Throwable e) {
        if (!exitProcess) return;
        exiting = true;
        log.warn("Out of memory ({}): exiting, as the heap can no longer be trusted to serve requests", e.toString());
        // Not on the caller's thread: exit() waits for the shutdown hooks, which need the event loop.
        Thread exit = new Thread(() -> System.exit(1), "cinnabar-exit");
        exit.setDaemon(false);
        exit.start();
    }
}
