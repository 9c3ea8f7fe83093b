package io.cinnabar.command.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** One command as a client sent it, kept by the {@link Recorder}. Immutable. */
public final class RecordedCommand {
    private final long timeMs;
    private final long clientId;
    private final String clientName;
    private final int db;
    private final byte[][] argv;

    RecordedCommand(long timeMs, long clientId, String clientName, int db, byte[][] argv) {
        this.timeMs = timeMs;
        this.clientId = clientId;
        this.clientName = clientName;
        this.db = db;
        this.argv = argv;
    }

    /** When it arrived, in unix ms of the server's clock. */
    public long timeMs() {
        return timeMs;
    }

    public long clientId() {
        return clientId;
    }

    /** CLIENT SETNAME's name at the time, "" when none was set. */
    public String clientName() {
        return clientName;
    }

    /** The database the client had selected. */
    public int db() {
        return db;
    }

    /** The command name upper-cased, as sent ("SET"; "CONFIG" for CONFIG SET). */
    public String command() {
        return new String(argv[0], StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
    }

    /** The arguments after the command name, as UTF-8 text. */
    public List<String> args() {
        List<String> out = new ArrayList<>(argv.length - 1);
        for (int i = 1; i < argv.length; i++) out.add(new String(argv[i], StandardCharsets.UTF_8));
        return Collections.unmodifiableList(out);
    }

    /** Word i as sent (0 is the command name); a copy. */
    public byte[] arg(int i) {
        return argv[i].clone();
    }

    /** Words sent, the command name included. */
    public int argCount() {
        return argv.length;
    }

    byte[][] argv() {
        return argv;
    }

    /** "SET key value". */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(command());
        for (String a : args()) s.append(' ').append(a);
        return s.toString();
    }
}
