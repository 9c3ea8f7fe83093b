package io.cinnabar.command;

import io.cinnabar.command.scripting.ScriptEngine;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.persistence.AppendOnly;
import io.cinnabar.persistence.LoadSources;
import io.cinnabar.persistence.Loading;
import io.cinnabar.persistence.Persistence;
import io.cinnabar.persistence.aof.AofManifest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Whole data sets coming into the keyspace: at start-up (the AOF when appendonly is on, else the
 * dump), DEBUG RELOAD and DEBUG LOADAOF. The keyspace is in loading state meanwhile: nothing
 * expires, and clients' commands other than LOADING-flagged ones get Redis's LOADING error.
 */
public final class DataSets {
    private static final Logger log = LoggerFactory.getLogger(DataSets.class);

    /** How long requests arriving during start-up's loading wait for it at most before getting LOADING. */
    private static final long SHOW_LOADING_AFTER_NANOS = 200_000_000L;

    private final ServerContext server;
    private final Dispatcher dispatcher;

    DataSets(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
    }

    /**
     * Loads what is on disk while clients are already served (with LOADING), then opens the AOF
     * for appending; done gets null or the reason start-up must fail. Keyspace thread.
     */
    public void loadAtStartup(Consumer<String> done) {
        Config config = server.config();
        Keyspace keyspace = server.keyspace();
        Persistence p = server.persistence();
        boolean aof = config.getBool(ConfigOptions.APPENDONLY);
        LoadSources.LoadStats stats = new LoadSources.LoadStats();
        if (!aof && server.masterLink().host() == null) stats.keepExpiredKeys();
        AofManifest[] manifest = new AofManifest[1];
        Loading.Source source = aof ? LoadSources.aof(config, p.aof().layout(), stats, manifest)
                : LoadSources.rdb(config, p.rdb().dumpFile(), stats);
        keyspace.loading(true);
        p.loading().loadInBackground(source, new DataLoader(server, dispatcher), p.ownerThread(), error -> {
            try {
                if (error == null && aof) p.aof().openAtStartup(manifest[0] == null ? AofManifest.empty() : manifest[0]);
            } catch (IOException e) {
                error = "Can't open the append-only file: " + e.getMessage();
            }
            // Redis restores the replication point from an RDB only, not from an AOF; before any
            // request held meanwhile (a replica's PSYNC) runs.
            if (error == null && !aof && stats.replicationPoint() != null) {
                server.masterLink().restore(stats.replicationPoint(), stats.expiredKeys());
            }
            finishLoading(stats);
            server.masterLink().start();
            done.accept(error);
        });
        showLoadingAfter(p.loading(), config.getLong(ConfigOptions.LOADING_PROCESS_EVENTS_INTERVAL_BYTES),
                System.nanoTime() + SHOW_LOADING_AFTER_NANOS);
    }

    /**
     * Redis first serves clients (with LOADING) once a load has read
     * loading-process-events-interval-bytes: a shorter load, or none, is over before anyone is
     * answered. Until then the requests that arrive wait (see Dispatcher.releaseHeldAtStart);
     * at the latest until the deadline (an AOF's commands count their bytes only at its end).
     */
    private void showLoadingAfter(Loading loading, long bytes, long deadlineNanos) {
        if (!server.keyspace().isLoading()) return;
        if (loading.loadedBytes() >= bytes || System.nanoTime() - deadlineNanos >= 0) {
            dispatcher.releaseHeldAtStart();
            return;
        }
        server.thread().schedule(1, () -> showLoadingAfter(loading, bytes, deadlineNanos));
    }

    /** DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: null, or the error to reply. */
    public String reload(boolean merge, boolean flush, boolean save) {
        Persistence p = server.persistence();
        if (save && p.rdb().save() != null) return "ERR";
        if (flush) emptyData();
        // Redis's rdbLoad fails when the file cannot be opened (NOSAVE with no dump file): the data
        // set emptied all the same, unless NOFLUSH.
        if (!java.nio.file.Files.exists(p.rdb().dumpFile())) return "ERR Error trying to load the RDB dump";
        LoadSources.LoadStats stats = new LoadSources.LoadStats();
        String error = loadNow(LoadSources.rdb(server.config(), p.rdb().dumpFile(), stats), merge, stats);
        if (error != null) return "ERR Error trying to load the RDB dump";
        log.warn("DB reloaded by DEBUG RELOAD");
        return null;
    }

