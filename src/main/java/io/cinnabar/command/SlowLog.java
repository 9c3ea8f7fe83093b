package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The slow log, as Redis's slowlog.c: commands that ran at least slowlog-log-slower-than
 * microseconds, newest first, at most slowlog-max-len of them. Arguments are kept as Redis keeps
 * them: at most 32 (the last saying how many more there were), each cut at 128 bytes. Keyspace
 * thread only.
 */
public final class SlowLog {
    static final int MAX_ARGS = 32;
    static final int MAX_ARG_BYTES = 128;

    /** One logged command. */
    public record Entry(long id, long unixSeconds, long micros, byte[][] args, String peer, byte[] clientName) { }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final Config config;
    /** Its clock dates the entries (a test's clock too). */
    private final Keyspace keyspace;
    private long nextId;

    SlowLog(Config config, Keyspace keyspace) {
        this.config = config;
        this.keyspace = keyspace;
    }

    /** Logs the command if it ran at least slowlog-log-slower-than microseconds (negative: never). */
    void record(Client client, byte[][] args, long micros) {
        long threshold = config.getLong(ConfigOptions.SLOWLOG_LOG_SLOWER_THAN);
        if (threshold < 0) return;
        if (micros >= threshold) {
            entries.addFirst(new Entry(nextId++, keyspace.mstime() / 1000, micros, kept(args),
                    client.channel().remoteAddress(), client.name() == null ? new byte[0] : client.name()));
        }
        // Also after CONFIG SET slowlog-max-len lowered it, as Redis trims on the next command.
        while (entries.size() > config.getLong(ConfigOptions.SLOWLOG_MAX_LEN)) entries.removeLast();
    }

    private static byte[][] kept(byte[][] args) {
        int n = Math.min(args.length, MAX_ARGS);
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            if (n != args.length && i == n - 1) {
                out[i] = ("... (" + (args.length - n + 1) + " more arguments)").getBytes(StandardCharsets.US_ASCII);
            } else if (args[i].length > MAX_ARG_BYTES) {
                byte[] cut = Arrays.copyOf(args[i], MAX_ARG_BYTES);
                byte[] more = ("... (" + (args[i].length - MAX_ARG_BYTES) + " more bytes)").getBytes(StandardCharsets.US_ASCII);
                out[i] = Arrays.copyOf(cut, MAX_ARG_BYTES + more.length);
                System.arraycopy(more, 0, out[i], MAX_ARG_BYTES, more.length);
            } else {
                out[i] = args[i].clone();
            }
        }
        return out;
    }

    public int size() {
        return entries.size();
    }

    /** Newest first. */
    public Iterable<Entry> entries() {
        return entries;
    }

    public void reset() {
        entries.clear();
    }
}
