package io.cinnabar.command.testing;

import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.scripting.ScriptEngine;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.persistence.Persistence;
import io.cinnabar.keyspace.DataCopy;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What tests control in a running server besides its clock: fault injection, the command
 * recorder, reset, in-memory snapshots of the data set and fixtures. One per server; its methods
 * may be called from any thread and run on the keyspace thread (at once when called there, from
 * a CINNABAR command or an interceptor), returning when done.
 */
public final class TestControls {
    private final ServerContext server;
    private final Dispatcher dispatcher;
    private final Faults faults = new Faults(this);
    private final Recorder recorder = new Recorder(this);
    private final CommandWatch watch;
    private final ServerReset reset;

    private TestControls(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.watch = new CommandWatch(faults, recorder, server.keyspace());
        this.reset = new ServerReset(server, dispatcher);
    }

    /**
     * The server's controls; the first call takes the config as it is then as the start-up
     * values {@link #reset} goes back to, so the server makes it as soon as it is configured.
     */
    public static TestControls of(ServerContext server, Dispatcher dispatcher) {
        return server.component(TestControls.class, () -> new TestControls(server, dispatcher));
    }

    public Faults faults() {
        return faults;
    }

    public Recorder recorder() {
        return recorder;
    }

    /** Back to how the server started; see {@link ServerReset}. Throws if a config option could not be put back. */
    public void reset() {
        String error = call(() -> {
            String e = reset.run(faults, recorder);
            changed();
            return e;
        });
        if (error != null) throw new IllegalStateException("reset incomplete: " + error);
    }

    /**
     * Runs hook on the keyspace thread at the end of every {@link #reset} (the manual clock goes
     * back to where it started there). Hooks run in the order registered.
     */
    public void onReset(Runnable hook) {
        reset.addHook(hook);
    }

    /** The data set (keys, TTLs, function libraries) as it is now, kept in memory. */
    public DataSnapshot snapshot() {
        return call(() -> new DataSnapshot(DataCopy.of(server.keyspace()), server.functionLibraryCodes()));
    }

    /**
     * Replaces the data set with the snapshot's, as FLUSHALL and a load would (WATCHes touched,
     * tracking clients invalidated, blocked clients served if their keys come back). The snapshot
     * stays as it was and can be restored again.
     */
    public void restore(DataSnapshot snapshot) {
        call(() -> {
            reset.emptyKeys();
            ScriptEngine engine = server.component(ScriptEngine.class, null);
            if (engine != null) engine.flushLibraries();
            snapshot.keys.restoreInto(server.keyspace());
            if (!snapshot.libraries.isEmpty()) {
                ScriptEngine e = ScriptEngine.of(server, dispatcher);
                for (byte[] code : snapshot.libraries) e.loadLibrary(code, true);
            }
            rewriteAof();
            return null;
        });
    }

    /**
     * Adds a fixture file's data: a dump.rdb (recognised by its "REDIS" signature), or commands,
     * one per line as redis-cli takes them or in RESP, run as a client's would be. Keys of the
     * same name are replaced. IllegalArgumentException naming the file (and the command's line
     * or number) if it cannot be read or a command fails.
     */
    public void loadFixture(Path file) {
        call(() -> {
            try {
                Fixtures.load(server, dispatcher, file);
            } finally {
                rewriteAof();
            }
            return null;
        });
    }

    /**
     * Holds the persistence thread between two pieces of its work, until the returned handle is
     * closed: the writes, fsyncs and snapshots it would do wait, while the keyspace thread goes
     * on (writing the AOF itself where it may). For tests of what clients see while that thread
     * falls behind, as it does behind a slow disk.
     */
    public AutoCloseable holdPersistenceThread() {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        server.persistence().thread().execute(() -> {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            if (!held.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the persistence thread did not come within 60 s");
            }
        } catch (InterruptedException e) {
            release.countDown();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the persistence thread", e);
        }
        return release::countDown;
    }

    /**
     * The data set changed without propagation (restore, fixtures, as DEBUG RELOAD): with the AOF
     * on, a rewrite makes it hold the new data set, so a restart finds what the test left.
     */
    private void rewriteAof() {
        if (!server.config().getBool(ConfigOptions.APPENDONLY)) return;
        Persistence p = server.persistence();
        p.aof().bgrewrite(p.rdb().bgsaveInProgress());
    }

    /** The Dispatcher consults the watch only while something needs it. Keyspace thread. */
    void changed() {
        dispatcher.watch(faults.active() || recorder.isRecording() ? watch : null);
    }

    /** Runs work on the keyspace thread and returns its result; its exceptions are rethrown here. */
    <T> T call(Supplier<T> work) {
        if (server.thread().inThread()) return work.get();
        CompletableFuture<T> done = new CompletableFuture<>();
        server.thread().execute(() -> {
            try {
                done.complete(work.get());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        try {
            return done.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the server", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the server did not answer within 60 s (stopped?)", e);
        }
    }
}
