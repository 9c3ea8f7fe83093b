package io.cinnabar.persistence.aof;

import java.nio.charset.StandardCharsets;

/**
 * Thrown by the command consumer given to {@link AofLoader} when a command read from the AOF cannot
 * be replayed; loading stops with {@link AofLoadStatus#FAILED} and logs the message followed by
 * " reading the append only file <name>", as Redis does for an unknown command.
 */
public final class AofReplayException extends RuntimeException {
    public AofReplayException(String message) {
        super(message);
    }

    /** Redis's text for a command name it does not know: {@code Unknown command 'bla'}. */
    public static AofReplayException unknownCommand(byte[] name) {
        return new AofReplayException("Unknown command '" + new String(name, StandardCharsets.UTF_8) + "'");
    }
}
