package io.cinnabar.persistence;

import io.cinnabar.config.Config;
import io.cinnabar.keyspace.Keyspace;

import io.cinnabar.config.ConfigOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Everything the keyspace thread asks of persistence: RDB saves ({@link #rdb()}), the
 * append-only file ({@link #aof()}), handing each round's writes to the persistence thread, and
 * whether writes are refused because the disk failed. Keyspace thread only unless noted.
 */
public final class Persistence {
    private static final Logger log = LoggerFactory.getLogger(Persistence.class);
    static final String RDB_DISK_ERROR = "MISCONF Redis is configured to save RDB snapshots, but it's currently "
            + "unable to persist to disk. Commands that may modify the data set are disabled, because this instance "
            + "is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error "
            + "option). Please check the Redis logs for details about the RDB error.";

    private final Config config;
    private final Keyspace keyspace;
    private final WriteFeed feed;
    private final PersistenceThread thread = new PersistenceThread("cinnabar-persistence");
    private final RdbSaves rdb;
    private final AppendOnly aof;
    private final Loading loading = new Loading();
    private final OwnerThread owner;

    public Persistence(Config config, Keyspace keyspace, WriteFeed feed, OwnerThread owner,
                       RdbFormats rdbFormat, AppendOnly.Formats aofFormats) {
        this.config = config;
        this.keyspace = keyspace;
        this.feed = feed;
        this.owner = owner;
        this.rdb = new RdbSaves(config, keyspace, thread, owner, rdbFormat);
        this.aof = new AppendOnly(config, keyspace, feed, thread, owner, aofFormats);
        rdb.onBgsaveEnd(aof::snapshotSlotFreed);
        aof.onRewriteEnd(() -> rdb.cron(false));
    }

    public void start() {
        thread.start();
    }

    public RdbSaves rdb() {
        return rdb;
    }

    public AppendOnly aof() {
        return aof;
    }

    public OwnerThread ownerThread() {
        return owner;
    }

    public Loading loading() {
        return loading;
    }

    public PersistenceThread thread() {
        return thread;
    }

    /** True while a snapshot (BGSAVE or AOF rewrite) runs: Redis's hasActiveChildProcess(). */
    public boolean snapshotRunning() {
        return rdb.bgsaveInProgress() || aof.rewriteInProgress();
    }

    /** Redis's writeCommandsDeniedByDiskError: the MISCONF text writes are refused with, or null. */
    public String writeDeniedError() {
        if (rdb.deniesWrites()) return RDB_DISK_ERROR;
        return aof.writeError();
    }

    /** CONFIG SET of a persistence option (keyspace thread): appendonly switches the AOF on or off. */
    public void configChanged(io.cinnabar.config.ConfigOption option) {
        if (option == ConfigOptions.APPENDONLY) {
            if (config.getBool(ConfigOptions.APPENDONLY)) aof.enable(rdb.bgsaveInProgress()); else aof.disable();
        } else if (option == ConfigOptions.AOF_TIMESTAMP_ENABLED || option == ConfigOptions.AOF_DISABLE_AUTO_GC) {
            aof.settingsChanged();
        }
    }

    /**
     * appendonly yes but the AOF off, as a replica's full sync leaves it until the sync succeeds:
     * it starts again, with its rewrite (Redis's restartAOFAfterSYNC, also run by REPLICAOF NO ONE).
     */
    public void restartAppendOnly() {
        if (config.getBool(ConfigOptions.APPENDONLY) && !aof.enabled()) aof.enable(rdb.bgsaveInProgress());
    }

    /** End of a round of keyspace work: the round's writes go to the replicas (the feed's tap) and the persistence thread. */
    public void endOfRound() {
        if (!feed.hasPending()) return;
        if (aof.enabled()) aof.hand(feed); else feed.dropPending();
    }

    /**
     * Replies of a batch that wrote wait for the AOF: until written (fsynced with appendfsync
     * always), so no acknowledged write is lost when the process dies (nor, under always, the
     * machine).
     */
    public boolean holdsWriteReplies() {
        return aof.holdsWriteReplies();
    }

    /** Runs delivery on executor once the feed up to offset is written, or fsynced under always. */
    public void whenAcknowledged(long offset, java.util.concurrent.Executor executor, Runnable delivery) {
        aof.whenAcknowledged(offset, executor, delivery);
    }

    /** serverCron's persistence duties: save points, scheduled saves, automatic AOF rewrites. */
    public void cron() {
        rdb.cron(aof.rewriteInProgress());
        aof.cron(rdb.bgsaveInProgress());
    }

    /**
     * Redis's finishShutdown, persistence part: stops a BGSAVE or AOF rewrite, fsyncs the AOF and
     * writes the final RDB when save points are set (or save), unless nosave. Returns null when
     * the server may exit, else why not (force exits anyway). Keyspace thread.
     */
    public String prepareShutdown(boolean save, boolean nosave, boolean force) {
        if (loading.inProgress()) {
            // Saving a half-loaded data set would overwrite the good file with it.
            save = false;
            nosave = true;
        }
        if (rdb.bgsaveInProgress()) {
            log.warn("There is a child saving an .rdb. Killing it!");
            rdb.killBgsave();
        }
        if (aof.enabled()) {
            if (aof.rewriteInProgress()) {
                if (aof.waitingForRewrite()) {
                    if (!force) {
                        log.warn("Writing initial AOF, can't exit.");
                        return shutdownError();
                    }
                    log.warn("Writing initial AOF. Exit anyway.");
                }
                log.warn("There is a child rewriting the AOF. Killing it!");
                aof.killRewrite();
            }
            log.info("Calling fsync() on the AOF file.");
            String error = aof.syncForShutdown();
            if (error != null) log.warn("Fail to fsync the AOF file: {}.", error);
        }
        if ((!config.getString(ConfigOptions.SAVE).isEmpty() && !nosave) || save) {
            log.info("Saving the final RDB snapshot before exiting.");
            if (rdb.save() != null) {
                if (!force) {
                    log.warn("Error trying to save the DB, can't exit.");
                    return shutdownError();
                }
                log.warn("Error trying to save the DB. Exit anyway.");
            }
        }
        return null;
    }

    private static String shutdownError() {
        log.warn("Errors trying to shut down the server. Check the logs for more information.");
        return "Errors trying to SHUTDOWN. Check logs.";
    }

    /** The server stops: the AOF is closed and the persistence thread ends after its queued work. */
    public void close() {
        rdb.killBgsave();
        aof.close();
        thread.shutdown(10_000);
    }
}
