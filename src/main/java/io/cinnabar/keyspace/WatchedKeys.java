package io.cinnabar.keyspace;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The keys of one database that clients WATCH, each with the clients' registrations. Database
 * consults it only when it is non-empty, so writes cost one field read when nobody watches.
 */
final class WatchedKeys {
    private final Map<ByteBuffer, List<WatchState.Watched>> byKey = new HashMap<>();

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    void add(WatchState.Watched w) {
        byKey.computeIfAbsent(ByteBuffer.wrap(w.key), k -> new ArrayList<>(2)).add(w);
    }

    void remove(WatchState.Watched w) {
        ByteBuffer k = ByteBuffer.wrap(w.key);
        List<WatchState.Watched> list = byKey.get(k);
        if (list == null) return;
        list.remove(w);
        if (list.isEmpty()) byKey.remove(k);
    }

    /** Redis's touchWatchedKey: the key was modified; present says whether it still exists. */
    void touched(byte[] key, boolean present) {
        List<WatchState.Watched> list = byKey.get(ByteBuffer.wrap(key));
        if (list == null) return;
        // Copy: marking a client dirty unwatches all its keys, which edits this list.
        for (WatchState.Watched w : list.toArray(new WatchState.Watched[0])) {
            if (w.expiredAtWatch) {
                // A key already expired at WATCH time that is now gone is no logical change.
                if (!present) w.expiredAtWatch = false;
                continue;
            }
            w.owner.markDirty();
        }
    }

    /** Redis's touchAllWatchedKeysInDb: emptied is flushed or swapped with replacedWith (may be null). */
    void touchedAll(Database emptied, Database replacedWith) {
        List<WatchState> dirty = new ArrayList<>();
        for (Iterator<Map.Entry<ByteBuffer, List<WatchState.Watched>>> it = byKey.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<ByteBuffer, List<WatchState.Watched>> e = it.next();
            byte[] key = e.getValue().get(0).key;
            boolean inEmptied = emptied.containsPhysically(key);
            boolean inReplacement = replacedWith != null && replacedWith.containsPhysically(key);
            if (!inEmptied && !inReplacement) continue;
            for (WatchState.Watched w : e.getValue()) {
                if (w.expiredAtWatch) {
                    if (!inReplacement) {
                        w.expiredAtWatch = false;
                        continue;
                    } else if (replacedWith.isExpiredPhysically(key)) {
                        continue;
                    }
                } else if (!inEmptied && replacedWith.isExpiredPhysically(key)) {
                    w.expiredAtWatch = true;
                    continue;
                }
                dirty.add(w.owner);
            }
        }
        for (WatchState s : dirty) s.dirty = true;
    }
}
