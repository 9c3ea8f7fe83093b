package io.cinnabar.persistence.aof;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The one open INCR file and Redis's flushAppendOnlyFile rules for it: one write call per batch,
 * a partial write truncated away, unwritten bytes kept for the next attempt, fsync tracking.
 * Size fields are volatile so INFO may read them from another thread.
 */
final class IncrFileWriter {
    private static final Logger log = LoggerFactory.getLogger(AofFiles.class);
    /** AOF_WRITE_LOG_ERROR_RATE: at most one write-error log line per this many seconds. */
    private static final long WRITE_ERROR_LOG_INTERVAL = 30;
    private static final byte[] NONE = new byte[0];

    private final FileChannel channel;
    private final LongSupplier clockSeconds;
    private volatile String name;
    /** Loading reads every file with a fresh client in db 0, so a new file must begin with a SELECT. */
    private boolean fresh = true;
    /** Bytes a failed write left unwritten: Redis's aof_buf after an error. */
    private volatile byte[] pending = NONE;
    private volatile long size, fsyncedSize;
    private volatile IOException lastWriteError, lastFsyncError;
    private long lastWriteErrorLog = Long.MIN_VALUE / 2;

    IncrFileWriter(FileChannel channel, String name, LongSupplier clockSeconds) throws IOException {
        this.channel = channel;
        this.name = name;
        this.clockSeconds = clockSeconds;
        this.size = channel.size();
        this.fsyncedSize = size;
    }

    String name() {
        return name;
    }

    /** The file was renamed (the temporary INCR file became a real one); the channel stays valid. */
    void renamed(String newName) {
        name = newName;
    }

    long size() {
        return size;
    }

    boolean hasUnsyncedBytes() {
        return fsyncedSize != size;
    }

    int pendingBytes() {
        return pending.length;
    }

    IOException lastError() {
        IOException w = lastWriteError;
        return w != null ? w : lastFsyncError;
    }

    /** True once, for the first write to this file. */
    boolean takeFresh() {
        boolean f = fresh;
        fresh = false;
        return f;
    }

    /** Writes what is pending, then prefix and bytes (either may be null), in one write call. */
    void write(byte[] prefix, byte[] bytes) throws AofWriteException {
        write(prefix, bytes, 0, bytes != null ? bytes.length : 0);
    }

    /**
     * Writes what is pending, then prefix (may be null) and len bytes of bytes from off, in one
     * write call. The caller's array is not kept: bytes a failed write leaves are copied.
     */
    void write(byte[] prefix, byte[] bytes, int off, int len) throws AofWriteException {
        byte[] first = pending;
        ByteBuffer[] parts = {ByteBuffer.wrap(first), wrap(prefix), bytes != null ? ByteBuffer.wrap(bytes, off, len) : wrap(null)};
        long expected = 0;
        for (ByteBuffer b : parts) expected += b.remaining();
        if (expected == 0) return;
        long written = 0;
        IOException error = null;
        try {
            while (written < expected) {
                long n = channel.write(parts);
                if (n <= 0) break;
                written += n;
            }
        } catch (IOException e) {
            error = e;
        }
        if (written == expected) {
            pending = NONE;
            size += written;
            if (lastWriteError != null) {
                log.warn("AOF write error looks solved, Redis can write again.");
                lastWriteError = null;
            }
            return;
        }
        throw writeFailed(concat(first, prefix, bytes != null ? Arrays.copyOfRange(bytes, off, off + len) : null),
                written, expected, error);
    }

    /**
     * flushAppendOnlyFile's error path: a partial write is truncated away so the file never ends
     * in half a command; only if that fails does the partial part count as written.
     */
    private AofWriteException writeFailed(byte[] all, long written, long expected, IOException error) {
        boolean canLog = logWriteErrorNow();
        long kept = 0;
        String reason;
        if (written == 0) {
            reason = error != null ? IoErrors.strerror(error) : "No space left on device";
            if (canLog) log.warn("Error writing to the AOF file: {}", reason);
        } else {
            if (canLog) log.warn("Short write while writing to the AOF file: (nwritten={}, expected={})", written, expected);
            try {
                channel.truncate(size);
            } catch (IOException e) {
                if (canLog) {
                    log.warn("Could not remove short write from the append-only file.  Redis may refuse to load "
                            + "the AOF the next time it starts.  ftruncate: {}", IoErrors.strerror(e));
                }
                kept = written;
            }
            // Redis reports a short write as ENOSPC, the usual reason a write stops half way.
            reason = "No space left on device";
        }
        size += kept;
        pending = Arrays.copyOfRange(all, (int) kept, all.length);
        AofWriteException failure = new AofWriteException(reason, error);
        lastWriteError = failure;
        return failure;
    }

    private boolean logWriteErrorNow() {
        long now = clockSeconds.getAsLong();
        if (now - lastWriteErrorLog > WRITE_ERROR_LOG_INTERVAL) {
            lastWriteErrorLog = now;
            return true;
        }
        return false;
    }

    /** fdatasync when there are bytes not yet synced; a failure is kept until an fsync succeeds. */
    void fsync() throws IOException {
        long s = size;
        if (fsyncedSize == s) return;
        try {
            channel.force(false);
        } catch (IOException e) {
            synced(s, e);
            throw e;
        }
        synced(s, null);
    }

    /** Bytes an fsync started now would cover, or -1 when every byte is synced. */
    long unsyncedUpTo() {
        long s = size;
        return fsyncedSize == s ? -1 : s;
    }

    FileChannel channel() {
        return channel;
    }

    /** Records how an fsync begun when the file held upTo bytes ended: error is null on success. */
    void synced(long upTo, IOException error) {
        if (error != null) {
            lastFsyncError = error;
            return;
        }
        if (upTo > fsyncedSize) fsyncedSize = upTo;
        lastFsyncError = null;
    }

    /** Writes what is pending and fsyncs, then closes whatever happened; returns the failure, if any. */
    IOException closeDurably() {
        IOException failure = null;
        try {
            if (pending.length > 0) write(null, null);
            fsync();
        } catch (IOException e) {
            failure = e;
        }
        closeQuietly();
        return failure;
    }

    void closeQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            log.warn("Error closing the AOF file {}: {}", name, IoErrors.strerror(e));
        }
    }

    private static ByteBuffer wrap(byte[] b) {
        return ByteBuffer.wrap(b != null ? b : NONE);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p != null ? p.length : 0;
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            if (p == null) continue;
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
