package io.cinnabar.keyspace;

import java.util.Arrays;

/**
 * Keeps each database's running byte total ({@link Database#bytes()}) right across values changed
 * in place. A command that looks a key up to modify it (HSET, LPUSH, APPEND...) takes the entry
 * out of the total first; when the command ends the entry is measured again and added back. So
 * a write costs two O(1) measurements ({@link Entry#memory()}), whatever the size of the value,
 * and the total never needs a walk of the data.
 */
final class MemoryTally {
    private Database[] dbs = new Database[8];
    private Entry[] entries = new Entry[8];
    private int count;

    /** e of db is about to change in place: out of the total until {@link #settle}. */
    void measuring(Database db, Entry e) {
        if ((e.lru & Entry.MEASURING) != 0) return;
        db.bytes -= e.memory();
        outOfTotal(db, e);
    }

    /** e, which the total does not count, is measured and added when the command ends. */
    void outOfTotal(Database db, Entry e) {
        e.lru |= Entry.MEASURING;
        if (count == entries.length) {
            entries = Arrays.copyOf(entries, count * 2);
            dbs = Arrays.copyOf(dbs, count * 2);
        }
        dbs[count] = db;
        entries[count++] = e;
    }

    /** The command ended: the entries it changed that are still stored count at their new size. */
    void settle() {
        for (int i = 0; i < count; i++) {
            Entry e = entries[i];
            if ((e.lru & Entry.MEASURING) != 0) {
                e.lru &= ~Entry.MEASURING;
                if (dbs[i].holds(e)) dbs[i].bytes += e.memory();
            }
            entries[i] = null;
            dbs[i] = null;
        }
        count = 0;
    }
}
