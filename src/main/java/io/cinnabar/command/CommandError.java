package io.cinnabar.command;

import io.cinnabar.util.BinaryText;

/**
 * A command failed with a Redis error reply; the message is the whole error line, code first
 * ("ERR syntax error", "WRONGTYPE ..."). Thrown by helpers so error paths stay one line.
 */
public final class CommandError extends RuntimeException {
    public static final String SYNTAX = "ERR syntax error";
    public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    public static final String NOT_FLOAT = "ERR value is not a valid float";
    public static final String NO_SUCH_KEY = "ERR no such key";
    public static final String OUT_OF_RANGE = "ERR index out of range";

    /**
     * True when the error was already counted in INFO errorstats where it arose (a script
     * passing on the error of a command it called, Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE).
     */
    public final boolean alreadyCounted;

    public CommandError(String message) {
        this(message, false);
    }

    public CommandError(String message, boolean alreadyCounted) {
        super(message, null, false, false);
        this.alreadyCounted = alreadyCounted;
    }

    public static CommandError syntax() {
        return new CommandError(SYNTAX);
    }

    /** Redis's addReplySubcommandSyntaxError: a known subcommand with arguments it does not take. */
    public static CommandError subcommandSyntax(byte[][] args) {
        String sub = BinaryText.decode(args[1]);
        if (sub.length() > 128) sub = sub.substring(0, 128);
        String cmd = BinaryText.decode(args[0]).toUpperCase(java.util.Locale.ROOT);
        return new CommandError("ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try " + cmd + " HELP.");
    }

    public static CommandError notInteger() {
        return new CommandError(NOT_INTEGER);
    }
}
