package io.cinnabar.command;

/** Runs one command on the keyspace thread, writing its reply through {@link Call#reply()}. */
@FunctionalInterface
public interface CommandHandler {
    void execute(Call c);
}
