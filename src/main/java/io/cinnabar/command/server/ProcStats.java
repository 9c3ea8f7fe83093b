package io.cinnabar.command.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The process's resident size and CPU times and the calling thread's, as INFO and MEMORY report
 * them, read from /proc through descriptors kept open: a read from offset 0 makes the kernel
 * write the text anew. Measured per read: /proc/self/statm 2 us instead of 12 us for
 * open-read-close; the thread's user time 4.5 us instead of 12 us through ThreadMXBean, which
 * opens the thread's stat file itself. Sentinel asks each server for INFO ten times a second
 * while it acts. Where /proc cannot be read (not Linux) the figures are -1.
 * <p>
 * The CPU times are kept for 10 ms, the ticks they count in: the kernel makes the process's stat by
 * adding up every thread's times, and the JVM runs some twenty, 15 us a read where a whole warm
 * INFO took ~100 us. The resident size is kept for 1 ms only, where Redis's cron reads it every
 * 100 ms: a collection can give back tens of MB within that time. Read on each call, it was a
 * quarter of INFO memory's CPU with 50 clients polling it.
 */
final class ProcStats {
    /** Linux's clock ticks per second, which stat's times count. */
    static final double TICKS_PER_SECOND = 100.0;
    private static final long PAGE_SIZE = 4096;
    /** utime and stime: fields 14 and 15 of stat, the 12th and 13th after the command's closing parenthesis. */
    private static final int USER_AFTER_NAME = 11;
    private static final long TICKS_KEPT_NANOS = 10_000_000;
    private static final long RESIDENT_KEPT_NANOS = 1_000_000;

    private static final ProcFile STATM = new ProcFile("/proc/self/statm");
    private static final ProcFile STAT = new ProcFile("/proc/self/stat");
    /** The thread-self file of the thread that opened it: reopened when another thread asks. */
    private static final ProcFile THREAD_STAT = new ProcFile("/proc/thread-self/stat");

    private ProcStats() {}

    /** Resident set size in bytes, or -1. */
    static long residentBytes() {
        synchronized (STATM) {
            if (!STATM.read(false, RESIDENT_KEPT_NANOS)) return -1;
            long pages = STATM.field(1);
            return pages < 0 ? -1 : pages * PAGE_SIZE;
        }
    }

    /** The process's user and system CPU time in clock ticks, or null. */
    static long[] processTicks() {
        synchronized (STAT) {
            return STAT.read(false, TICKS_KEPT_NANOS) ? STAT.userAndSystem() : null;
        }
    }

    /** The calling thread's user and system CPU time in clock ticks, or null. */
    static long[] threadTicks() {
        synchronized (THREAD_STAT) {
            return THREAD_STAT.read(true, TICKS_KEPT_NANOS) ? THREAD_STAT.userAndSystem() : null;
        }
    }

    /** One small /proc file, its descriptor and its last text. Callers hold its lock. */
    private static final class ProcFile {
        private final Path path;
        private final ByteBuffer text = ByteBuffer.allocate(1024);
        private FileChannel channel;
        private Thread openedBy;
        private boolean unreadable;
        /** When the text was read (System.nanoTime()); the text is there while the channel is open. */
        private long readAt;

        ProcFile(String path) {
            this.path = Path.of(path);
        }

        /**
         * Makes the text at most keptNanos old, reading it anew if needed; perThread: the file
         * names the thread that opens it.
         */
        boolean read(boolean perThread, long keptNanos) {
            if (unreadable) return false;
            if (channel != null && perThread && openedBy != Thread.currentThread()) close();
            long now = System.nanoTime();
            if (channel != null && now - readAt < keptNanos) return true;
            try {
                if (channel == null) {
                    channel = FileChannel.open(path);
                    openedBy = Thread.currentThread();
                }
                text.clear();
                // The files are far shorter than the buffer; a full buffer means a text cut short.
                if (channel.read(text, 0) > 0 && text.hasRemaining()) {
                    readAt = now;
                    return true;
                }
            } catch (IOException | UnsupportedOperationException e) {
                // not Linux, or the thread that opened it ended
            }
            close();
            if (!perThread) unreadable = true;
            return false;
        }

        private void close() {
            try {
                if (channel != null) channel.close();
            } catch (IOException e) {
                // nothing to do: it is dropped either way
            }
            channel = null;
        }

        /** stat's user and system ticks, or null when the text is not stat's. */
        long[] userAndSystem() {
            int end = text.position();
            int paren = end - 1;
            while (paren >= 0 && text.get(paren) != ')') paren--;
            if (paren < 0) return null;
            long user = number(paren + 2, USER_AFTER_NAME, end);
            long system = number(paren + 2, USER_AFTER_NAME + 1, end);
            return user < 0 || system < 0 ? null : new long[] {user, system};
        }

        /** The index-th space-separated decimal field (from 0) of the text, or -1. */
        long field(int index) {
            return number(0, index, text.position());
        }

        private long number(int from, int index, int end) {
            int at = from;
            for (int skipped = 0; skipped < index; at++) {
                if (at >= end) return -1;
                if (text.get(at) == ' ') skipped++;
            }
            long n = 0;
            int digits = 0;
            for (; at < end; at++, digits++) {
                byte b = text.get(at);
                if (b < '0' || b > '9') break;
                n = n * 10 + (b - '0');
            }
            return digits == 0 ? -1 : n;
        }
    }
}
