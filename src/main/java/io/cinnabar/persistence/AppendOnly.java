package io.cinnabar.persistence;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.persistence.aof.AofFiles;
import io.cinnabar.persistence.aof.AofLayout;
import io.cinnabar.persistence.aof.AofManifest;
import io.cinnabar.persistence.aof.IoErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The append-only file as the keyspace thread sees it: Redis's aof_state, BGREWRITEAOF and
 * automatic rewrites, CONFIG SET appendonly, the MISCONF state after a failed write, and group
 * commit for appendfsync always. The files themselves ({@link AofFiles}) are the persistence
 * thread's (everysec's fsync runs on its helper), with one exception: under everysec and no, while
 * the disk keeps up and nothing else is queued for the files, the keyspace thread writes a turn's
 * feed bytes itself ({@link Writer#writeInline}), as Redis's beforeSleep does. Otherwise it hands
 * the bytes over once per turn and learns back, through volatile fields, how far they are written
 * and fsynced. {@link #fileLock} keeps the two apart.
 */
public final class AppendOnly {
    private static final Logger log = LoggerFactory.getLogger(AppendOnly.class);

    /** The snapshot formats a rewrite can produce. */
    public interface Formats {
        /** An RDB that says it is an AOF base (aof-use-rdb-preamble yes). */
        SnapshotFormat rdbBase();

        /** Commands rebuilding the data set (aof-use-rdb-preamble no). */
        SnapshotFormat commandsBase();
    }

    /** Why BGREWRITEAOF did what it did, as the command replies it. */
    public enum Start { STARTED, ALREADY_RUNNING, SCHEDULED }

    private record Waiter(long offset, Executor executor, Runnable delivery) { }

    private final Config config;
    private final Keyspace keyspace;
    private final WriteFeed feed;
    private final PersistenceThread thread;
    private final OwnerThread owner;
    private final Formats formats;
    private final Writer writer = new Writer();
    /** One instance: a round's hand-over allocates nothing when it writes inline. */
    private final WriteFeed.PendingWriter writeInline = writer::writeInline;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    /** Rounds handed over and not yet written, oldest first. */
    private final ConcurrentLinkedQueue<WriteFeed.Round> handed = new ConcurrentLinkedQueue<>();
    /**
     * Held by whatever touches the open AOF files or releases waiting replies: the persistence
     * thread's writer duty and file tasks, and a keyspace-thread write, which only tries it.
     */
    private final ReentrantLock fileLock = new ReentrantLock();
    /** File tasks queued for the persistence thread and not yet run: rounds must queue behind them. */
    private final AtomicInteger fileTasksQueued = new AtomicInteger();
    private AofFiles files;

    // keyspace thread state
    private boolean on;
    /** Feed offset of the last bytes handed to the persistence thread. */
    private long handedEnd;
    private boolean waitingForRewrite;
    private SnapshotPump rewrite;
    private boolean rewriteScheduled;
    private long rewriteStartedMs;
    private long lastRewriteSeconds = -1;
    private boolean lastRewriteOk = true;
    private long rewrites;
    private long consecutiveFailures;
    private long lastCopiedBytes;
    private Runnable onRewriteEnd = () -> { };

    AppendOnly(Config config, Keyspace keyspace, WriteFeed feed, PersistenceThread thread, OwnerThread owner,
               Formats formats) {
        this.config = config;
        this.keyspace = keyspace;
        this.feed = feed;
        this.thread = thread;
        this.owner = owner;
        this.formats = formats;
    }

    public AofLayout layout() {
        return new AofLayout(Path.of(config.getString(ConfigOptions.DIR)),
                config.getString(ConfigOptions.APPENDDIRNAME), config.getString(ConfigOptions.APPENDFILENAME));
    }

    // ---- state for INFO and the dispatcher ----

    public boolean enabled() {
        return on;
    }

    public boolean rewriteInProgress() {
        return rewrite != null;
    }

    public boolean rewriteScheduled() {
        return rewriteScheduled;
    }

    public boolean lastRewriteOk() {
        return lastRewriteOk;
    }

    public long lastRewriteSeconds() {
        return lastRewriteSeconds;
    }

    public long currentRewriteSeconds() {
        return rewrite == null ? -1 : (System.currentTimeMillis() - rewriteStartedMs) / 1000;
    }

    public long rewrites() {
        return rewrites;
    }

    /** aof_last_cow_size: bytes the last rewrite held because writes changed keys before it saw them. */
    public long lastCopiedBytes() {
        return lastCopiedBytes;
    }

    public long currentCopiedBytes() {
        return rewrite == null ? 0 : rewrite.copiedBytes();
    }

    public long keysInCurrentRewrite() {
        return rewrite == null ? 0 : rewrite.totalKeys();
    }

    public long keysRewrittenSoFar() {
        return rewrite == null ? 0 : rewrite.keysWritten();
    }

    public long consecutiveFailures() {
        return consecutiveFailures;
    }

    public long currentSize() {
        return files == null ? 0 : files.currentSize();
    }

    public long baseSize() {
        return files == null ? 0 : files.baseSize();
    }

    public boolean lastWriteOk() {
        return files == null || files.lastError() == null;
    }

    /** aof_pending_bio_fsync: everysec fsyncs running in the background (0 or 1). */
    public int backgroundFsyncs() {
        return writer.fsyncRunning ? 1 : 0;
    }

    /** aof_delayed_fsync-like: bytes waiting for a retry after a failed write. */
    public long pendingBytes() {
        return files == null ? 0 : files.pendingBytes();
    }

    void onRewriteEnd(Runnable hook) {
        onRewriteEnd = hook;
    }

    /** The MISCONF text while the AOF cannot be written, else null. */
    String writeError() {
        if (!on || files == null) return null;
        IOException e = files.lastError();
        return e == null ? null : "MISCONF Errors writing to the AOF file: " + IoErrors.strerror(e);
    }

    /**
     * True while the AOF is on: replies of writes then leave only once their bytes are written
     * (appendfsync everysec/no: in the OS, so a killed process loses nothing acknowledged, and a
     * client that reads the file after the reply finds the write there, as with Redis, which
     * writes the AOF before replying) or fsynced (always). The command thread never waits for it.
     * Answering at once instead saved about 7% of the CPU per write but lost up to 0.1 ms of
     * writes to kill -9 and raced the suite's "GETEX should not append to AOF".
     */
    boolean holdsWriteReplies() {
        return on;
    }

    /** DEBUG AOF-FLUSH-SLEEP: microseconds the persistence thread waits before each AOF write. */
    public void flushSleepMicros(long micros) {
        writer.flushSleepMicros = micros;
    }

    // ---- start-up ----

    /**
     * After loading, with appendonly yes: opens (or creates) the AOF directory, writing a base of
     * the empty data set when there is none, and starts feeding it. Runs the file work on the
     * persistence thread and waits for it. Throws when the AOF cannot be opened (start-up fails).
     */
    public void openAtStartup(AofManifest manifest) throws IOException {
        if (!config.getBool(ConfigOptions.APPENDONLY)) return;
        AofLayout layout = layout();
        boolean rdbBase = config.getBool(ConfigOptions.AOF_USE_RDB_PREAMBLE);
        files = newFiles(layout, manifest);
        files.setTimestampsEnabled(config.getBool(ConfigOptions.AOF_TIMESTAMP_ENABLED));
        files.setAutoGc(!config.getBool(ConfigOptions.AOF_DISABLE_AUTO_GC));
        SnapshotFormat empty = rdbBase ? formats.rdbBase() : formats.commandsBase();
        AofFiles f = files;
        java.util.concurrent.CompletableFuture<IOException> opened = new java.util.concurrent.CompletableFuture<>();
        thread.execute(() -> {
            try {
                // Only an empty data set gets a new base here, so the empty snapshot is the right one.
                f.openOnStartup(rdbBase, out -> {
                    empty.begin(out);
                    empty.end();
                });
                opened.complete(null);
            } catch (IOException | RuntimeException e) {
                opened.complete(e instanceof IOException io ? io : new IOException(e));
            }
        });
        IOException failure = opened.join();
        if (failure != null) throw failure;
        on = true;
        feed.enabled(true);
        thread.addDuty(writer);
    }

    private AofFiles newFiles(AofLayout layout, AofManifest manifest) {
        AofFiles f = new AofFiles(layout, manifest, () -> System.currentTimeMillis() / 1000);
        f.closeFilesWith(thread::closeInBackground);
        return f;
    }

    // ---- each round ----

    /**
     * The turn's feed bytes are written now, from the feed's own buffer, when {@link Writer#writeInline}
     * may; else they are copied out and go to the persistence thread, which writes every round
     * waiting for it in one write call.
     */
    void hand(WriteFeed feed) {
        handedEnd = feed.offset();
        if (feed.drainInPlace(writeInline)) return;
        handed.add(feed.takePending());
        thread.wake();
    }

    /**
     * Runs task on the persistence thread once the rounds handed so far are written (to the file
     * they belong to: a rewrite's start switches files), and before any handed after this call.
     */
    private void afterHandedRounds(Runnable task) {
        long upTo = handedEnd;
        fileTasksQueued.incrementAndGet();
        thread.execute(() -> {
            try {
                withFiles(() -> {
                    writer.writeHanded(upTo);
                    task.run();
                });
            } finally {
                fileTasksQueued.decrementAndGet();
            }
        });
    }

    /** Runs task holding the file lock (persistence thread: work on the files outside the writer's rounds). */
    private void withFiles(Runnable task) {
        fileLock.lock();
        try {
            task.run();
        } finally {
            fileLock.unlock();
        }
    }

    /**
     * Runs delivery on executor once the feed up to offset is acknowledged: written, or fsynced
     * under appendfsync always.
     */
    void whenAcknowledged(long offset, Executor executor, Runnable delivery) {
        if (writer.acknowledged() >= offset) {
            executor.execute(delivery);
            return;
        }
        waiters.add(new Waiter(offset, executor, delivery));
        // Bytes of this round are handed over at its end, which wakes the persistence thread;
        // bytes handed earlier may have been written before the waiter was queued.
        if (offset <= handedEnd) thread.wake();
    }

    // ---- BGREWRITEAOF ----

    /** BGREWRITEAOF; bgsaveRunning when a BGSAVE holds the snapshot (the rewrite is scheduled). */
    public Start bgrewrite(boolean bgsaveRunning) {
        if (rewrite != null) return Start.ALREADY_RUNNING;
        if (bgsaveRunning) {
            rewriteScheduled = true;
            return Start.SCHEDULED;
        }
        startRewrite();
        return Start.STARTED;
    }

    private void startRewrite() {
        rewriteScheduled = false;
        if (files == null) files = newFiles(layout(), loadManifestQuietly());
        // The point in time: what the feed holds so far belongs to the files before it.
        if (feed.hasPending()) hand(feed);
        feed.forceSelect();
        boolean rdbBase = config.getBool(ConfigOptions.AOF_USE_RDB_PREAMBLE);
        SnapshotFormat format = rdbBase ? formats.rdbBase() : formats.commandsBase();
        AofFiles f = files;
        SnapshotPump[] self = new SnapshotPump[1];
        Path temp = layout().dir().resolve("temp-rewriteaof-bg-" + ProcessHandle.current().pid() + ".aof");
        SnapshotJob job = new SnapshotJob(thread, temp, format, written -> {
                    fileLock.lock();
                    try {
                        f.finishRewrite(written, rdbBase);
                    } finally {
                        fileLock.unlock();
                    }
                },
                () -> config.getLong(ConfigOptions.RDB_KEY_SAVE_DELAY),
                () -> config.getBool(ConfigOptions.AOF_REWRITE_INCREMENTAL_FSYNC),
                outcome -> owner.execute(() -> rewriteDone(self[0], outcome)));
        afterHandedRounds(() -> {
            try {
                // The INCR file being closed is fsynced in the background; under always, replies
                // waiting for its last bytes must not see the next file's fsync as theirs.
                if ("always".equals(config.getString(ConfigOptions.APPENDFSYNC))) f.fsync();
                f.startRewrite();
            } catch (IOException e) {
                log.warn("Can't open new incr AOF file for rewrite: {}", IoErrors.strerror(e));
                job.cancel();
            }
        });
        self[0] = new SnapshotPump(keyspace, job, owner);
        rewrite = self[0];
        rewriteStartedMs = System.currentTimeMillis();
        log.info("Background append only file rewriting started by pid {}", ProcessHandle.current().pid());
        rewrite.startInBackground();
    }

    private void rewriteDone(SnapshotPump pump, SnapshotJob.Outcome outcome) {
        if (rewrite != pump) return;
        rewrite = null;
        lastCopiedBytes = pump.copiedBytes();
        lastRewriteSeconds = (System.currentTimeMillis() - rewriteStartedMs) / 1000;
        if (outcome.ok()) {
            rewrites++;
            consecutiveFailures = 0;
            lastRewriteOk = true;
            log.info("Background AOF rewrite terminated with success");
            if (waitingForRewrite) {
                waitingForRewrite = false;
                on = true;
            }
        } else {
            if (!outcome.cancelled()) {
                lastRewriteOk = false;
                consecutiveFailures++;
                log.warn("Background AOF rewrite terminated with error");
            }
            AofFiles f = files;
            afterHandedRounds(f::abortRewrite);
        }
        onRewriteEnd.run();
    }

    /** Stops a running rewrite (appendonly no, SHUTDOWN): Redis's killAppendOnlyChild. */
    void killRewrite() {
        if (rewrite == null) return;
        SnapshotPump pump = rewrite;
        rewrite = null;
        pump.cancel();
        log.info("Killing running AOF rewrite child");
    }

    // ---- CONFIG SET appendonly ----

    /**
     * appendonly yes at run time: writes collect in a temporary file until the first rewrite makes
     * a base. The rewrite starts now, as Redis's startAppendOnly starts it, unless a BGSAVE holds the
     * snapshot or this runs inside EXEC: then it is scheduled, with Redis's log lines.
     */
    public void enable(boolean bgsaveRunning) {
        if (on || waitingForRewrite) return;
        if (files == null) files = newFiles(layout(), loadManifestQuietly());
        settingsChanged();
        AofFiles f = files;
        afterHandedRounds(f::startAppendOnly);
        thread.addDuty(writer);
        waitingForRewrite = true;
        on = true;
        feed.enabled(true);
        boolean inExec = owner.inTransaction();
        if (bgsaveRunning) {
            log.warn("AOF was enabled but there is already another background operation. "
                    + "An AOF background was scheduled to start when possible.");
        } else if (inExec) {
            log.warn("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.");
        } else if (rewrite != null) {
            log.warn("AOF was enabled but there is already an AOF rewriting in background. "
                    + "Stopping background AOF and starting a rewrite now.");
        }
        // A rewrite started while the AOF was off makes no base for it: it gives way to one that does.
        if (rewrite != null) killRewrite();
        bgrewrite(bgsaveRunning || inExec);
    }

    /** appendonly no: the feed stops, the file is flushed, fsynced and closed. */
    public void disable() {
        if (!on) return;
        killRewrite();
        rewriteScheduled = false;
        on = false;
        waitingForRewrite = false;
        if (feed.hasPending()) hand(feed);
        feed.enabled(false);
        AofFiles f = files;
        afterHandedRounds(() -> {
            try {
                f.stopAppendOnly();
            } catch (IOException e) {
                log.warn("Error stopping the append only file: {}", IoErrors.strerror(e));
            }
            writer.releaseAll();
        });
        thread.removeDuty(writer);
    }

    /** aof-timestamp-enabled or aof-disable-auto-gc changed: the files follow, on the persistence thread. */
    void settingsChanged() {
        if (files == null) return;
        AofFiles f = files;
        boolean timestamps = config.getBool(ConfigOptions.AOF_TIMESTAMP_ENABLED);
        boolean autoGc = !config.getBool(ConfigOptions.AOF_DISABLE_AUTO_GC);
        afterHandedRounds(() -> {
            f.setTimestampsEnabled(timestamps);
            try {
                f.setAutoGc(autoGc);
            } catch (IOException e) {
                log.warn("Error deleting AOF history files: {}", IoErrors.strerror(e));
            }
        });
    }

    /** True while appendonly was switched on and its first rewrite has not finished. */
    public boolean waitingForRewrite() {
        return waitingForRewrite;
    }

    /**
     * SHUTDOWN: writes and fsyncs everything fed so far, on the persistence thread, and waits for
     * it; the file stays open (a refused shutdown goes on serving). Null, or why it failed.
     */
    String syncForShutdown() {
        if (!on || files == null) return null;
        if (feed.hasPending()) hand(feed);
        AofFiles f = files;
        java.util.concurrent.CompletableFuture<String> done = new java.util.concurrent.CompletableFuture<>();
        afterHandedRounds(() -> {
            try {
                f.flushPending();
                f.fsync();
                done.complete(null);
            } catch (IOException e) {
                done.complete(IoErrors.strerror(e));
            }
        });
        try {
            return done.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return e.toString();
        }
    }

    /** DEBUG LOADAOF: what was fed so far is written and fsynced before the file is read back. */
    public void syncNow() {
        String error = syncForShutdown();
        if (error != null) log.warn("Error syncing the append only file: {}", error);
    }

    /** The server stops: the file is closed after what was queued for it. */
    void close() {
        killRewrite();
        if (files == null) return;
        if (feed.hasPending()) hand(feed);
        AofFiles f = files;
        afterHandedRounds(() -> {
            try {
                f.stopAppendOnly();
            } catch (IOException e) {
                log.warn("Error closing the append only file: {}", IoErrors.strerror(e));
            }
            writer.releaseAll();
        });
    }

    // ---- cron ----

    void cron(boolean bgsaveRunning) {
        if (rewrite != null || bgsaveRunning || keyspace.isLoading()) return;
        if (rewriteScheduled) {
            startRewrite();
            return;
        }
        if (!on || waitingForRewrite || files == null) return;
        long perc = config.getLong(ConfigOptions.AUTO_AOF_REWRITE_PERCENTAGE);
        long minSize = config.getLong(ConfigOptions.AUTO_AOF_REWRITE_MIN_SIZE);
        long size = files.currentSize();
        if (perc == 0 || size <= minSize) return;
        long base = Math.max(1, files.baseSize());
        long growth = (size * 100 / base) - 100;
        if (growth >= perc && (consecutiveFailures == 0 || lastRewriteOk)) {
            log.info("Starting automatic rewriting of AOF on {}% growth", growth);
            startRewrite();
        }
    }

    /** A snapshot slot freed up (a BGSAVE ended): a scheduled rewrite may start. */
    void snapshotSlotFreed() {
        if (rewriteScheduled && rewrite == null) startRewrite();
    }

    private AofManifest loadManifestQuietly() {
        try {
            return AofManifest.loadFromDisk(layout());
        } catch (IOException e) {
            return AofManifest.empty();
        }
    }

    /**
     * The writing: on the persistence thread (a duty), writes what the rounds hand over, fsyncs per
     * appendfsync (one fsync for everything written since the last one: group commit), retries
     * after write errors once a second, and releases replies waiting for their fsync; on the
     * keyspace thread, the writes {@link #writeInline} may do.
     */
    private final class Writer implements PersistenceThread.Duty {
        /** A write of the keyspace thread slower than this sends the next second's to the persistence thread. */
        private static final long SLOW_WRITE_NANOS = 2_000_000L;
        /** Above this, the buffer that joins handed rounds for one write is not kept for the next. */
        private static final int JOINED_KEPT = 1024 * 1024;

        /** Where handed rounds are joined for one write call; reused (it was a new array per call). */
        private RespCommandBuffer joined = new RespCommandBuffer(16 * 1024);

        /** Feed offset written out completely / fsynced; volatile for the keyspace thread. */
        private volatile long written, durable;
        /** Feed offset of the last bytes taken from the handed rounds, written or pending after an error. */
        private long handedUpTo;
        private long lastFsyncNanos = System.nanoTime();
        /** An everysec fsync is running in the background; volatile for INFO. */
        private volatile boolean fsyncRunning;
        private long retryAtNanos;
        private volatile long flushSleepMicros;
        private final DeliveryWait deliveries = new DeliveryWait();
        /** Keyspace thread: System.nanoTime() before which its writes go to the persistence thread. */
        private long inlineAfterNanos;
        /** Under everysec, the duty last slept with no fsync planned: the next write must wake it for one. */
        private boolean idleWithoutFsync;

        /**
         * Keyspace thread, end of a turn: writes the turn's bytes itself, as Redis's beforeSleep
         * does, instead of handing them over. Measured on 2 cores beside redis-benchmark (-c 50
         * SET, everysec): each hand-over cost two thread switches, about 17 us per turn of ~6
         * requests: the event loop and the persistence thread spent 10.2 + 2.9 us of CPU per
         * request, against 8.7 us for the event loop alone writing here. Returns false, and the
         * bytes are handed over, under appendfsync always (the fsync is the persistence
         * thread's), while DEBUG AOF-FLUSH-SLEEP is on, while a file task (a rewrite's start) or
         * a failed write's bytes are queued so that nothing overtakes them, while the persistence
         * thread works on the files, while an everysec fsync runs, and for a while after a write
         * took over {@link #SLOW_WRITE_NANOS} (a disk busy with a snapshot's write-back must not
         * hold commands up; see {@link #handOverAfterSlowWrite}). A write behind a running fsync
         * waits for it (measured: 2-10 ms, most slow writes), so this thread leaves it to the
         * persistence thread and goes on; before, the second of hand-overs after such a write was
         * most of the hand-overs: redis-benchmark SET -d 4096 -c 50 ran at 61-63k rps, 69k with
         * this.
         */
        boolean writeInline(byte[] bytes, int off, int len, long end) {
            if (flushSleepMicros > 0 || fileTasksQueued.get() > 0) return false;
            long now = System.nanoTime();
            if (now - inlineAfterNanos < 0 || fsyncRunning) return false;
            if ("always".equals(config.getString(ConfigOptions.APPENDFSYNC))) return false;
            if (!fileLock.tryLock()) return false;
            try {
                // Rounds handed over before (behind an fsync, a slow write) go first, written
                // here: left to the persistence thread, each round of a busy loop found the one
                // before still queued and was handed over too, long after the cause had passed.
                writeHanded(Long.MAX_VALUE);
                if (files.pendingBytes() > 0) return false;
                handedUpTo = end;
                try {
                    files.append(bytes, off, len, -1);
                } catch (IOException e) {
                    // The bytes wait in the file writer; the duty retries them in a second.
                    retryAtNanos = now + 1_000_000_000L;
                    thread.wake();
                    return true;
                }
                long took = System.nanoTime() - now;
                if (took > SLOW_WRITE_NANOS) inlineAfterNanos = now + took + handOverAfterSlowWrite(took);
                writeLatency(took / 1_000_000);
                written = end;
                if (idleWithoutFsync) {
                    idleWithoutFsync = false;
                    thread.wake();
                }
                release();
            } finally {
                fileLock.unlock();
            }
            return true;
        }

        /**
         * How long writes go to the persistence thread after one of this thread's took {@code took}
         * ns: twenty times as long, between 20 ms and a second, so that a disk that stays slow
         * stalls this thread for at most ~5% of the time, and one slow write among fast ones
         * costs little. A second after every slow write was too much: under redis-benchmark
         * SET -d 4096 -c 50 with everysec (a few writes of 2-10 ms a second, as rewrites come
         * and go), 75-77k rps against 83-94k with 20 or 100 ms, p50 0.43-0.46 against 0.35-0.41 ms.
         */
        private static long handOverAfterSlowWrite(long took) {
            return Math.min(1_000_000_000L, Math.max(20_000_000L, 20 * took));
        }

        /** How far replies may go: fsynced bytes under appendfsync always, written ones otherwise. */
        long acknowledged() {
            return "always".equals(config.getString(ConfigOptions.APPENDFSYNC)) ? durable : written;
        }

        /**
         * Writes the handed rounds ending at or before feed offset upTo in one write call (Redis
         * writes once per event loop turn; here once per turn of this thread, however many
         * rounds the keyspace thread finished meanwhile).
         */
        void writeHanded(long upTo) {
            WriteFeed.Round first = handed.peek();
            if (first == null || first.end() > upTo) return;
            handed.poll();
            byte[] bytes = first.bytes();
            int length = first.length();
            long end = first.end();
            WriteFeed.Round next = handed.peek();
            if (next != null && next.end() <= upTo) {
                joined.clear();
                joined.raw(bytes, 0, length);
                feed.recycle(bytes);
                while ((next = handed.peek()) != null && next.end() <= upTo) {
                    handed.poll();
                    joined.raw(next.bytes(), 0, next.length());
                    feed.recycle(next.bytes());
                    end = next.end();
                }
                bytes = joined.array();
                length = joined.size();
            }
            handedUpTo = end;
            long sleep = flushSleepMicros;
            if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep * 1000);
            try {
                long start = System.nanoTime();
                files.append(bytes, 0, length, -1);
                writeLatency((System.nanoTime() - start) / 1_000_000);
                written = end;
                release();
            } catch (IOException e) {
                retryAtNanos = System.nanoTime() + 1_000_000_000L;
            } finally {
                // The files keep no reference to the array (a failed write copies what it left).
                if (bytes == first.bytes()) feed.recycle(bytes);
                else if (joined.size() > JOINED_KEPT) joined = new RespCommandBuffer(JOINED_KEPT);
            }
        }

        @Override
        public long run(long now) {
            fileLock.lock();
            try {
                return runLocked(now);
            } finally {
                fileLock.unlock();
            }
        }

        private long runLocked(long now) {
            String policy = config.getString(ConfigOptions.APPENDFSYNC);
            if ("always".equals(policy) && !handed.isEmpty()) {
                long writeAt = deliveries.writeAfter(now);
                if (writeAt != 0) return writeAt;
            }
            writeHanded(Long.MAX_VALUE);
            if (files.pendingBytes() > 0) {
                if (now < retryAtNanos) return retryAtNanos;
                try {
                    files.flushPending();
                } catch (IOException e) {
                    retryAtNanos = now + 1_000_000_000L;
                    return retryAtNanos;
                }
                written = handedUpTo;
                release();
            }
            boolean skipForRewrite = config.getBool(ConfigOptions.NO_APPENDFSYNC_ON_REWRITE) && files.isRewriting()
                    && !"always".equals(policy);
            if (!skipForRewrite && written > durable && "always".equals(policy)) {
                long upTo = written;
                try {
                    long start = System.nanoTime();
                    files.fsync();
                    owner.latencySample("aof-fsync-always", (System.nanoTime() - start) / 1_000_000);
                } catch (IOException e) {
                    retryAtNanos = now + 1_000_000_000L;
                    return retryAtNanos;
                }
                lastFsyncNanos = now;
                durable = upTo;
            } else if (!skipForRewrite && written > durable && "everysec".equals(policy) && !fsyncRunning
                    && now - lastFsyncNanos >= 1_000_000_000L) {
                fsyncInBackground(now);
            }
            release();
            boolean everysec = "everysec".equals(policy);
            // Not sooner than 10 ms: while no-appendfsync-on-rewrite holds the fsync back, or one
            // runs longer than a second, the second since the last one has passed already.
            if (written > durable && everysec) return Math.max(lastFsyncNanos + 1_000_000_000L, now + 10_000_000L);
            idleWithoutFsync = everysec;
            return Long.MAX_VALUE;
        }

        /**
         * appendfsync everysec: the fsync runs off this thread, as Redis's runs in a bio thread.
         * Behind a busy disk (a snapshot being written back) it took 50-60 ms, and the AOF
         * writes that replies wait for queued behind it. A failure is recorded when it ends
         * (MISCONF until an fsync succeeds); the next attempt comes a second after this one.
         */
        private void fsyncInBackground(long now) {
            long upTo = written;
            lastFsyncNanos = now;
            AofFiles.Fsync fsync = files.startFsync();
            if (fsync == null) {
                durable = upTo;
                return;
            }
            fsyncRunning = true;
            thread.forceInBackground(fsync.channel(), false, error -> withFiles(() -> {
                fsyncRunning = false;
                fsync.done(error);
                if (error == null) durable = Math.max(durable, upTo);
            }));
        }

        /** Redis's flushAppendOnlyFile events: the write, and what it competed with (an fsync, a rewrite). */
        private void writeLatency(long ms) {
            String event = fsyncRunning ? "aof-write-pending-fsync"
                    : files.isRewriting() ? "aof-write-active-child" : "aof-write-alone";
            owner.latencySample(event, ms);
            owner.latencySample("aof-write", ms);
        }

        /**
         * Hands each executor the replies now due on it as one task: one wake-up per event loop.
         * Callers hold the file lock, so two threads never hand one client's replies out of order.
         */
        private void release() {
            long upTo = acknowledged();
            Waiter w = waiters.peek();
            if (w == null || w.offset > upTo) return;
            // One event loop's replies in the common case, without a map (an IdentityHashMap per
            // release was 1.6% of SET -d 4096's allocation under everysec).
            Executor first = w.executor;
            List<Runnable> firstTasks = new ArrayList<>();
            Map<Executor, List<Runnable>> others = null;
            while ((w = waiters.peek()) != null && w.offset <= upTo) {
                waiters.poll();
                if (w.executor == first) {
                    firstTasks.add(w.delivery);
                } else {
                    if (others == null) others = new IdentityHashMap<>();
                    others.computeIfAbsent(w.executor, e -> new ArrayList<>()).add(w.delivery);
                }
            }
            deliver(first, firstTasks);
            if (others != null) others.forEach(this::deliver);
        }

        private void deliver(Executor executor, List<Runnable> tasks) {
            deliveries.started();
            try {
                executor.execute(() -> {
                    try {
                        for (int i = 0, n = tasks.size(); i < n; i++) tasks.get(i).run();
                    } finally {
                        deliveryEnded();
                    }
                });
            } catch (RejectedExecutionException closed) {
                deliveryEnded(); // the event loop stopped with its clients
            }
        }

        private void deliveryEnded() {
            if (deliveries.ended() && !handed.isEmpty()) thread.wake();
        }

        /** The AOF is off: nothing will be fsynced for waiting replies, so they go now. */
        void releaseAll() {
            durable = Math.max(durable, written);
            Waiter w;
            while ((w = waiters.poll()) != null) w.executor.execute(w.delivery);
        }
    }
}
