package io.cinnabar.persistence;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The stream of executed writes, in the form Redis propagates them: RESP arrays of commands, a
 * SELECT whenever the database changes, transactions wrapped in MULTI/EXEC by the caller. The
 * command thread appends; at the end of each round of work what accumulated is taken and handed
 * to the consumers (the AOF today, replication later). Disabled — and then free — while nothing
 * consumes it. Keyspace thread only.
 */
public final class WriteFeed {
    private static final byte[] SELECT = "SELECT".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] DB_NAMES = new byte[16][];

    static {
        for (int i = 0; i < DB_NAMES.length; i++) DB_NAMES[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
    }

    private byte[] buf = new byte[16 * 1024];
    private int len;
    /** Bytes ever appended: the position consumers acknowledge (fsynced up to here...). */
    private long offset;
    private int selectedDb = -1;
    private boolean enabled;

    public boolean enabled() {
        return enabled;
    }

    /** Starts or stops the feed; a restarted feed begins with a SELECT. */
    public void enabled(boolean on) {
        enabled = on;
        selectedDb = -1;
        if (!on) len = 0;
    }

    /** The next command is preceded by a SELECT, whatever database the last one used (new AOF file). */
    public void forceSelect() {
        selectedDb = -1;
    }

    /** Total bytes appended since start-up. */
    public long offset() {
        return offset;
    }

    public boolean hasPending() {
        return len > 0;
    }

    /** The bytes appended since the last call, for the consumers; the feed starts empty again. */
    public byte[] takePending() {
        byte[] out = Arrays.copyOf(buf, len);
        len = 0;
        if (buf.length > 1024 * 1024) buf = new byte[16 * 1024];
        return out;
    }

    /** Appends argv as executed in database db. */
    public void append(int db, byte[][] argv) {
        if (!enabled) return;
        if (db != selectedDb) {
            selectedDb = db;
            byte[] name = db < DB_NAMES.length ? DB_NAMES[db] : Integer.toString(db).getBytes(StandardCharsets.US_ASCII);
            writeCommand(new byte[][] {SELECT, name});
        }
        writeCommand(argv);
    }

    private void writeCommand(byte[][] argv) {
        int size = 16;
        for (byte[] a : argv) size += a.length + 16;
        ensure(size);
        int start = len;
        header('*', argv.length);
        for (byte[] a : argv) {
            header('$', a.length);
            System.arraycopy(a, 0, buf, len, a.length);
            len += a.length;
            buf[len++] = '\r';
            buf[len++] = '\n';
        }
        offset += len - start;
    }

    private void header(char type, int n) {
        buf[len++] = (byte) type;
        if (n == 0) {
            buf[len++] = '0';
        } else {
            int digits = 0;
            for (int x = n; x > 0; x /= 10) digits++;
            for (int i = len + digits - 1, x = n; i >= len; i--, x /= 10) buf[i] = (byte) ('0' + x % 10);
            len += digits;
        }
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
}
