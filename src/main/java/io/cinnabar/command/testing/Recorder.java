package io.cinnabar.command.testing;

import io.cinnabar.command.Client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps what each client sent, while started: command and arguments, client, database and the
 * time on the server's clock, in arrival order, for tests to assert on after the fact. A command
 * is recorded when it arrives, whatever becomes of it (refused, queued in MULTI, blocked);
 * commands scripts call and CINNABAR commands are not. Off, it costs the Dispatcher one field
 * read per command. Keeps the last {@link #DEFAULT_CAPACITY} commands. Any thread.
 */
public final class Recorder {
    public static final int DEFAULT_CAPACITY = 1_000_000;

    private final TestControls controls;
    /** Keyspace thread only. */
    private final ArrayDeque<RecordedCommand> entries = new ArrayDeque<>();
    private volatile boolean recording;

    Recorder(TestControls controls) {
        this.controls = controls;
    }

    /** Starts recording (what was recorded before stays). */
    public Recorder start() {
        return switchTo(true);
    }

    /** Stops recording; what was recorded stays queryable. */
    public Recorder stop() {
        return switchTo(false);
    }

    private Recorder switchTo(boolean on) {
        controls.call(() -> {
            recording = on;
            controls.changed();
            return null;
        });
        return this;
    }

    public boolean isRecording() {
        return recording;
    }

    /** Forgets what was recorded. */
    public Recorder clear() {
        controls.call(() -> {
            entries.clear();
            return null;
        });
        return this;
    }

    /** Everything recorded, oldest first. */
    public List<RecordedCommand> commands() {
        return controls.call(() -> List.copyOf(entries));
    }

    /** The recorded calls of one command (any case: "set"), oldest first. */
    public List<RecordedCommand> commands(String command) {
        byte[] name = command.getBytes(StandardCharsets.UTF_8);
        return controls.call(() -> {
            List<RecordedCommand> out = new ArrayList<>();
            for (RecordedCommand r : entries) {
                if (equalsIgnoreCase(r.argv()[0], name)) out.add(r);
            }
            return out;
        });
    }

    /** The last count commands recorded (all if fewer), oldest first. Keyspace thread. */
    List<RecordedCommand> last(long count) {
        List<RecordedCommand> all = new ArrayList<>(entries);
        int from = (int) Math.max(0, all.size() - count);
        return all.subList(from, all.size());
    }

    /** Keyspace thread. */
    void record(Client client, byte[][] argv, long timeMs) {
        if (entries.size() >= DEFAULT_CAPACITY) entries.pollFirst();
        entries.add(new RecordedCommand(client, argv.clone(), timeMs));
    }

    /** Back to how a server starts: off and empty. Keyspace thread. */
    void reset() {
        recording = false;
        entries.clear();
    }

    static boolean equalsIgnoreCase(byte[] a, byte[] b) {
        if (a.length != b.length) return false;
        for (int i = 0; i < a.length; i++) {
            if (lower(a[i]) != lower(b[i])) return false;
        }
        return true;
    }

    private static int lower(byte c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}
