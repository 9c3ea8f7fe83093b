package io.cinnabar.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Counts checked against redis-server 7.0.15's output-buffer limits (bisected per case). */
class ReplyListCountTest {
    private static byte[] bulks(int count, int size) {
        String one = "$" + size + "\r\n" + "x".repeat(size) + "\r\n";
        return one.repeat(count).getBytes(StandardCharsets.US_ASCII);
    }

    private static long countOf(byte[] replies) {
        ReplyListCount count = new ReplyListCount();
        count.writePieces(i -> replies[i], 0, replies.length);
        return count.counted();
    }

    @Test
    void pipelinedBulksCountAsRedisFillsItsBufferAndNodes() {
        assertEquals(20_504, countOf(bulks(1, 3000)));
        assertEquals(40_984, countOf(bulks(1, 40_000)));
        assertEquals(90_184, countOf(bulks(3, 30_000)));
        assertEquals(41_008, countOf(bulks(5, 5000)));
        assertEquals(82_016, countOf(bulks(4, 20_000)));
        assertEquals(155_720, countOf(bulks(3, 50_000)));
        assertEquals(0, countOf("+OK\r\n".repeat(200).getBytes(StandardCharsets.US_ASCII)), "within the 1 KB buffer");
    }

    @Test
    void whatTheSocketTookLeavesFromTheFront() {
        byte[] replies = bulks(3, 30_000);
        ReplyListCount count = new ReplyListCount();
        count.writePieces(i -> replies[i], 0, replies.length);
        long all = replies.length;
        count.sentDownTo(all - 1024); // the buffer went
        assertEquals(90_184, count.counted());
        count.sentDownTo(all - 1024 - 32_752 - 10); // the first node (filled to its 32,752 bytes) and a bit of the second
        assertEquals(28_656 * 2 + 80, count.counted());
        count.sentDownTo(0);
        assertEquals(0, count.counted());
        count.write(5000); // an empty list again: the buffer first
        assertEquals(20_504, count.counted());
    }
}
