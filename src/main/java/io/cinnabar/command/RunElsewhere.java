package io.cinnabar.command;

/**
 * Thrown out of a command that may run long (a script) while it runs on the keyspace thread under
 * {@link Dispatcher#inlineDeadline}: it is not known to be quick, or it passed that deadline having
 * done nothing another client could see. The Dispatcher runs it again from the start on the helper
 * thread, where it may outlive busy-reply-threshold while other clients get BUSY. An Error, not an
 * exception, so that nothing between the throw and the Dispatcher swallows it (Lua's pcall catches
 * every Exception).
 */
public final class RunElsewhere extends Error {
    public static final RunElsewhere INSTANCE = new RunElsewhere();

    private RunElsewhere() {
        super(null, null, false, false);
    }
}