    /**
     * A replica's full resynchronisation (readSyncBulkPayload): the data set replaced by the
     * master's payload, which becomes the dump file. The AOF is switched off first and back on
     * after, as Redis's stopAppendOnly and restartAOFAfterSYNC do: until the rewrite that follows
     * makes a base of the new data, the files keep the old data set whole, and the master's
     * stream collects beside them. The database the master's stream continues in (the payload's
     * repl-stream-db), or what went wrong.
     */
    public MasterPayload loadFromMaster(java.nio.file.Path payload) {
        Persistence p = server.persistence();
        // Left on, a stop before the rewrite ends would leave files holding the old data plus the new stream.
        p.aof().disable();
        java.nio.file.Path dump = p.rdb().dumpFile();
        if (p.rdb().bgsaveInProgress()) {
            // Its file would replace the master's data in the dump file once written.
            log.info("Replica is about to load the RDB file received from the master, but there is a pending RDB child running. "
                    + "Killing process {} and removing its temp file to avoid any race", ProcessHandle.current().pid());
            p.rdb().killBgsave();
        }
        try {
            java.nio.file.Files.move(payload, dump, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            return MasterPayload.failed("Failed trying to rename the temp DB into " + dump.getFileName()
                    + " in MASTER <-> REPLICA synchronization: " + e.getMessage());
        }
        emptyData();
        LoadSources.LoadStats stats = new LoadSources.LoadStats();
        if (loadNow(LoadSources.rdb(server.config(), dump, stats), false, stats) != null) {
            emptyData();
            return MasterPayload.failed("Failed trying to load the MASTER synchronization DB from disk, check server logs.");
        }
        p.restartAppendOnly();
        return new MasterPayload(null, stats.replStreamDb());
    }

    /** A master's payload loaded (error null, and the database its stream is in), or why not. */
    public record MasterPayload(String error, int streamDb) {
        static MasterPayload failed(String error) {
            return new MasterPayload(error, 0);
        }
    }

    /** DEBUG LOADAOF: the AOF fsynced, the keyspace emptied and loaded back from it. */
    public String loadAof() {
        Persistence p = server.persistence();
        AppendOnly aof = p.aof();
        aof.syncNow();
        emptyData();
        LoadSources.LoadStats stats = new LoadSources.LoadStats();
        String error = loadNow(LoadSources.aof(server.config(), aof.layout(), stats, new AofManifest[1]), false, stats);
        if (error != null) {
            // Redis exits here: a data set half loaded from a bad AOF must not be served.
            log.warn("Fatal error loading the AOF by DEBUG LOADAOF: {}. Exiting.", error);
            Runtime.getRuntime().halt(1);
        }
        log.warn("Append Only File loaded by DEBUG LOADAOF");
        return null;
    }

    /**
     * Adds the keys and libraries of an RDB file to the data set, replacing keys of the same name
     * (a test fixture); null, or why it failed. Not propagated, as DEBUG RELOAD is not.
     */
    public String loadRdbFixture(java.nio.file.Path file) {
        if (!java.nio.file.Files.isReadable(file)) return "Can't read " + file;
        LoadSources.LoadStats stats = new LoadSources.LoadStats();
        return loadNow(LoadSources.rdb(server.config(), file, stats), true, stats);
    }

    /** Redis's emptyData: the keys and the function libraries. */
    private void emptyData() {
        server.keyspace().flushAll();
        ScriptEngine engine = server.component(ScriptEngine.class, null);
        if (engine != null) engine.flushLibraries();
    }

    private String loadNow(Loading.Source source, boolean merge, LoadSources.LoadStats stats) {
        Keyspace keyspace = server.keyspace();
        keyspace.loading(true);
        DataLoader loader = new DataLoader(server, dispatcher).allowDuplicates(merge);
        String error = server.persistence().loading().loadNow(source, loader);
        finishLoading(stats);
        return error;
    }

    private void finishLoading(LoadSources.LoadStats stats) {
        server.keyspace().loading(false);
        dispatcher.releaseHeldAtStart();
        server.persistence().rdb().loaded(stats.loaded(), stats.expired());
    }
}
