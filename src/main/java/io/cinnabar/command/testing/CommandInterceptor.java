package io.cinnabar.command.testing;

/**
 * Sees each command a client sends before it runs (after the fault rules, which take precedence)
 * and decides what happens to it: {@link Verdict#proceed()} lets it through. Runs on the keyspace
 * thread: it must be quick and must not wait for the server (calling the server's Java API from
 * it is fine: that runs at once on this thread).
 * <pre>{@code
 * server.faults().intercept(cmd -> cmd.name().equals("GET") && cmd.argString(1).startsWith("user:")
 *         ? Verdict.error("LOADING Redis is loading the dataset in memory") : Verdict.proceed());
 * }</pre>
 */
@FunctionalInterface
public interface CommandInterceptor {
    Verdict intercept(InterceptedCommand command);
}
