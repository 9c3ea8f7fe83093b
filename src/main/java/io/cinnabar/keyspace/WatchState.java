package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One client's WATCHed keys and whether any was touched since (Redis's CLIENT_DIRTY_CAS). The
 * command layer keeps one per client; the keyspace marks it dirty on writes.
 */
public final class WatchState {
    private final List<Watched> keys = new ArrayList<>();
    boolean dirty;

    static final class Watched {
        final WatchState owner;
        final Database db;
        final byte[] key;
        boolean expiredAtWatch;

        Watched(WatchState owner, Database db, byte[] key, boolean expiredAtWatch) {
            this.owner = owner;
            this.db = db;
            this.key = key;
            this.expiredAtWatch = expiredAtWatch;
        }
    }

    /** WATCH key in db (a key watched twice in one db is watched once). */
    public void watch(Database db, byte[] key) {
        for (Watched w : keys) {
            if (w.db == db && Arrays.equals(w.key, key)) return;
        }
        Watched w = new Watched(this, db, key, db.isExpiredPhysically(key));
        keys.add(w);
        db.watchedKeys().add(w);
    }

    /** How many keys are watched (client memory accounting). */
    public int size() {
        return keys.size();
    }

    public boolean isDirty() {
        return dirty;
    }

    /** True when a key that was live at WATCH time has logically expired since (EXEC checks it). */
    public boolean anyWatchedKeyExpired() {
        for (Watched w : keys) {
            if (!w.expiredAtWatch && w.db.isExpiredPhysically(w.key)) return true;
        }
        return false;
    }

    public boolean watchesAnything() {
        return !keys.isEmpty();
    }

    void markDirty() {
        dirty = true;
        // Nothing more can change the outcome: stop paying for the registrations.
        unwatchKeys();
    }

    /** UNWATCH, EXEC, DISCARD, RESET, disconnect: forget every key and the dirty flag. */
    public void unwatchAll() {
        unwatchKeys();
        dirty = false;
    }

    private void unwatchKeys() {
        for (Watched w : keys) w.db.watchedKeys().remove(w);
        keys.clear();
    }
}
