package io.cinnabar.persistence;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * RDB snapshots as Redis's SAVE, BGSAVE and save points make them, and the state INFO persistence
 * reports about them. Keyspace thread only, except where noted: the files are written on the
 * persistence thread ({@link SnapshotJob}), never here.
 */
public final class RdbSaves {
    private static final Logger log = LoggerFactory.getLogger(RdbSaves.class);

    /** Why a save did not happen, as the caller replies it. */
    public enum Start { STARTED, ALREADY_RUNNING, OTHER_CHILD, SCHEDULED }

    private final Config config;
    private final Keyspace keyspace;
    private final PersistenceThread thread;
    private final OwnerThread owner;
    private final RdbFormats rdbFormat;
    private final long pid = ProcessHandle.current().pid();

    private SnapshotPump running;
    /** Who waits for the running snapshot: replicas (SYNC), told the file or null; null for a plain BGSAVE. */
    private Consumer<Path> runningForReplicas;
    private long replicaSnapshots;
    private long runningSinceMs;
    private long dirtyBeforeBgsave;
    private boolean scheduled;
    /** Redis's server.dirty value at the last successful save (dirty is never reset here). */
    private long dirtyAtLastSave;
    /**
     * On the server's clock, as save points are (a test moving it by hand reaches them); how long
     * a save takes (runningSinceMs) is real time.
     */
    private long lastSaveSeconds;
    private long lastBgsaveAttemptSeconds;
    private boolean lastBgsaveOk = true;
    private long lastBgsaveSeconds = -1;
    private long saves;
    private long lastLoadKeysLoaded, lastLoadKeysExpired;
    private long lastCopiedBytes;
    private Runnable onBgsaveEnd = () -> { };

    public RdbSaves(Config config, Keyspace keyspace, PersistenceThread thread, OwnerThread owner,
                    RdbFormats rdbFormat) {
        this.config = config;
        this.keyspace = keyspace;
        this.thread = thread;
        this.owner = owner;
        this.rdbFormat = rdbFormat;
        this.lastSaveSeconds = clockSeconds();
    }

    private long clockSeconds() {
        return keyspace.mstime() / 1000;
    }

    // ---- state ----

    public boolean bgsaveInProgress() {
        return running != null;
    }

    public long changesSinceLastSave() {
        return Math.max(0, keyspace.dirty() - dirtyAtLastSave);
    }

    public long lastSaveSeconds() {
        return lastSaveSeconds;
    }

    public boolean lastBgsaveOk() {
        return lastBgsaveOk;
    }

    public long lastBgsaveSeconds() {
        return lastBgsaveSeconds;
    }

    public long currentBgsaveSeconds() {
        return running == null ? -1 : (System.currentTimeMillis() - runningSinceMs) / 1000;
    }

    public long saves() {
        return saves;
    }

    public long keysInCurrentSave() {
        return running == null ? 0 : running.totalKeys();
    }

    public long keysSavedSoFar() {
        return running == null ? 0 : running.keysWritten();
    }

    /** current_cow_size: bytes the running BGSAVE holds because writes changed keys before it saw them. */
    public long currentCopiedBytes() {
        return running == null ? 0 : running.copiedBytes();
    }

    /** rdb_last_cow_size: the same, when the last BGSAVE ended. */
    public long lastCopiedBytes() {
        return lastCopiedBytes;
    }

    public boolean bgsaveScheduled() {
        return scheduled;
    }

    public long lastLoadKeysLoaded() {
        return lastLoadKeysLoaded;
    }

    public long lastLoadKeysExpired() {
        return lastLoadKeysExpired;
    }

    /** After loading a dump: what INFO's rdb_last_load_keys_* report. */
    public void loaded(long keysLoaded, long keysExpired) {
        lastLoadKeysLoaded = keysLoaded;
        lastLoadKeysExpired = keysExpired;
        dirtyAtLastSave = keyspace.dirty();
    }

    /** Told when a background save ends, however it ends (a scheduled AOF rewrite may start). */
    public void onBgsaveEnd(Runnable hook) {
        onBgsaveEnd = hook;
    }

    /**
     * True when writes must be refused with MISCONF: the last background save failed, save points
     * are configured and stop-writes-on-bgsave-error is on (Redis's DISK_ERROR_TYPE_RDB).
     */
    public boolean deniesWrites() {
        return !lastBgsaveOk && config.getBool(ConfigOptions.STOP_WRITES_ON_BGSAVE_ERROR)
                && !config.getString(ConfigOptions.SAVE).isEmpty();
    }

