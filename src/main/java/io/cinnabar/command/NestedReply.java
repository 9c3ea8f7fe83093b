package io.cinnabar.command;

import io.cinnabar.protocol.Reply;

/**
 * A reply target for a command run inside another one (redis.call), building values directly
 * instead of RESP bytes.
 */
public interface NestedReply extends Reply {
    /** Forgets what the command replied so far: it failed, and its error is the whole reply. */
    void discard();
}
