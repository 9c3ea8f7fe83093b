package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keys a running command looked up to modify in place ({@link Database#write}). Whether the
 * command really changed them is known only when it returns: HDEL of a missing field, SREM of a
 * missing member or SET NX on an existing key change nothing and, as in Redis (where only real
 * changes call signalModifiedKey), must neither invalidate WATCH nor count as a change. So the
 * signal waits here until the command succeeded, and handlers withdraw it on their no-op paths.
 */
final class PendingChanges {
    private final List<Database> dbs = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();

    void add(Database db, byte[] key) {
        dbs.add(db);
        keys.add(key);
    }

    /** The command left key unchanged after all. */
    void withdraw(Database db, byte[] key) {
        for (int i = keys.size() - 1; i >= 0; i--) {
            if (dbs.get(i) == db && Arrays.equals(keys.get(i), key)) {
                dbs.remove(i);
                keys.remove(i);
            }
        }
    }

    /** The command succeeded: each key still pending counts as one change and touches WATCH. */
    void settle() {
        if (keys.isEmpty()) return;
        for (int i = 0, n = keys.size(); i < n; i++) dbs.get(i).changedInPlace(keys.get(i));
        clear();
    }

    /** The command failed: what it looked up was not changed (errors come before changes). */
    void clear() {
        dbs.clear();
        keys.clear();
    }
}
