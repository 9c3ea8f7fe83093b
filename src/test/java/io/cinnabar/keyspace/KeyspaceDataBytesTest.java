package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyspaceDataBytesTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What dataBytes must say: every database's bytes, used or not. */
    private static long sumOfAll(Keyspace ks) {
        long n = 0;
        for (int i = 0; i < ks.databaseCount(); i++) n += ks.db(i).bytes();
        return n;
    }

    @Test
    void dataBytesCountsEveryDatabaseThroughWritesSwapsAndFlushes() {
        Keyspace ks = new Keyspace(16);
        long empty = ks.dataBytes();
        assertEquals(sumOfAll(ks), empty);

        for (int i = 0; i < 5000; i++) ks.db(3).set(b("k" + i), b("value" + i));
        ks.db(9).set(b("one"), b("1"));
        assertTrue(ks.dataBytes() > empty + 5000 * 10);
        assertEquals(sumOfAll(ks), ks.dataBytes());

        ks.swap(3, 12);
        assertEquals(sumOfAll(ks), ks.dataBytes(), "after SWAPDB 3 12");
        ks.swap(0, 1);
        assertEquals(sumOfAll(ks), ks.dataBytes(), "after swapping two databases never used");

        for (int i = 0; i < 5000; i += 2) ks.db(12).delete(b("k" + i));
        assertEquals(sumOfAll(ks), ks.dataBytes(), "after deletes");

        ks.db(12).clear();
        assertEquals(sumOfAll(ks), ks.dataBytes(), "after FLUSHDB");
        ks.flushAll();
        assertEquals(empty, ks.dataBytes(), "after FLUSHALL, as before any write");
    }
}
