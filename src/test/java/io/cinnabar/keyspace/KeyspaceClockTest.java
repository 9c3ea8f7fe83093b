package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyspaceClockTest {
    /** A command's time taken from its start's System.nanoTime() is the wall clock's at that instant. */
    @Test
    void commandTimeFromTheStartReadingFollowsTheSystemClock() {
        Keyspace keyspace = new Keyspace(1);
        long previous = 0;
        // Long enough to cross several of the 10 ms between wall-clock reads.
        long until = System.nanoTime() + 50_000_000L;
        for (int i = 0; System.nanoTime() < until || i < 100_000; i++) {
            long before = System.currentTimeMillis();
            keyspace.beginCommand(System.nanoTime());
            long after = System.currentTimeMillis();
            long now = keyspace.now();
            keyspace.endCommand();
            // The offset may lag the wall clock by the few ns between its two reads, never lead it.
            assertTrue(now >= before - 1 && now <= after, before + " <= " + now + " <= " + after);
            assertTrue(now >= previous, "time went back: " + previous + " then " + now);
            previous = now;
        }
    }

    @Test
    void aClockSetByHandIsReadAsItIs() {
        Keyspace keyspace = new Keyspace(1);
        keyspace.clock(() -> 1_000L);
        keyspace.beginCommand(System.nanoTime());
        assertEquals(1_000L, keyspace.now());
        keyspace.endCommand();
    }
}
