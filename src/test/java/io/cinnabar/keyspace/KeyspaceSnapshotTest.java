package io.cinnabar.keyspace;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyspaceSnapshotTest {
    /** What a sink saw: per database, key → value text and TTL, in arrival order checks. */
    static final class Recorder implements KeyspaceSnapshot.Sink {
        final Map<Integer, Map<String, String>> dbs = new TreeMap<>();
        final List<Integer> order = new ArrayList<>();
        final Map<Integer, Long> announced = new HashMap<>();
        /** The values as handed over: a sink may serialise them later, on another thread. */
        final Map<String, Object> values = new HashMap<>();
        int duplicates;

        @Override
        public void beginDatabase(int db, long keys, long expires) {
            order.add(db);
            announced.put(db, keys);
            dbs.put(db, new TreeMap<>());
        }

        @Override
        public void entry(int db, byte[] key, Object value, long expireAtMs, long idle, int freq) {
            assertEquals(db, order.get(order.size() - 1), "records arrive grouped by database");
            String v = describe(value) + "@" + expireAtMs;
            if (dbs.get(db).put(str(key), v) != null) duplicates++;
            values.put(db + ":" + str(key), value);
        }
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String describe(Object value) {
        if (value instanceof byte[]) return str((byte[]) value);
        if (value instanceof SetValue) {
            List<String> members = new ArrayList<>();
            ((SetValue) value).forEach(m -> members.add(str(m)));
            members.sort(null);
            return "set" + members;
        }
        if (value instanceof HashValue) {
            Map<String, String> pairs = new TreeMap<>();
            ((HashValue) value).forEach((f, fo, fl, v, vo, vl) -> pairs.put(new String(f, fo, fl, StandardCharsets.UTF_8),
                    new String(v, vo, vl, StandardCharsets.UTF_8)));
            return "hash" + pairs;
        }
        return value.getClass().getSimpleName();
    }

    /** The keyspace's live contents in the recorder's form. */
    private static Map<Integer, Map<String, String>> contents(Keyspace ks) {
        Map<Integer, Map<String, String>> out = new TreeMap<>();
        for (int i = 0; i < ks.databaseCount(); i++) {
            Map<String, String> m = new TreeMap<>();
            ks.db(i).forEach(e -> m.put(str(e.key()), describe(e.value()) + "@" + e.expireAt()));
            if (!m.isEmpty()) out.put(i, m);
        }
        return out;
    }

    @Test
    void quietKeyspaceIsHandedOverWhole() {
        Keyspace ks = new Keyspace(4);
        for (int i = 0; i < 1000; i++) ks.db(i % 3).set(b("k" + i), b("v" + i));
        ks.db(2).set(b("ttl"), b("x"), System.currentTimeMillis() + 100_000);
        Map<Integer, Map<String, String>> before = contents(ks);
        Recorder r = new Recorder();
        KeyspaceSnapshot s = ks.beginSnapshot(r);
        assertEquals(1001, s.totalKeys());
        int steps = 0;
        while (!s.step(7)) steps++;
        assertTrue(steps > 100, "walked in slices");
        assertEquals(before, r.dbs);
        assertEquals(List.of(0, 1, 2), r.order);
        assertEquals(334L, r.announced.get(0));
    }

    @Test
    void emptyKeyspaceIsDoneAtOnce() {
        Keyspace ks = new Keyspace(2);
        Recorder r = new Recorder();
        KeyspaceSnapshot s = ks.beginSnapshot(r);
        assertTrue(s.isDone());
        assertTrue(s.step(10));
        assertTrue(r.dbs.isEmpty());
    }

    @Test
    void valuesChangedInPlaceAreCopiedBeforeTheChange() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        SetValue set = SetValue.forMember(b("a"));
        set.add(b("a"), 512);
        db.set(b("s"), set);
        HashValue hash = new HashValue();
        hash.set(b("f"), b("1"), 128, 64);
        db.set(b("h"), hash);
        for (int i = 0; i < 100; i++) db.set(b("k" + i), b("v"));
        db.set(b("n"), b("100"));
        Recorder r = new Recorder();
        KeyspaceSnapshot s = ks.beginSnapshot(r);
        assertTrue(db.overwriteInteger(db.writeEntry(b("n")), 101)); // INCR's digits written over the old
        ((SetValue) db.write(b("s"))).add(b("b"), 512);
        ((HashValue) db.write(b("h"))).set(b("f"), b("2"), 128, 64); // the same length: written over in the pack
        db.set(b("k0"), b("w")); // written over the packed "v" where it lies
        s.finish();
        assertEquals("set[a]@-1", r.dbs.get(0).get("s"));
        assertEquals("hash{f=1}@-1", r.dbs.get(0).get("h"));
        // Still after the write, for a sink that serialises what it was handed later.
        ((HashValue) db.write(b("h"))).set(b("f"), b("3"), 128, 64);
        assertEquals("hash{f=1}", describe(r.values.get("0:h")));
        assertEquals("v@-1", r.dbs.get(0).get("k0"));
        assertEquals("100@-1", r.dbs.get(0).get("n"));
        assertTrue(db.overwriteInteger(db.writeEntry(b("n")), 102));
        assertEquals("100", describe(r.values.get("0:n")));
        assertEquals("102", describe(db.lookup(b("n")).value()));
        assertEquals(103, r.dbs.get(0).size());
    }

    @RepeatedTest(20)
    void concurrentWritesNeverLeakIntoThePointInTime() {
        Random rnd = new Random();
        Keyspace ks = new Keyspace(3);
        for (int i = 0; i < 3000; i++) ks.db(rnd.nextInt(3)).set(b("k" + rnd.nextInt(5000)), b("v" + i));
        Map<Integer, Map<String, String>> before = contents(ks);
        Recorder r = new Recorder();
        KeyspaceSnapshot s = ks.beginSnapshot(r);
        int op = 0;
        while (!s.step(1 + rnd.nextInt(20))) {
            for (int k = 0; k < 30; k++, op++) {
                Database db = ks.db(rnd.nextInt(3));
                byte[] key = b("k" + rnd.nextInt(6000));
                switch (rnd.nextInt(12)) {
                    case 0, 1, 2 -> db.set(key, b("new" + op));
                    case 3, 4 -> db.delete(key);
                    case 5 -> db.setExpire(key, System.currentTimeMillis() + 1_000_000);
                    case 6 -> db.persist(key);
                    case 7 -> db.setKeepTtl(key, b("kt" + op));
                    case 8 -> {
                        Entry e = db.lookup(key);
                        if (e != null) ks.db((db.id() + 1) % 3).putFrom(b("copy" + op), e.value(), e, false);
                    }
                    case 9 -> {
                        if (rnd.nextInt(50) == 0) ks.swap(rnd.nextInt(3), rnd.nextInt(3));
                    }
                    case 10 -> {
                        if (rnd.nextInt(200) == 0) db.clear();
                    }
                    default -> db.lookupForWrite(key);
                }
            }
        }
        assertEquals(0, r.duplicates);
        assertEquals(before, r.dbs);
        assertNull(ks.snapshot(), "a complete snapshot is no longer tracked");
    }

    @Test
    void tableShrinkingMidWalkHidesNoEntry() {
        Keyspace ks = new Keyspace(1);
        Database db = ks.db(0);
        for (int i = 0; i < 4096; i++) db.set(b("k" + i), b("v" + i));
        Map<Integer, Map<String, String>> before = contents(ks);
        Recorder r = new Recorder();
        KeyspaceSnapshot s = ks.beginSnapshot(r);
        for (int i = 0; i < 40; i++) s.step(50);
        // Keys left after the deletes are spread over the whole table; the shrink folds the
        // unvisited upper half onto buckets the walk has passed.
        for (int i = 0; i < 4096; i++) if (i % 32 != 0) db.delete(b("k" + i));
        int buckets = db.table().bucketCount();
        db.maybeShrink();
        s.step(50); // part of the walk while the entries move to the smaller array
        db.rehashFor(Long.MAX_VALUE);
        assertTrue(db.table().bucketCount() < buckets, "the table shrank");
        s.finish();
        assertEquals(0, r.duplicates);
        assertEquals(before, r.dbs);
    }

    @Test
    void abortedSnapshotStillSettlesMarksSoTheNextOneIsComplete() {
        Keyspace ks = new Keyspace(1);
        for (int i = 0; i < 500; i++) ks.db(0).set(b("k" + i), b("v"));
        KeyspaceSnapshot first = ks.beginSnapshot(new Recorder());
        first.step(10);
        first.abort();
        Recorder r = new Recorder();
        KeyspaceSnapshot second = ks.beginSnapshot(r);
        second.finish();
        assertEquals(500, r.dbs.get(0).size());
    }
}
