package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatabaseResizeTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Fills db with 4096 keys ("k0"...), lets earlier resizes end, then adds keys until the next starts; returns how many. */
    private static int fillUntilResizing(Database db) {
        int n = 0;
        while (n < 4096) db.set(b("k" + n), b("v" + n++));
        db.rehashFor(Long.MAX_VALUE);
        while (!db.resizing()) db.set(b("k" + n), b("v" + n++));
        return n;
    }

    @Test
    void growingMovesBucketsAFewAtATime() {
        Database db = new Keyspace(1).db(0);
        int n = fillUntilResizing(db);
        assertEquals(4097, n, "the table of 4096 buckets starts growing at its 4097th key");
        for (int i = 0; i < 100; i++) assertArrayEquals(b("v" + i), (byte[]) db.read(b("k" + i)), "k" + i);
        assertTrue(db.resizing(), "lookups move a bucket each, not the whole table");
        for (int i = 0; i < n; i++) assertArrayEquals(b("v" + i), (byte[]) db.read(b("k" + i)), "k" + i);
        db.rehashFor(Long.MAX_VALUE);
        assertFalse(db.resizing());
        assertEquals(8192, db.table().bucketCount());
        for (int i = 0; i < n; i++) assertArrayEquals(b("v" + i), (byte[]) db.read(b("k" + i)), "k" + i);
    }

    @Test
    void writesAndDeletesDuringAResizeLandWhereLookupsFindThem() {
        Database db = new Keyspace(1).db(0);
        int n = fillUntilResizing(db);
        for (int i = 0; i < n; i += 2) assertTrue(db.delete(b("k" + i)));
        for (int i = n; i < n + 1000; i++) db.set(b("k" + i), b("w" + i));
        db.rehashFor(Long.MAX_VALUE);
        for (int i = 0; i < n + 1000; i++) {
            Object v = db.read(b("k" + i));
            if (i < n && i % 2 == 0) assertEquals(null, v, "k" + i);
            else assertArrayEquals(b((i < n ? "v" : "w") + i), (byte[]) v, "k" + i);
        }
        assertEquals(n / 2 + 1000, db.size());
    }

    @Test
    void scanAcrossAResizeReturnsEveryKeyPresentThroughout() {
        Database db = new Keyspace(1).db(0);
        int n = fillUntilResizing(db);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int steps = 0;
        do {
            cursor = db.scanStep(cursor, e -> seen.add(new String(e.key(), StandardCharsets.UTF_8)));
            // Keys added mid-scan move the resize on through their lookups and may start the next.
            if (++steps % 50 == 0) for (int i = 0; i < 200; i++) db.set(b("new" + steps + ":" + i), b("x"));
        } while (cursor != 0);
        for (int i = 0; i < n; i++) assertTrue(seen.contains("k" + i), "k" + i);
    }

    @Test
    void shrinkingIsIncrementalTooAndRandomKeyAndForEachSeeBothArrays() {
        Database db = new Keyspace(1).db(0);
        for (int i = 0; i < 8192; i++) db.set(b("k" + i), b("v"));
        db.rehashFor(Long.MAX_VALUE);
        for (int i = 0; i < 8192; i++) if (i % 64 != 0) db.delete(b("k" + i));
        db.rehashFor(Long.MAX_VALUE);
        db.maybeShrink();
        assertTrue(db.resizing());
        Set<String> all = new HashSet<>();
        db.forEach(e -> all.add(new String(e.key(), StandardCharsets.UTF_8)));
        assertEquals(128, all.size());
        for (int i = 0; i < 100; i++) assertNotNull(db.randomKey());
        db.rehashFor(Long.MAX_VALUE);
        assertEquals(256, db.table().bucketCount());
    }
}
