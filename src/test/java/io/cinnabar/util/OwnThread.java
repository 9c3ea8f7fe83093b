package io.cinnabar.util;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Runs a test's blocking call (a BLPOP, a busy script, a SHUTDOWN) on a thread of its own. The
 * Async methods of CompletableFuture without an executor use the common ForkJoinPool, which has a
 * single worker on a 2-core machine on Java 25 (Java 17 starts a thread per task there):
 * two blocking calls then ran one after the other, and the tests waiting for both timed out.
 */
public final class OwnThread {
    private static final Executor THREAD_PER_TASK = task -> {
        Thread t = new Thread(task, "test-blocking-call");
        t.setDaemon(true);
        t.start();
    };

    private OwnThread() {}

    public static <T> CompletableFuture<T> supply(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, THREAD_PER_TASK);
    }

    public static CompletableFuture<Void> run(Runnable call) {
        return CompletableFuture.runAsync(call, THREAD_PER_TASK);
    }
}
