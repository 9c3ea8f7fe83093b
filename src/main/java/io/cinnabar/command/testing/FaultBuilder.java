package io.cinnabar.command.testing;

import java.time.Duration;
import java.util.Locale;

/**
 * A fault rule being described: {@code server.faults().on("GET").withKey("user:*").times(3)
 * .replyError("LOADING Redis is loading the dataset in memory")}. Nothing is installed until one
 * of the actions ({@link #replyError}, {@link #delay}, {@link #drop}, {@link #closeConnection},
 * {@link #then}) is called; it returns the installed {@link Fault}.
 */
public final class FaultBuilder {
    private final Faults faults;
    private final String command;
    private String keyPattern;
    private String clientPattern;
    private long nth = 1;
    private long times = -1;

    FaultBuilder(Faults faults, String command) {
        this.faults = faults;
        this.command = normalise(command);
    }

    /** "GET", "get", "*" (every command), "CONFIG SET" or "config|set" (one subcommand). */
    static String normalise(String command) {
        return command.trim().toLowerCase(Locale.ROOT).replace(' ', '|');
    }

    /** Only calls with a key matching this glob pattern (Redis's KEYS syntax). */
    public FaultBuilder withKey(String pattern) {
        keyPattern = pattern;
        return this;
    }

    /** Only calls from clients whose CLIENT SETNAME name matches this glob pattern. */
    public FaultBuilder fromClient(String namePattern) {
        clientPattern = namePattern;
        return this;
    }

    /** Lets the first n-1 matching calls through: acts from the nth on. */
    public FaultBuilder onCall(long n) {
        if (n < 1) throw new IllegalArgumentException("calls count from 1: " + n);
        nth = n;
        return this;
    }

    /** Acts on n calls, then removes itself; without it the rule stays until removed. */
    public FaultBuilder times(long n) {
        if (n < 1) throw new IllegalArgumentException("times must be positive: " + n);
        times = n;
        return this;
    }

    /** Replies this error instead of running the command: "LOADING ...", "READONLY ...", "MOVED 3999 host:port", "BUSY ...", "OOM ...". */
    public Fault replyError(String text) {
        return then(Verdict.error(text));
    }

    /** Runs the command after the delay; see {@link Verdict#delay}. */
    public Fault delay(Duration delay) {
        return then(Verdict.delay(delay));
    }

    /** Loses the reply and silences the connection; see {@link Verdict#drop}. */
    public Fault drop() {
        return then(Verdict.drop());
    }

    /** Closes the connection instead of answering. */
    public Fault closeConnection() {
        return then(Verdict.close());
    }

    /** Any verdict, e.g. {@code then(Verdict.simple("OK"))}. */
    public Fault then(Verdict action) {
        return faults.install(command, keyPattern, clientPattern, nth, times, action);
    }
}
