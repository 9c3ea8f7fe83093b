package io.cinnabar.command.scripting;

import io.cinnabar.command.ServerStats;

/**
 * The error replies inside what a script returned ({1, {err='x'}}), counted as Redis's
 * afterErrorReply counts each one it writes: one made by the script counts in errorstats, and
 * the script's command then counts one failed call (call() sees the error count move); one that
 * redis.pcall handed back was counted when its command failed, and instead counts a failed call
 * of the script's command each time it is written.
 */
final class NestedErrors {
    private final ServerStats stats;
    private boolean counted;
    private long alreadyCounted;

    NestedErrors(ServerStats stats) {
        this.stats = stats;
    }

    void written(String error, boolean countedBefore) {
        if (countedBefore) {
            alreadyCounted++;
        } else {
            stats.errorReply(error);
            counted = true;
        }
    }

    /** The failed calls the script's command counts for them. */
    long failedCalls() {
        return alreadyCounted + (counted ? 1 : 0);
    }
}
