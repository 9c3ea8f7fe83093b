package io.cinnabar.command.testing;

import io.cinnabar.command.Client;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** One command as a client sent it, kept by the {@link Recorder}. Immutable. */
public final class RecordedCommand extends ClientCommand {
    private final long timeMs;

    RecordedCommand(Client client, byte[][] argv, long timeMs) {
        super(client, argv);
        this.timeMs = timeMs;
    }

    /** When it arrived, in unix ms of the server's clock. */
    public long timeMs() {
        return timeMs;
    }

    /** The command name upper-cased, as sent ("SET"; "CONFIG" for CONFIG SET). */
    public String command() {
        return new String(argv()[0], StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
    }
}
