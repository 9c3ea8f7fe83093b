package io.cinnabar.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * Redis's bug report (debug.c) for a crash: the lines operators, supervisors' log scrapers and
 * the test suite look for ("crashed by signal", "Guru Meditation", "ASSERTION FAILED") between
 * Redis's START and END markers, with every thread's stack and, when the crash happened where it
 * can be read, the server's INFO; then the end of the process. A server that owns its process
 * ends it at once with 128 + the signal Redis would die of (what a shell reports for a process a
 * signal killed: the JVM cannot kill itself by SIGSEGV or SIGABRT); an embedded server leaves the
 * JVM alone and its caller stops the server.
 */
public final class CrashReport {
    private static final Logger log = LoggerFactory.getLogger(CrashReport.class);
    public static final int SIGABRT = 6;
    public static final int SIGSEGV = 11;
    private static volatile boolean endsProcess;

    private CrashReport() {}

    /** For a server that owns its process: a crash from now on ends it. */
    public static void endProcessOnCrash() {
        endsProcess = true;
    }

    /** Redis's sigsegvHandler: a fatal signal (siCode 0 for one sent by kill), reported, then the end. */
    public static void signal(int signal, int siCode, String info) {
        start();
        log.warn("Redis {} crashed by signal: {}, si_code: {}", io.cinnabar.Version.REDIS_VERSION, signal, siCode);
        details(info);
        end(signal);
    }

    /** Redis's serverPanic: an impossible state, reported with where it was found, then the end (abort). */
    public static void panic(String message, String where, boolean details, String info) {
        start();
        log.warn("------------------------------------------------");
        log.warn("!!! Software Failure. Press left mouse button to continue");
        log.warn("Guru Meditation: {} #{}", message, where);
        if (details) details(info);
        end(SIGABRT);
    }

    /** Redis's serverAssert: a check that failed, then the end (abort). */
    public static void assertion(String expression, String where, boolean details, String info) {
        start();
        log.warn("=== ASSERTION FAILED ===");
        log.warn("==> {} '{}' is not true", where, expression);
        if (details) details(info);
        end(SIGABRT);
    }

    /** The end with no report: crash-log-enabled no, where Redis leaves the signal to the system. */
    public static void die(int signal) {
        if (endsProcess) Runtime.getRuntime().halt(128 + signal);
    }

    private static void start() {
        log.warn(ServerLog.RAW, "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
    }

    /** Every thread's stack, the crashing one first, and INFO when given. */
    private static void details(String info) {
        StringBuilder out = new StringBuilder("\n------ STACK TRACE ------\n");
        Thread current = Thread.currentThread();
        StackTraceElement[] here = current.getStackTrace();
        int from = 0;
        // From where the crash was raised: not getStackTrace's frame nor this class's.
        while (from < here.length && (here[from].getClassName().equals(Thread.class.getName())
                || here[from].getClassName().equals(CrashReport.class.getName()))) from++;
        appendStack(out, current, java.util.Arrays.copyOfRange(here, from, here.length));
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey() != current) appendStack(out, e.getKey(), e.getValue());
        }
        if (info != null) out.append("\n------ INFO OUTPUT ------\n").append(info);
        log.warn(ServerLog.RAW, out.toString());
    }

    private static void appendStack(StringBuilder out, Thread t, StackTraceElement[] frames) {
        out.append('\n').append(t.getName()).append(" (").append(t.getState()).append("):\n");
        for (StackTraceElement f : frames) out.append("    ").append(f).append('\n');
    }

    private static void end(int signal) {
        // Redis's markers, which tools look for; the advice is Cinnabar's own.
        log.warn(ServerLog.RAW, "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n"
                + "       This server is Cinnabar " + io.cinnabar.Version.CINNABAR_VERSION + ", not Redis: please report the\n"
                + "       crash to Cinnabar's maintainers, not on github.com/redis/redis.\n");
        die(signal);
    }
}
