package io.cinnabar.command;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplicationBacklogTest {
    private static final int BLOCK = 16 * 1024;

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed + i * 31);
        return b;
    }

    private static void append(ReplicationBacklog backlog, byte[] part) {
        backlog.append(part, 0, part.length);
    }

    /** What the backlog holds from offset on, in one array. */
    private static byte[] read(ReplicationBacklog backlog, long offset) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        backlog.from(offset, out::write);
        return out.toByteArray();
    }

    @Test
    void keepsWholeBlocksUntilTheRestHoldsItsSize() {
        ReplicationBacklog backlog = new ReplicationBacklog(20_000, 100);
        byte[] stream = bytes(5 * BLOCK, 7);
        for (int i = 0; i < stream.length; i += 1000) backlog.append(stream, i, Math.min(1000, stream.length - i));
        // 5 blocks written: the first three go, as the two left hold more than 20,000 bytes.
        assertEquals(2L * BLOCK, backlog.histlen());
        assertEquals(2L * BLOCK, backlog.allocated());
        assertEquals(100 + 3L * BLOCK + 1, backlog.firstByteOffset());
        assertFalse(backlog.holdsFrom(100 + 3L * BLOCK));
        assertTrue(backlog.holdsFrom(100 + stream.length + 1), "the next byte to come");
        assertArrayEquals(Arrays.copyOfRange(stream, 4 * BLOCK - 10, stream.length), read(backlog, 100 + 4L * BLOCK - 9));
    }

    @Test
    void aBigWriteIsCutIntoBlocksOfASixteenthOfTheSize() {
        ReplicationBacklog backlog = new ReplicationBacklog(1 << 20, 0);
        byte[] big = bytes(300_000, 3);
        append(backlog, big);
        assertEquals(300_000, backlog.histlen());
        // Four blocks of 64 KB, then one of what is left.
        assertEquals(300_000, backlog.allocated());
        append(backlog, bytes(10, 4));
        assertEquals(300_000 + BLOCK, backlog.allocated(), "the last block was full");
        assertArrayEquals(big, Arrays.copyOf(read(backlog, 1), big.length));
    }

    @Test
    void whatAReplicaIsOwedStaysPastTheSizeUntilItIsSent() {
        ReplicationBacklog backlog = new ReplicationBacklog(BLOCK, 0);
        append(backlog, bytes(BLOCK, 1));
        backlog.keepFrom(BLOCK + 1);
        byte[] owed = bytes(10 * BLOCK, 2);
        append(backlog, owed);
        assertEquals(10L * BLOCK, backlog.histlen(), "the first block went; the owed ones stay");
        assertArrayEquals(owed, read(backlog, BLOCK + 1));
        backlog.keepFrom(Long.MAX_VALUE);
        assertEquals(2L * BLOCK, backlog.histlen());
    }

    @Test
    void aSmallerSizeDropsTheOldestBlocksAtOnce() {
        ReplicationBacklog backlog = new ReplicationBacklog(1 << 20, 0);
        append(backlog, bytes(10 * BLOCK, 5));
        backlog.resize(BLOCK);
        assertEquals(2L * BLOCK, backlog.histlen());
        assertEquals(8L * BLOCK + 1, backlog.firstByteOffset());
    }
}
