package io.cinnabar.command.scripting;

import io.cinnabar.command.NestedReply;
import io.cinnabar.protocol.RespWriter;

/** A command's reply inside a script kept as the bytes it would have sent, for the debugger to show. */
final class RecordedReply extends RespWriter implements NestedReply {
    RecordedReply(int protocol) {
        protocol(protocol);
    }

    @Override
    public void discard() {
        truncate(0);
    }
}
