package io.cinnabar.keyspace;

import java.util.ArrayList;
import java.util.List;

/**
 * Every database's keys copied apart from the live ones, to be put back later as often as wanted
 * (a test fixture restored before each test). Strings are immutable arrays, shared; every other
 * value is deep-copied when taken and again when put back, so neither the copy nor the live data
 * ever sees the other's changes. TTLs and the string-encoding flags (OBJECT ENCODING) go with
 * each key. Keyspace thread only, for taking and restoring; the copy itself is immutable.
 */
public final class DataCopy {
    /** entries[db]: detached entries, never linked into a table. */
    private final Entry[][] entries;
    private final long keys;

    private DataCopy(Entry[][] entries, long keys) {
        this.entries = entries;
        this.keys = keys;
    }

    /** Copies every key of every database (expired ones not yet reclaimed included, with their TTL). */
    public static DataCopy of(Keyspace keyspace) {
        Entry[][] out = new Entry[keyspace.databaseCount()][];
        long total = 0;
        for (int i = 0; i < out.length; i++) {
            Database db = keyspace.db(i);
            List<Entry> copies = new ArrayList<>(db.size());
            db.forEach(e -> copies.add(detached(e, frozen(e))));
            out[i] = copies.toArray(new Entry[0]);
            total += out[i].length;
        }
        return new DataCopy(out, total);
    }

    /** Keys held, in all databases. */
    public long keys() {
        return keys;
    }

    /**
     * Puts every key back into keyspace's databases, which the caller has emptied; each value is a
     * fresh copy. Keys of databases the keyspace does not have are left out.
     */
    public void restoreInto(Keyspace keyspace) {
        int n = Math.min(entries.length, keyspace.databaseCount());
        for (int i = 0; i < n; i++) {
            Database db = keyspace.db(i);
            for (Entry e : entries[i]) db.putFrom(e.key(), frozen(e), e, false);
        }
    }

    /** A value nobody else can change: strings as they are (never edited in place), others copied. */
    private static Object frozen(Entry e) {
        TypedValue t = e.typed();
        return t != null ? t.copy() : e.frozenString();
    }

    private static Entry detached(Entry e, Object value) {
        long expireAt = e.expireAt();
        return expireAt < 0 ? new Entry(e.key(), e.hash, value, e.lru)
                : new VolatileEntry(e.key(), e.hash, value, e.lru, expireAt);
    }
}
