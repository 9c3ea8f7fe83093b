package io.cinnabar.command;

import io.cinnabar.command.scripting.ScriptEngine;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.persistence.Loading;
import io.cinnabar.persistence.aof.AofReplayException;

import java.nio.charset.StandardCharsets;

/**
 * Applies what a loader thread decoded, on the keyspace thread: keys from an RDB go straight into
 * their database, commands from an AOF are replayed through the Dispatcher by a client of their
 * own, as Redis's fake AOF client does (no reply, no propagation, no checks but the command name).
 */
final class DataLoader implements Loading.Sink {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DataLoader.class);

    private final ServerContext server;
    private final Keyspace keyspace;
    private final KeyspaceEvents events;
    private final Dispatcher dispatcher;
    private final Client aofClient;
    private final CommandTable commands;
    private boolean allowDuplicates;

    DataLoader(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.keyspace = server.keyspace();
        this.events = server.events();
        this.dispatcher = dispatcher;
        this.aofClient = new Client(-1, ClientChannel.NOWHERE, true);
        this.commands = server.commands();
    }

    /** DEBUG RELOAD MERGE: a key or library already present is replaced instead of failing the load. */
    DataLoader allowDuplicates(boolean allow) {
        allowDuplicates = allow;
        return this;
    }

    @Override
    public long now() {
        return keyspace.mstime();
    }

    @Override
    public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) {
        Database d = keyspace.db(db);
        if (!allowDuplicates && d.exists(key)) {
            // Redis logs this and panics: a dump with a key twice is corrupt.
            throw new IllegalStateException("RDB has duplicated key '" + new String(key, StandardCharsets.UTF_8)
                    + "' in DB " + db);
        }
        events.quietly(() -> {
            if (expireAtMs == -1) d.set(key, value); else d.set(key, value, expireAtMs);
        });
        d.setAccess(key, idleSeconds, freq);
    }

    /** As Redis's rdbFunctionLoad: a library that cannot be created (it exists, it fails to compile) fails the load. */
    @Override
    public void function(byte[] code) {
        try {
            ScriptEngine.of(server, dispatcher).loadLibrary(code, allowDuplicates);
        } catch (CommandError e) {
            String reason = e.getMessage().startsWith("ERR ") ? e.getMessage().substring(4) : e.getMessage();
            log.warn("Failed loading library, {}", reason);
            throw new IllegalStateException("Failed loading library, " + reason);
        }
    }

    @Override
    public void command(byte[][] argv) {
        dispatcher.replay(aofClient, argv);
    }

    /** Loader thread: the command table's lookups are safe from any thread. */
    @Override
    public void check(byte[][] argv) {
        if (commands.lookup(argv[0]) == null) throw AofReplayException.unknownCommand(argv[0]);
    }
}