    public Path dumpFile() {
        return Path.of(config.getString(ConfigOptions.DIR), config.getString(ConfigOptions.DBFILENAME));
    }

    // ---- saving ----

    /**
     * SAVE: writes the keyspace as it is now and returns when the file is in place (the keyspace
     * thread waits, as Redis's main thread does). Null on success, else the reason.
     */
    public String save() {
        if (running != null) return "Background save already in progress";
        saves++;
        CompletableFuture<SnapshotJob.Outcome> done = new CompletableFuture<>();
        SnapshotJob job = newJob(rdbFormat.get(), done::complete);
        new SnapshotPump(keyspace, job, owner).runToEnd();
        SnapshotJob.Outcome outcome;
        try {
            outcome = done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.cancel();
            return "interrupted";
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause());
        }
        // A failed foreground save leaves rdb_last_bgsave_status as it was (Redis's rdbSave sets
        // it only on success): neither SAVE nor a refused shutdown turns writes into MISCONF.
        if (!outcome.ok()) return outcome.error();
        log.info("DB saved on disk");
        dirtyAtLastSave = keyspace.dirty();
        lastSaveSeconds = clockSeconds();
        lastBgsaveOk = true;
        return null;
    }

    /** BGSAVE [SCHEDULE]; otherBusy when an AOF rewrite holds the snapshot. */
    public Start bgsave(boolean schedule, boolean otherBusy) {
        if (running != null) return Start.ALREADY_RUNNING;
        if (otherBusy) {
            if (!schedule) return Start.OTHER_CHILD;
            scheduled = true;
            return Start.SCHEDULED;
        }
        startBgsave(rdbFormat.get(), null);
        return Start.STARTED;
    }

    /**
     * A snapshot for replicas (SYNC): to the dump file as a BGSAVE that counts as one (Redis's
     * disk target), or to a temp file no save counts (its socket target: a diskless transfer).
     * False when a snapshot already runs. Otherwise done gets the file, or null when the snapshot
     * failed or was stopped, on the keyspace thread; a temp file is then the caller's to delete.
     */
    public boolean startForReplicas(boolean toDumpFile, boolean functionsOnly, ReplicationPoint where, Consumer<Path> done) {
        if (running != null) return false;
        SnapshotFormat format = rdbFormat.forReplicas(where, functionsOnly);
        log.info("Starting BGSAVE for SYNC with target: {}", toDumpFile ? "disk" : "replicas sockets");
        if (toDumpFile) {
            startBgsave(format, done);
            return true;
        }
        Path temp = Path.of(config.getString(ConfigOptions.DIR)).resolve("temp-repl-" + pid + "-" + ++replicaSnapshots + ".rdb");
        runningSinceMs = System.currentTimeMillis();
        SnapshotPump[] self = new SnapshotPump[1];
        SnapshotJob job = newJob(temp, format, written -> { }, outcome -> owner.execute(() -> transferWritten(self[0], outcome, temp)));
        self[0] = new SnapshotPump(keyspace, job, owner);
        running = self[0];
        runningForReplicas = done;
        log.info("Background RDB transfer started by pid {}", pid);
        running.startInBackground();
        return true;
    }

    private void transferWritten(SnapshotPump pump, SnapshotJob.Outcome outcome, Path temp) {
        if (running != pump) return;
        Consumer<Path> replicas = endRunning();
        lastCopiedBytes = pump.copiedBytes();
        if (outcome.ok()) log.info("Background RDB transfer terminated with success");
        else if (outcome.cancelled()) log.warn("Background transfer terminated by signal 10");
        else log.warn("Background transfer error");
        replicas.accept(outcome.ok() ? temp : null);
        onBgsaveEnd.run();
    }

    private void startBgsave(SnapshotFormat format, Consumer<Path> replicas) {
        scheduled = false;
        saves++;
        dirtyBeforeBgsave = keyspace.dirty();
        runningSinceMs = System.currentTimeMillis();
        lastBgsaveAttemptSeconds = clockSeconds();
        SnapshotPump[] self = new SnapshotPump[1];
        SnapshotJob job = newJob(format, outcome -> owner.execute(() -> bgsaveDone(self[0], outcome)));
        self[0] = new SnapshotPump(keyspace, job, owner);
        running = self[0];
        runningForReplicas = replicas;
        log.info("Background saving started by pid {}", pid);
        running.startInBackground();
    }

    private void bgsaveDone(SnapshotPump pump, SnapshotJob.Outcome outcome) {
        if (running != pump) return;
        Consumer<Path> replicas = endRunning();
        lastCopiedBytes = pump.copiedBytes();
        lastBgsaveSeconds = (System.currentTimeMillis() - runningSinceMs) / 1000;
        if (outcome.ok()) {
            log.info("Background saving terminated with success");
            // Changes made while the snapshot was written are still unsaved.
            dirtyAtLastSave = dirtyBeforeBgsave;
            lastSaveSeconds = clockSeconds();
            lastBgsaveOk = true;
        } else if (outcome.cancelled()) {
            log.warn("Background saving terminated by signal 10");
        } else {
            log.warn("Background saving error");
            lastBgsaveOk = false;
        }
        if (replicas != null) replicas.accept(outcome.ok() ? dumpFile() : null);
        onBgsaveEnd.run();
    }

    /** No snapshot runs any more: who waited for it (replicas), or null. */
    private Consumer<Path> endRunning() {
        Consumer<Path> replicas = runningForReplicas;
        running = null;
        runningForReplicas = null;
        return replicas;
    }

    /** Stops a running BGSAVE without counting it as failed (FLUSHALL, SHUTDOWN): Redis's killRDBChild. */
    public void killBgsave() {
        if (running == null) return;
        SnapshotPump pump = running;
        Consumer<Path> replicas = endRunning();
        pump.cancel();
        lastBgsaveSeconds = (System.currentTimeMillis() - runningSinceMs) / 1000;
        if (replicas != null) replicas.accept(null);
        onBgsaveEnd.run();
    }

    /**
     * serverCron's part: starts a scheduled BGSAVE once nothing else runs, and a BGSAVE when a
     * save point is reached (after a failed one, only once CONFIG_BGSAVE_RETRY_DELAY passed).
     */
    public void cron(boolean otherBusy) {
        if (running != null || otherBusy || keyspace.isLoading()) return;
        if (scheduled) {
            startBgsave(rdbFormat.get(), null);
            return;
        }
        String points = config.getString(ConfigOptions.SAVE);
        if (points.isEmpty()) return;
        long now = clockSeconds();
        long changes = changesSinceLastSave();
        String[] words = points.split(" ");
        for (int i = 0; i + 1 < words.length; i += 2) {
            long seconds = Long.parseLong(words[i]);
            long minChanges = Long.parseLong(words[i + 1]);
            if (changes >= minChanges && now - lastSaveSeconds > seconds
                    && (lastBgsaveOk || now - lastBgsaveAttemptSeconds > 5)) {
                log.info("{} changes in {} seconds. Saving...", minChanges, seconds);
                startBgsave(rdbFormat.get(), null);
                return;
            }
        }
    }

    private SnapshotJob newJob(SnapshotFormat format, Consumer<SnapshotJob.Outcome> onDone) {
        Path dir = Path.of(config.getString(ConfigOptions.DIR));
        Path target = dir.resolve(config.getString(ConfigOptions.DBFILENAME));
        return newJob(dir.resolve("temp-" + pid + ".rdb"), format, written -> moveIntoPlace(written, target), onDone);
    }

    private SnapshotJob newJob(Path temp, SnapshotFormat format, SnapshotJob.Completion completion, Consumer<SnapshotJob.Outcome> onDone) {
        return new SnapshotJob(thread, temp, format, completion,
                () -> config.getLong(ConfigOptions.RDB_KEY_SAVE_DELAY),
                () -> config.getBool(ConfigOptions.RDB_SAVE_INCREMENTAL_FSYNC), outcome -> {
                    if (!outcome.ok() && !outcome.cancelled()) {
                        log.warn("Write error saving DB on disk: {}", outcome.error());
                    }
                    onDone.accept(outcome);
                });
    }

    /** Renames the written temp file over the dump and fsyncs the directory, as rdbSave does. */
    static void moveIntoPlace(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Error moving temp DB file {} on the final destination {} (in server root dir {}): {}",
                    temp.getFileName(), target.getFileName(), target.toAbsolutePath().getParent(), reason(e));
            Files.deleteIfExists(temp);
            throw e;
        }
        FileSync.directory(target.toAbsolutePath().getParent());
    }

    /** An IOException as strerror() would put it. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "No such file or directory";
        if (e instanceof AccessDeniedException) return "Permission denied";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage();
    }
}
