package io.cinnabar.command.testing;

import io.cinnabar.command.Client;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.scripting.ScriptEngine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts a running server back to how it started, without restarting it or closing connections
 * (CINNABAR RESET, {@code server.reset()}): no keys, no scripts or function libraries, the config
 * as it was at start-up, no faults, the recorder off and empty, statistics and the slow log
 * cleared, CLIENT PAUSE ended, and whatever else registered with {@link TestControls#onReset}
 * (the manual clock). Connected clients keep their connection, name, database and protocol (their
 * client libraries track those), but a blocked client is answered as at its timeout and a
 * subscribed one is unsubscribed from everything, with the usual confirmations. WATCHed keys count
 * as changed (the flush touches them), so a transaction that spans a reset fails its EXEC.
 * Keyspace thread.
 */
final class ServerReset {
    private static final byte[][] FLUSHALL = {"FLUSHALL".getBytes(StandardCharsets.US_ASCII)};
    private static final byte[][] FUNCTION_FLUSH = {"FUNCTION".getBytes(StandardCharsets.US_ASCII),
            "FLUSH".getBytes(StandardCharsets.US_ASCII)};

    private final ServerContext server;
    private final Dispatcher dispatcher;
    private final Object[] startupConfig;
    /** Added from any thread (the server adds its clock's before the keyspace thread starts). */
    private final List<Runnable> hooks = new java.util.concurrent.CopyOnWriteArrayList<>();

    ServerReset(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.startupConfig = server.config().checkpoint();
    }

    void addHook(Runnable hook) {
        hooks.add(hook);
    }

    /** Null, or what could not be put back (a config option that refused its start-up value). */
    String run(Faults faults, Recorder recorder) {
        faults.clear();
        recorder.reset();
        server.pause().unpause();
        for (Client c : new ArrayList<>(server.clients())) {
            if (c.blocked()) server.blocked().unblock(c, false);
            server.pubSub().unsubscribeEverything(c);
        }
        emptyKeys();
        ScriptEngine engine = server.component(ScriptEngine.class, null);
        if (engine != null && engine.resetForTests()) dispatcher.propagate(0, FUNCTION_FLUSH);
        String configError = server.config().restore(startupConfig);
        server.resetStats();
        server.slowLog().reset();
        server.pauseCron(false);
        server.activeExpireEnabled(true);
        server.skipChecksumValidation(false);
        server.scriptsMayRunNoscript(false);
        for (Runnable hook : hooks) hook.run();
        return configError == null ? null : "config: " + configError;
    }

    /** Drops every key as FLUSHALL does (tracking clients invalidated, WATCHes touched, propagated). */
    void emptyKeys() {
        server.keyspace().flushAll();
        server.tracking().flushed();
        dispatcher.propagate(0, FLUSHALL);
    }
}
