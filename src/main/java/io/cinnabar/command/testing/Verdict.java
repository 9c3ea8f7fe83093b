package io.cinnabar.command.testing;

import io.cinnabar.protocol.Reply;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What happens to a command instead of (or before) running it: the answer of a fault rule or of a
 * {@link CommandInterceptor}. Semantics, chosen to look to a client like what a real server or
 * network does:
 * <ul>
 * <li>{@link #error}/{@link #answer}: the command does not run; the client gets this reply.</li>
 * <li>{@link #delay}: the command runs after the delay (wall-clock time, as the client's timeouts
 * are); other clients are served meanwhile, this client's later requests wait behind it, so
 * replies stay in order.</li>
 * <li>{@link #drop}: the command runs but its reply is lost, and the connection answers nothing
 * from then on (later requests are read and discarded unrun) until the client closes it: what a
 * client sees when a server hangs or the network drops the reply. Replies cannot be skipped on a
 * connection without every later reply answering the wrong request.</li>
 * <li>{@link #close}: the command does not run; the connection is closed once the replies to
 * earlier requests are written.</li>
 * </ul>
 */
public final class Verdict {
    /** How the Dispatcher applies a verdict. */
    public enum Kind { PROCEED, ANSWER, DELAY, DROP, CLOSE }

    private static final Verdict PROCEED = new Verdict(Kind.PROCEED, null, null, 0, "PROCEED");
    private static final Verdict DROP = new Verdict(Kind.DROP, null, null, 0, "DROP");
    private static final Verdict CLOSE = new Verdict(Kind.CLOSE, null, null, 0, "CLOSE");

    private final Kind kind;
    private final String error;
    private final Consumer<Reply> answer;
    private final long delayMs;
    private final String description;

    private Verdict(Kind kind, String error, Consumer<Reply> answer, long delayMs, String description) {
        this.kind = kind;
        this.error = error;
        this.answer = answer;
        this.delayMs = delayMs;
        this.description = description;
    }

    /** The command runs as usual. */
    public static Verdict proceed() {
        return PROCEED;
    }

    /**
     * The client gets this error instead, e.g. "LOADING Redis is loading the dataset in memory",
     * "READONLY You can't write against a read only replica.", "MOVED 3999 127.0.0.1:6381": the
     * first word is the error code clients see. A leading '-' is dropped; line breaks become
     * spaces, as Redis's addReplyError makes them.
     */
    public static Verdict error(String text) {
        String t = text.startsWith("-") ? text.substring(1) : text;
        t = t.replace('\r', ' ').replace('\n', ' ');
        return new Verdict(Kind.ANSWER, t, null, 0, "ERROR " + t);
    }

    /** The client gets what writer writes (through the RESP-typed reply API) instead. */
    public static Verdict answer(Consumer<Reply> writer) {
        return new Verdict(Kind.ANSWER, null, writer, 0, "ANSWER");
    }

    public static Verdict simple(String status) {
        return answer(r -> r.simple(status));
    }

    public static Verdict bulk(String value) {
        byte[] b = value.getBytes(StandardCharsets.UTF_8);
        return answer(r -> r.bulk(b));
    }

    public static Verdict integer(long value) {
        return answer(r -> r.integer(value));
    }

    public static Verdict nullBulk() {
        return answer(Reply::nullBulk);
    }

    /** The command runs once the delay has passed; see the class comment. */
    public static Verdict delay(Duration delay) {
        long ms = Math.max(0, delay.toMillis());
        return new Verdict(Kind.DELAY, null, null, ms, "DELAY " + ms);
    }

    /** The reply is lost and the connection goes silent; see the class comment. */
    public static Verdict drop() {
        return DROP;
    }

    /** The connection is closed instead of answering. */
    public static Verdict close() {
        return CLOSE;
    }

    /** The error a command gets when the interceptor (or its answer) throws instead of deciding. */
    public static String interceptorFailure(RuntimeException e) {
        return "ERR command interceptor failed: " + e;
    }

    public Kind kind() {
        return kind;
    }

    /** The error text of an {@link #error} verdict, else null. */
    public String errorText() {
        return error;
    }

    public long delayMs() {
        return delayMs;
    }

    /** Writes an ANSWER verdict's reply. */
    public void writeAnswer(Reply reply) {
        if (error != null) reply.error(error); else answer.accept(reply);
    }

    /** As FAULT LIST shows the action: "ERROR <text>", "DELAY <ms>", "DROP", "CLOSE", "ANSWER". */
    @Override
    public String toString() {
        return description;
    }
}
