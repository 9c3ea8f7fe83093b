package io.cinnabar.command;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN...), in FIFO order per key, and the keys that
 * became ready since the last command. Keyspace thread only; costs nothing while nobody blocks.
 */
final class BlockingRegistry {
    /** A (database, key) pair usable as a map key. */
    static final class BlockKey {
        final int db;
        final byte[] key;
        private final int hash;

        BlockKey(int db, byte[] key) {
            this.db = db;
            this.key = key;
            this.hash = 31 * db + Arrays.hashCode(key);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof BlockKey && ((BlockKey) o).db == db && Arrays.equals(((BlockKey) o).key, key);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final Map<BlockKey, ArrayDeque<Client>> waiting = new HashMap<>();
    private final LinkedHashSet<BlockKey> ready = new LinkedHashSet<>();
    private int blockedClients;

    int blockedClients() {
        return blockedClients;
    }

    void add(Client c, BlockedState state) {
        for (byte[] key : state.keys) {
            ArrayDeque<Client> q = waiting.computeIfAbsent(new BlockKey(state.db, key), k -> new ArrayDeque<>());
            if (!q.contains(c)) q.addLast(c);
        }
        blockedClients++;
    }

    void remove(Client c, BlockedState state) {
        for (byte[] key : state.keys) {
            BlockKey k = new BlockKey(state.db, key);
            ArrayDeque<Client> q = waiting.get(k);
            if (q == null) continue;
            q.remove(c);
            if (q.isEmpty()) waiting.remove(k);
        }
        blockedClients--;
    }

    /** A key was created or grew: clients blocked on it get a chance after the current command. */
    void signal(int db, byte[] key) {
        if (waiting.isEmpty()) return;
        BlockKey k = new BlockKey(db, key);
        if (waiting.containsKey(k)) ready.add(k);
    }

    /**
     * Marks ready every key of database db that clients wait on (its contents were swapped or
     * flushed): serving then finds what is there, and clients that wait for a key to go see it gone.
     * The keys gone come first, as Redis's SWAPDB signals deleted streams (XREADGROUP's "UNBLOCKED
     * the stream key no longer exists") before the keys that hold data: a client blocked on both
     * gets the error.
     */
    void signalDatabase(int db, Predicate<byte[]> exists) {
        for (BlockKey k : waiting.keySet()) {
            if (k.db == db && !exists.test(k.key)) ready.add(k);
        }
        for (BlockKey k : waiting.keySet()) {
            if (k.db == db && exists.test(k.key)) ready.add(k);
        }
    }

    boolean hasReady() {
        return !ready.isEmpty();
    }

    /** The next ready key, removed from the ready set. */
    BlockKey pollReady() {
        var it = ready.iterator();
        BlockKey k = it.next();
        it.remove();
        return k;
    }

    /** The clients blocked on key, oldest first (a snapshot, as serving changes the queue). */
    Client[] waitingOn(BlockKey k) {
        ArrayDeque<Client> q = waiting.get(k);
        return q == null ? new Client[0] : q.toArray(new Client[0]);
    }
}
