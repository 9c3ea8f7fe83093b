package io.cinnabar.persistence;

import java.util.concurrent.Executor;

/** The thread that owns the keyspace, as persistence needs it: run a task there, now or later. */
public interface OwnerThread extends Executor {
    void schedule(long delayMs, Runnable task);

    boolean inThread();

    /** Commands run so far (any counter that moves with them): tells a busy thread from an idle one. */
    long commandsRun();

    /** An operation took ms on a persistence thread (Redis's aof-write, aof-fsync-always...): for LATENCY. Any thread. */
    default void latencySample(String event, long ms) { }

    /**
     * A background save (BGSAVE, AOF rewrite) started, its point-in-time view taken in micros on
     * this thread: Redis's fork, as INFO and LATENCY show it. Keyspace thread.
     */
    default void backgroundSaveStarted(long micros) { }

    /** The running command is part of EXEC (Redis's server.in_exec): background saves are scheduled, not started. */
    default boolean inTransaction() {
        return false;
    }
}
