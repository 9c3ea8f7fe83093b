package io.cinnabar.command;

import io.cinnabar.persistence.WriteFeed;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What an execution unit (one top-level command, an EXEC, a served blocked client, an active
 * expire cycle) propagates, collected as Redis's server.also_propagate is and written to the
 * {@link WriteFeed} when the unit ends: one operation as it is, several wrapped in MULTI/EXEC
 * so that they apply atomically, unless the unit asks for no wrapping. Keyspace thread only.
 */
final class Propagation {
    private static final byte[][] MULTI = {"MULTI".getBytes(StandardCharsets.US_ASCII)};
    private static final byte[][] EXEC = {"EXEC".getBytes(StandardCharsets.US_ASCII)};

    private final WriteFeed feed;
    private final List<byte[][]> ops = new ArrayList<>();
    private final List<Integer> dbs = new ArrayList<>();
    private final List<Integer> targets = new ArrayList<>();

    Propagation(WriteFeed feed) {
        this.feed = feed;
    }

    WriteFeed feed() {
        return feed;
    }

    /** Queues argv, run in database db, for the current unit (Redis's alsoPropagate). */
    void also(int db, byte[][] argv) {
        also(db, argv, WriteFeed.TO_ALL);
    }

    /** Queues argv for some of the feed's consumers only ({@link WriteFeed#TO_AOF}, ...). */
    void also(int db, byte[][] argv, int to) {
        if (!feed.enabled() || to == 0) return;
        ops.add(argv);
        dbs.add(db);
        targets.add(to);
    }

    /** Ends the unit: writes what it queued, in MULTI/EXEC when there are several and wrap allows. */
    void endUnit(boolean wrap) {
        int n = ops.size();
        if (n == 0) return;
        boolean transaction = wrap && n > 1;
        if (transaction) feed.append(dbs.get(0), MULTI);
        for (int i = 0; i < n; i++) feed.append(dbs.get(i), ops.get(i), targets.get(i));
        if (transaction) feed.append(dbs.get(n - 1), EXEC);
        ops.clear();
        dbs.clear();
        targets.clear();
    }
}
