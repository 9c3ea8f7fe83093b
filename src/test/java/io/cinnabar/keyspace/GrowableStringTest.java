package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Strings edited in place grow like Redis's sds: appends copy the string O(log n) times, readers see plain arrays. */
class GrowableStringTest {
    private final Keyspace keyspace = new Keyspace(1);
    private final Database db = keyspace.db(0);
    private final byte[] key = "k".getBytes(StandardCharsets.US_ASCII);

    /** What APPEND does, one command at a time. */
    private void append(byte[] tail) {
        db.growable(key).append(tail);
        keyspace.commandSucceeded();
    }

    @Test
    void hundredThousandAppendsCopyLinearly() {
        byte[] tail = "0123456789".getBytes(StandardCharsets.US_ASCII);
        db.set(key, tail);
        for (int i = 1; i < 100_000; i++) append(tail);
        GrowableString s = db.growable(key);
        assertEquals(1_000_000, s.length());
        // Each append copying the string would be ~5e10 bytes; doubling copies under 2x the final length.
        assertTrue(s.copiedBytes() < 2_000_000, "bytes copied: " + s.copiedBytes());
        assertTrue(s.capacity() >= s.length() && s.capacity() <= 2L * s.length() + 1024 * 1024, "capacity " + s.capacity());
        assertEquals(100_000, keyspace.dirty(), "the SET and one change per append");
        byte[] value = (byte[]) db.lookup(key).value();
        assertEquals(1_000_000, value.length);
        assertArrayEquals(tail, Arrays.copyOfRange(value, 999_990, 1_000_000));
        assertEquals("raw", db.lookup(key).stringEncoding());
    }

    @Test
    void readersGetAPlainArrayAndEditsNeverTouchIt() {
        byte[] stored = "abc".getBytes(StandardCharsets.US_ASCII);
        db.set(key, stored);
        GrowableString s = db.growable(key);
        assertArrayEquals(stored, Arrays.copyOf(s.array(), s.length()));
        s.writable(3)[0] = 'X';
        keyspace.commandSucceeded();
        assertArrayEquals("abc".getBytes(StandardCharsets.US_ASCII), stored, "the stored (maybe shared) array was copied first");
        byte[] read = db.getString(key);
        assertArrayEquals("Xbc".getBytes(StandardCharsets.US_ASCII), read);
        db.growable(key).append("d".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals("Xbc".getBytes(StandardCharsets.US_ASCII), read, "an array handed to a reader is never edited");
        assertArrayEquals("Xbcd".getBytes(StandardCharsets.US_ASCII), db.getString(key));
        assertEquals(ValueType.STRING, ValueType.of(db.lookup(key).value()));
    }

    /**
     * BITOP's result (setRaw) keeps its buffer for the next whole overwrite of the same length, until
     * a reader or a snapshot is handed the array: then the next overwrite takes a new one.
     */
    @Test
    void aWholeOverwriteReusesTheLastResultsBufferUntilItIsHandedOut() {
        byte[] first = new byte[100];
        Arrays.fill(first, (byte) 1);
        db.setRaw(key, first);
        assertSame(first, db.overwritable(key, 100));
        assertNull(db.overwritable(key, 99), "not as long");
        byte[] second = db.overwritable(key, 100);
        second[0] = 2;
        db.setRaw(key, second);
        keyspace.commandSucceeded();
        assertEquals(2, db.getString(key)[0]);
        assertNull(db.overwritable(key, 100), "GET's array is the value's now");

        db.setRaw(key, new byte[100]);
        KeyspaceSnapshotTest.Recorder snapshot = new KeyspaceSnapshotTest.Recorder();
        KeyspaceSnapshot s = keyspace.beginSnapshot(snapshot);
        assertNull(db.overwritable(key, 100), "handed to the snapshot first");
        db.setRaw(key, new byte[] {3});
        s.finish();
        assertArrayEquals(new byte[100], (byte[]) snapshot.values.get("0:k"));

        byte[] small = new byte[] {4};
        db.setRaw(key, small);
        assertNull(db.overwritable(key, 1), "a string short enough to pack with its key is a plain one");
        assertEquals("raw", db.lookup(key).stringEncoding());
    }

    @Test
    void wrappingAStringNotPackedWithItsKeyCopiesNothing() {
        byte[] stored = "a".repeat(100).getBytes(StandardCharsets.US_ASCII);
        db.set(key, stored);
        assertSame(stored, db.growable(key).array());
    }

    @Test
    void growthZeroPadsAndTracksMemory() {
        db.set(key, new byte[] {1});
        GrowableString s = db.growable(key);
        byte[] p = s.writable(10);
        assertEquals(10, s.length());
        assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, Arrays.copyOf(p, 10));
        assertEquals(Entry.arrayBytes(s.length()), db.lookup(key).valueMemory());
    }

    /** GETBIT, STRLEN, BITCOUNT... read a grown string where it is, so SETBIT after them does not copy it. */
    @Test
    void inPlaceReadsKeepTheRoomToGrow() {
        db.set(key, new byte[] {0});
        GrowableString s = db.growable(key);
        keyspace.commandSucceeded();
        for (int i = 0; i < 20_000; i++) {
            db.growable(key).writable(i + 1)[i] = 1;
            keyspace.commandSucceeded();
            assertSame(s, db.getStringInPlace(key));
        }
        assertEquals(20_000, s.length());
        assertTrue(s.copiedBytes() < 2 * 20_000, "bytes copied: " + s.copiedBytes());
    }
}
