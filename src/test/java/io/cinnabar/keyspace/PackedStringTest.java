package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Short strings kept in one array with their keys: what readers see, and what it saves. */
class PackedStringTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private final Keyspace keyspace = new Keyspace(16);
    private final Database db = keyspace.db(0);

    @Test
    void aShortStringWeighsOneArrayWithItsKey() {
        byte[] key = b("key:000000123456"), value = b("x".repeat(32));
        db.set(key, value);
        Entry e = db.lookup(key);
        assertArrayEquals(key, e.key());
        assertArrayEquals(value, (byte[]) e.value());
        // Entry 32 + one array of 16 + 48 bytes; apart, the key's array and the value's would be 32 + 48.
        assertEquals(96, e.memory());
        assertEquals(db.bytes() - db.tableBytes(), e.memory());
        byte[] lies = e.stringArray();
        assertEquals(48, lies.length);
        assertEquals(16, e.stringStart());
        assertEquals("embstr", e.stringEncoding());
    }

    @Test
    void aKeyIsNeverMistakenForAnotherKeyFollowedByItsString() {
        ChainedTable<Entry> table = new ChainedTable<>();
        // The same hash for both, as a collision would give them.
        table.insert(new Entry(b("ab"), 7, b("cd"), 0));
        assertNull(table.find(b("abcd"), 7));
        assertArrayEquals(b("cd"), (byte[]) table.find(b("ab"), 7).value());
        assertNull(table.find(b("a"), 7));
    }

    @Test
    void aStringOfTheSameLengthIsWrittenOverTheOldOneWhereItLies() {
        byte[] key = b("key:000000000042");
        db.set(key, b("x".repeat(61)));
        byte[] lies = db.lookup(key).stringArray();
        long weight = db.bytes();
        byte[] overwritten = b("y".repeat(61));
        db.set(key, overwritten);
        assertSame(lies, db.lookup(key).stringArray());
        assertArrayEquals(b("y".repeat(61)), db.getString(key));
        assertArrayEquals(key, db.lookup(key).key());
        assertEquals(weight, db.bytes());
        overwritten[0] = 'z';
        assertArrayEquals(b("y".repeat(61)), db.getString(key), "the stored string is a copy");
        db.set(key, b("y".repeat(60)));
        assertArrayEquals(b("y".repeat(60)), db.getString(key));
        assertEquals(db.lookup(key).memory(), db.bytes() - db.tableBytes());
    }

    @Test
    void storesMoveBetweenPackedAndApartAndTheKeyStaysTheSame() {
        byte[] key = b("k");
        db.set(key, b("short"));
        byte[] longer = b("v".repeat(65));
        db.set(key, longer);
        Entry e = db.lookup(key);
        assertSame(longer, e.value(), "a long string is stored as it came");
        assertArrayEquals(key, e.key());
        db.set(key, b("short again"));
        assertArrayEquals(b("short again"), db.getString(key));
        assertArrayEquals(key, db.lookup(key).key());
        db.growable(key).append(b("!"));
        keyspace.commandSucceeded();
        assertArrayEquals(b("short again!"), db.getString(key));
        assertTrue(db.setExpire(key, Long.MAX_VALUE / 2));
        assertArrayEquals(b("short again!"), db.getString(key));
        db.set(key, b("s"));
        assertTrue(db.setExpire(key, Long.MAX_VALUE / 2));
        assertTrue(db.persist(key));
        assertArrayEquals(b("s"), db.getString(key));
        assertArrayEquals(key, db.randomKey());
        assertEquals(db.lookup(key).memory(), db.bytes() - db.tableBytes());
        assertArrayEquals(b("s"), (byte[]) db.deleteValue(key));
        assertNull(db.lookup(key));
        assertEquals(db.tableBytes(), db.bytes());
    }

    @Test
    void stringsStoredDuringExecKeepTheirArgumentArrays() {
        byte[] value = b("queued");
        keyspace.keepArguments(true);
        db.set(b("k"), value);
        keyspace.keepArguments(false);
        assertSame(value, db.lookup(b("k")).value());
    }
}
