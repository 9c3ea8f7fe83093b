package io.cinnabar.persistence.aof;

import io.cinnabar.persistence.RespCommandBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The append-only files on disk as a state machine, driven by the persistence thread the way
 * Redis 7.0's aof.c drives them: opening at start-up, appending and fsyncing the INCR file,
 * switching to a new INCR file when a rewrite starts, and swapping in the rewritten BASE (old
 * files become HISTORY, then are deleted) when it ends.
 * <p>
 * Not thread-safe: call every method from one thread. The size and status getters may be read
 * from any thread (INFO); they are published as volatile fields.
 */
public final class AofFiles implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(AofFiles.class);

    /** Redis's aof_state. */
    public enum State {
        /** appendonly no: nothing is written, though a rewrite may still produce a new BASE. */
        OFF,
        /** appendonly yes: writes go to the last INCR file. */
        ON,
        /**
         * Switched on at run time and waiting for the first rewrite: while it runs, writes go to a
         * temporary INCR file that becomes a real one when the rewrite succeeds.
         */
        WAIT_REWRITE
    }

    /** What a started rewrite must produce: a complete BASE file at {@code tempFile}. */
    public record RewriteTarget(Path tempFile) {}

    /** Opens the file appends go to; tests substitute one that fails on demand. */
    @FunctionalInterface
    interface ChannelOpener {
        FileChannel open(Path path) throws IOException;
    }

    private final AofLayout layout;
    private final LongSupplier clockSeconds;
    private final ChannelOpener opener;

    private volatile AofManifest manifest;
    private volatile State state = State.OFF;
    private volatile boolean rewriting;
    private RewriteTarget rewriteTarget;

    /** The INCR file appends go to (the temporary one while waiting for a rewrite), or null. */
    private volatile IncrFileWriter incr;
    /** Bytes of the BASE and INCR files not being appended to any more: aof_current_size without incr. */
    private volatile long closedBytes;
    private volatile long baseSize;
    /** startAppendOnly forgets the error of the writer it stopped, as Redis does. */
    private IOException stoppedWithError;

    private boolean timestamps;
    private boolean autoGc = true;
    private Consumer<Closeable> closer = AofFiles::closeQuietly;
    /** aof_cur_timestamp: the second of the last #TS annotation. */
    private long lastTimestamp;

    /**
     * @param manifest     from {@link AofManifest#loadFromDisk} or {@link AofLoader.Result#manifest()}
     * @param clockSeconds unix time in seconds, for #TS annotations and log rate limits
     */
    public AofFiles(AofLayout layout, AofManifest manifest, LongSupplier clockSeconds) {
        this(layout, manifest, clockSeconds, AofFiles::openForAppend);
    }

    AofFiles(AofLayout layout, AofManifest manifest, LongSupplier clockSeconds, ChannelOpener opener) {
        this.layout = layout;
        this.manifest = manifest;
        this.clockSeconds = clockSeconds;
        this.opener = opener;
    }

    private static FileChannel openForAppend(Path path) throws IOException {
        return FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    // ---- options ----

    /** aof-timestamp-enabled: a {@code #TS:<unix seconds>} line before writes of a new second. */
    public void setTimestampsEnabled(boolean enabled) {
        timestamps = enabled;
    }

    /**
     * Where unlinked HISTORY files and the INCR file a rewrite leaves behind get closed (the
     * latter fsynced first): a background thread; by default right away.
     */
    public void closeFilesWith(Consumer<Closeable> closer) {
        this.closer = closer;
    }

    /** The inverse of aof-disable-auto-gc; switching it back on deletes the HISTORY files now. */
    public void setAutoGc(boolean enabled) throws IOException {
        autoGc = enabled;
        if (enabled) deleteHistoryFiles();
    }

    // ---- start and stop ----

    /**
     * aofOpenIfNeededOnServerStart, after loading: creates the directory; with no BASE and no INCR
     * file (an empty data set) writes a BASE with {@code initialBase}; opens the last INCR file for
     * appending, or creates the first; writes the manifest if it changed; deletes HISTORY files.
     *
     * @param rdbBase whether {@code initialBase} writes an RDB (aof-use-rdb-preamble) or commands
     */
    public void openOnStartup(boolean rdbBase, BaseWriter initialBase) throws IOException {
        requireState(State.OFF);
        createDirIfMissing(layout);
        AofManifest next = manifest;
        if (next.hasNoData()) {
            next = next.withNewBase(layout, rdbBase);
            writeBaseFile(layout.file(next.base().fileName()), initialBase);
            log.info("Creating AOF base file {} on server start", next.base().fileName());
        }
        boolean existingIncr = !next.incrs().isEmpty();
        if (!existingIncr) next = next.withNewIncr(layout);
        String name = next.lastIncr().fileName();
        IncrFileWriter w = openLogged(name, false);
        try {
            if (next != manifest) next.persist(layout);
        } catch (IOException e) {
            w.closeQuietly();
            throw e;
        }
        manifest = next;
        baseSize = sizeOrZero(next.base());
        long closed = baseSize;
        List<AofManifest.FileInfo> incrs = next.incrs();
        for (AofManifest.FileInfo f : incrs.subList(0, incrs.size() - 1)) closed += sizeOrZero(f);
        closedBytes = closed;
        incr = w;
        state = State.ON;
        log.info(existingIncr ? "Opening AOF incr file {} on server start" : "Creating AOF incr file {} on server start", name);
        deleteHistoryFilesLogged();
    }

    /**
     * startAppendOnly (CONFIG SET appendonly yes): waits for a rewrite; call {@link #startRewrite()}
     * next. Until that rewrite succeeds, nothing changes on disk but the temporary INCR file. A
     * rewrite already running (BGREWRITEAOF while off) is abandoned: stop its writer first.
     */
    public void startAppendOnly() {
        requireState(State.OFF);
        // A rewrite started while off writes no INCR file; Redis kills it and starts over.
        if (rewriting) abortRewrite();
        state = State.WAIT_REWRITE;
        if (stoppedWithError != null) {
            log.warn("AOF reopen, just ignore the last error.");
            stoppedWithError = null;
        }
    }

    /**
     * stopAppendOnly (CONFIG SET appendonly no) and shutdown: abandons a rewrite in progress (stop
     * its writer first), writes what is pending, fsyncs and closes. The state is OFF afterwards
     * even when the final write or fsync failed; that failure is then thrown for the caller to log.
     */
    public void stopAppendOnly() throws IOException {
        if (state == State.OFF) return;
        if (rewriting) abortRewrite();
        IncrFileWriter w = incr;
        incr = null;
        state = State.OFF;
        if (w == null) return;
        IOException failure = w.closeDurably();
        stoppedWithError = failure != null ? failure : w.lastError();
        if (failure != null) throw failure;
    }

    @Override
    public void close() throws IOException {
        stopAppendOnly();
    }

    // ---- writing ----

    /** {@link #append(byte[], int)} for bytes that select their own database when they need to. */
    public void append(byte[] bytes) throws AofWriteException {
        append(bytes, -1);
    }

    /**
     * Writes a batch of RESP commands from the write feed in one write call (Redis's single write
     * per event loop turn). With timestamps on, a {@code #TS:} line precedes it when the second
     * changed. Ignored, as in Redis, while the AOF is off or waits for its rewrite to start.
     *
     * @param dbBefore the database the feed had selected before these bytes, or -1 if none. The
     *                 first write to a newly opened INCR file gets a SELECT of it, since loading
     *                 starts every file in db 0 and the feed cannot know when the file changed.
     * @throws AofWriteException when the write failed; the unwritten bytes (after truncating a
     *                           partial write away) stay pending and go first on the next call
     */
    public void append(byte[] bytes, int dbBefore) throws AofWriteException {
        append(bytes, 0, bytes.length, dbBefore);
    }

    /** {@link #append(byte[], int)} of len bytes of bytes from off; the array is not kept. */
    public void append(byte[] bytes, int off, int len, int dbBefore) throws AofWriteException {
        IncrFileWriter w = incr;
        if (w == null) return;
        RespCommandBuffer prefix = null;
        if (timestamps) {
            long now = clockSeconds.getAsLong();
            if (now > lastTimestamp) {
                lastTimestamp = now;
                prefix = new RespCommandBuffer(32).raw(timestampLine(now));
            }
        }
        if (w.takeFresh() && dbBefore >= 0) prefix = (prefix != null ? prefix : new RespCommandBuffer(32)).select(dbBefore);
        w.write(prefix != null ? prefix.toByteArray() : null, bytes, off, len);
    }

    /** Retries the bytes a failed write left pending (Redis retries from serverCron every second). */
    public void flushPending() throws AofWriteException {
        IncrFileWriter w = incr;
        if (w != null && w.pendingBytes() > 0) w.write(null, null);
    }

    /**
     * fsync (fdatasync) of the INCR file when it has bytes not yet synced. A failure is kept for
     * {@link #lastError()} until an fsync succeeds, and thrown: Redis exits under appendfsync always
     * and refuses writes with MISCONF otherwise.
     */
    public void fsync() throws IOException {
        IncrFileWriter w = incr;
        if (w != null) w.fsync();
    }

    /**
     * An fsync of the INCR file's bytes so far, for another thread to run ({@link #channel}),
     * then {@link #done} back on the owning thread; null when every byte is synced already.
     */
    public Fsync startFsync() {
        IncrFileWriter w = incr;
        long upTo = w == null ? -1 : w.unsyncedUpTo();
        return upTo < 0 ? null : new Fsync(w, upTo);
    }

    /** See {@link #startFsync}. A file closed meanwhile was fsynced as it closed; its outcome no longer counts. */
    public static final class Fsync {
        private final IncrFileWriter writer;
        private final long upTo;

        private Fsync(IncrFileWriter writer, long upTo) {
            this.writer = writer;
            this.upTo = upTo;
        }

        public FileChannel channel() {
            return writer.channel();
        }

        public void done(IOException error) {
            writer.synced(upTo, error);
        }
    }

    // ---- rewrite ----

    /**
     * The start of BGREWRITEAOF (rewriteAppendOnlyFileBackground + openNewIncrAofForAppend). When ON:
     * writes what is pending, opens the next INCR file and records it in the manifest, and has the
     * closer fsync and close the previous one, so the rewrite covers exactly what came before.
     * When waiting after {@link #startAppendOnly()}: opens the temporary INCR file. When OFF:
     * changes no file. On failure nothing changed; while a failed write is still pending this
     * throws its {@link AofWriteException}. The snapshot handed to the rewrite must be taken at
     * this point.
     */
    public RewriteTarget startRewrite() throws IOException {
        if (rewriting) throw new IllegalStateException("an AOF rewrite is already in progress");
        createDirIfMissing(layout);
        RewriteTarget target = new RewriteTarget(layout.rewriteTempFile());
        Files.deleteIfExists(target.tempFile());
        if (state == State.ON) {
            // Redis would carry unwritten bytes over into the new file, where they would replay in
            // db 0 without their SELECT; while writes fail, a rewrite is refused instead.
            flushPending();
            AofManifest next = manifest.withNewIncr(layout);
            String name = next.lastIncr().fileName();
            IncrFileWriter w = openLogged(name, true);
            try {
                next.persist(layout);
            } catch (IOException e) {
                w.closeQuietly();
                throw e;
            }
            log.info("Creating AOF incr file {} on background rewrite", name);
            IncrFileWriter old = incr;
            // Redis's aof_background_fsync_and_close: under always the file is synced already,
            // under everysec the fsync may come late as long as it comes.
            closer.accept(() -> {
                IOException e = old.closeDurably();
                if (e != null) log.warn("Error fsyncing the AOF file {} as it closed: {}", old.name(), IoErrors.strerror(e));
            });
            closedBytes += old.size();
            manifest = next;
            incr = w;
        } else if (state == State.WAIT_REWRITE) {
            String name = layout.tempIncrName();
            incr = openLogged(name, true);
            log.info("Creating AOF incr file {} on background rewrite", name);
        }
        rewriteTarget = target;
        rewriting = true;
        return target;
    }

    /**
     * backgroundRewriteDoneHandler on success: fsyncs {@code tempBase} and renames it in as the next
     * BASE (the old BASE and the INCR files it covers become HISTORY), turns the temporary INCR
     * file into a real one when the AOF was waiting for this rewrite, writes the manifest, then
     * deletes HISTORY files unless auto gc is off. On failure the rewrite is aborted (its files
     * removed, the manifest in use unchanged) and the error thrown.
     *
     * @param rdb whether the BASE is an RDB (named .base.rdb) or commands (.base.aof)
     */
    public void finishRewrite(Path tempBase, boolean rdb) throws IOException {
        if (!rewriting) throw new IllegalStateException("no AOF rewrite in progress");
        AofManifest next = manifest.withNewBase(layout, rdb);
        String baseName = next.base().fileName();
        Path basePath = layout.file(baseName);
        try {
            fsyncFile(tempBase);
        } catch (IOException e) {
            log.warn("Can't fsync the temporary AOF base file {}: {}", tempBase.getFileName(), IoErrors.strerror(e));
            abortRewrite();
            throw e;
        }
        try {
            Files.move(tempBase, basePath, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Error trying to rename the temporary AOF base file {} into {}: {}",
                    tempBase.getFileName(), basePath, IoErrors.strerror(e));
            abortRewrite();
            throw e;
        }
        log.info("Successfully renamed the temporary AOF base file {} into {}", tempBase.getFileName(), baseName);

        Path incrPath = null;
        if (state == State.WAIT_REWRITE) {
            next = next.withNewIncr(layout);
            String incrName = next.lastIncr().fileName();
            incrPath = layout.file(incrName);
            try {
                Files.move(layout.file(layout.tempIncrName()), incrPath, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                log.warn("Error trying to rename the temporary AOF incr file {} into {}: {}",
                        layout.tempIncrName(), incrPath, IoErrors.strerror(e));
                deleteQuietly(basePath);
                abortRewrite();
                throw e;
            }
            log.info("Successfully renamed the temporary AOF incr file {} into {}", layout.tempIncrName(), incrName);
            incr.renamed(incrName);
        }

        next = next.withRewrittenIncrsAsHistory(incr != null);
        try {
            next.persist(layout);
        } catch (IOException e) {
            deleteQuietly(basePath);
            if (incrPath != null) {
                // The temporary INCR file now has its final name; the abort below must find it.
                moveQuietly(incrPath, layout.file(layout.tempIncrName()));
            }
            abortRewrite();
            throw e;
        }
        manifest = next;
        rewriting = false;
        rewriteTarget = null;
        if (state != State.OFF) {
            closedBytes = sizeOrZero(next.base());
            baseSize = currentSize();
        }
        deleteHistoryFilesLogged();
        if (state == State.WAIT_REWRITE) state = State.ON;
        log.info("Background AOF rewrite finished successfully");
    }

    /**
     * A rewrite failed or was cancelled: removes its temporary BASE, and when the AOF was waiting
     * for it, the temporary INCR file and what was written there (the next rewrite starts over).
     * The INCR file opened by {@link #startRewrite()} stays, as in Redis.
     */
    public void abortRewrite() {
        if (!rewriting) return;
        rewriting = false;
        if (rewriteTarget != null) deleteQuietly(rewriteTarget.tempFile());
        rewriteTarget = null;
        if (state == State.WAIT_REWRITE) {
            if (incr != null) incr.closeQuietly();
            incr = null;
            log.info("Removing the temp incr aof file {} in the background", layout.tempIncrName());
            deleteQuietly(layout.file(layout.tempIncrName()));
        }
    }

    /**
     * aofDelHistoryFiles: deletes the HISTORY files and writes the manifest without them, unless
     * auto gc is off. Deleting is synchronous here (Redis hands it to a background thread).
     */
    public void deleteHistoryFiles() throws IOException {
        AofManifest m = manifest;
        if (!autoGc || m.history().isEmpty()) return;
        for (AofManifest.FileInfo f : m.history()) {
            log.info("Removing the history file {} in the background", f.fileName());
            unlinkInBackground(layout.file(f.fileName()));
        }
        manifest = m.withoutHistory();
        manifest.persist(layout);
    }

    /** Deleting history is housekeeping: a failure (already logged) does not fail the caller, as in Redis. */
    private void deleteHistoryFilesLogged() {
        try {
            deleteHistoryFiles();
        } catch (IOException e) {
            log.debug("History files not deleted: {}", IoErrors.strerror(e));
        }
    }

    // ---- state for INFO and the persistence thread ----

    public State state() {
        return state;
    }

    public boolean isRewriting() {
        return rewriting;
    }

    public AofManifest manifest() {
        return manifest;
    }

    /** Name of the file appends go to, or null. */
    public String currentFileName() {
        IncrFileWriter w = incr;
        return w != null ? w.name() : null;
    }

    /** aof_current_size: BASE plus INCR bytes, grown by each write. */
    public long currentSize() {
        IncrFileWriter w = incr;
        return closedBytes + (w != null ? w.size() : 0);
    }

    /** aof_base_size: the size right after the last rewrite (at start-up, the BASE file's size). */
    public long baseSize() {
        return baseSize;
    }

    /**
     * serverCron's automatic rewrite rule: the growth in percent over {@link #baseSize()} when the
     * AOF is on, larger than {@code minSize} and grown by at least {@code percentage}; -1 otherwise
     * (also when {@code percentage} is 0, which disables it). Redis then logs "Starting automatic
     * rewriting of AOF on N% growth".
     *
     * @param percentage auto-aof-rewrite-percentage
     * @param minSize    auto-aof-rewrite-min-size
     */
    public long autoRewriteGrowth(long percentage, long minSize) {
        long current = currentSize();
        if (state != State.ON || rewriting || percentage <= 0 || current <= minSize) return -1;
        long base = Math.max(1, baseSize);
        long growth = current * 100 / base - 100;
        return growth >= percentage ? growth : -1;
    }

    /** Bytes in the INCR file being appended to. */
    public long incrSize() {
        IncrFileWriter w = incr;
        return w != null ? w.size() : 0;
    }

    /** True when the INCR file has bytes an fsync has not covered yet. */
    public boolean hasUnsyncedBytes() {
        IncrFileWriter w = incr;
        return w != null && w.hasUnsyncedBytes();
    }

    /** aof_buffer_length after a failed write: bytes waiting for the next attempt. */
    public int pendingBytes() {
        IncrFileWriter w = incr;
        return w != null ? w.pendingBytes() : 0;
    }

    /**
     * The write or fsync failure still in effect (aof_last_write_status is err), or null. While it
     * is set Redis refuses writes with {@code MISCONF Errors writing to the AOF file: <strerror>};
     * {@link IoErrors#strerror} gives that text.
     */
    public IOException lastError() {
        IncrFileWriter w = incr;
        return w != null ? w.lastError() : null;
    }

    // ---- helpers ----

    static void createDirIfMissing(AofLayout layout) throws IOException {
        try {
            Files.createDirectories(layout.aofDir());
        } catch (IOException e) {
            log.warn("Can't open or create append-only dir {}: {}", layout.dirName(), IoErrors.strerror(e));
            throw e;
        }
    }

    /** rewriteAppendOnlyFile: written to a temp file, fsynced, then renamed to its final name. */
    private void writeBaseFile(Path target, BaseWriter writer) throws IOException {
        Path tmp = layout.syncRewriteTempFile();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
            writer.writeTo(out);
            out.flush();
            ch.force(true);
        } catch (IOException e) {
            log.warn("Write error writing append only file on disk: {}", IoErrors.strerror(e));
            deleteQuietly(tmp);
            throw e;
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Error moving temp append only file on the final destination: {}", IoErrors.strerror(e));
            deleteQuietly(tmp);
            throw e;
        }
    }

    /** Opens an INCR file for appending; {@code empty} truncates it (O_TRUNC) for a new one. */
    private IncrFileWriter openLogged(String name, boolean empty) throws IOException {
        FileChannel ch;
        try {
            ch = opener.open(layout.file(name));
        } catch (IOException e) {
            log.warn("Can't open the append-only file {}: {}", name, IoErrors.strerror(e));
            throw e;
        }
        try {
            if (empty) ch.truncate(0);
            return new IncrFileWriter(ch, name, clockSeconds);
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    private long sizeOrZero(AofManifest.FileInfo f) {
        if (f == null) return 0;
        try {
            return Files.size(layout.file(f.fileName()));
        } catch (IOException e) {
            return 0;
        }
    }

    private static void fsyncFile(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    private static byte[] timestampLine(long seconds) {
        return ("#TS:" + seconds + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private void requireState(State expected) {
        if (state != expected) throw new IllegalStateException("AOF is " + state + ", expected " + expected);
    }

    /**
     * Redis's bg_unlink: the file is opened, unlinked, and closed by {@link #closeFilesWith the
     * closer}, where the last close frees its blocks. Unlinking a rewritten 46 MB base outright
     * took 50-210 ms here with a snapshot being written back.
     */
    private void unlinkInBackground(Path p) {
        FileChannel open;
        try {
            open = FileChannel.open(p, StandardOpenOption.READ);
        } catch (IOException e) {
            deleteQuietly(p);
            return;
        }
        deleteQuietly(p);
        closer.accept(open);
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // a file already unlinked: nothing is lost if its close fails
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            log.warn("Can't delete {}: {}", p, IoErrors.strerror(e));
        }
    }

    private static void moveQuietly(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Can't rename {} to {}: {}", from, to, IoErrors.strerror(e));
        }
    }
}
