package io.cinnabar.command;

import io.cinnabar.protocol.Reply;

import java.util.function.Consumer;

/** What a blocked client waits for: keys of one database, a deadline, and its command to retry. */
final class BlockedState {
    final int db;
    final byte[][] keys;
    final CommandSpec spec;
    final byte[][] args;
    final Consumer<Reply> timeoutReply;
    /** The command also runs again when a key it waits on goes away (XREADGROUP answers with an error then). */
    final boolean wakeWhenGone;
    ClockTimers.Deadline timer;

    BlockedState(int db, byte[][] keys, CommandSpec spec, byte[][] args, Consumer<Reply> timeoutReply, boolean wakeWhenGone) {
        this.db = db;
        this.keys = keys;
        this.spec = spec;
        this.args = args;
        this.timeoutReply = timeoutReply;
        this.wakeWhenGone = wakeWhenGone;
    }
}
