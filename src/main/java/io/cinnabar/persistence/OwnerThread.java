package io.cinnabar.persistence;

import java.util.concurrent.Executor;

/** The thread that owns the keyspace, as persistence needs it: run a task there, now or later. */
public interface OwnerThread extends Executor {
    void schedule(long delayMs, Runnable task);

    boolean inThread();
}
