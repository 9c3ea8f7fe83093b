package io.cinnabar.persistence;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteFeedTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(WriteFeed.Round round) {
        return new String(round.bytes(), 0, round.length(), StandardCharsets.ISO_8859_1);
    }

    private static WriteFeed feedWithOneSet() {
        WriteFeed feed = new WriteFeed();
        feed.enabled(true);
        feed.append(0, new byte[][] {b("SET"), b("k"), b("v")});
        return feed;
    }

    @Test
    void aWriterTakesThePendingBytesWhereTheyLie() {
        WriteFeed feed = feedWithOneSet();
        List<String> written = new ArrayList<>();
        assertTrue(feed.drainInPlace((bytes, off, len, end) -> written.add(new String(bytes, off, len, StandardCharsets.ISO_8859_1))));
        assertEquals(List.of("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"), written);
        assertFalse(feed.hasPending());
    }

    @Test
    void aWriterThatDeclinesLeavesThemForTheHandOver() {
        WriteFeed feed = feedWithOneSet();
        assertFalse(feed.drainInPlace((bytes, off, len, end) -> false));
        assertEquals("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
                text(feed.takePending()));
    }

    @Test
    void writesAppendedWhileTheBytesAreLentStayForTheNextTake() {
        WriteFeed feed = feedWithOneSet();
        assertTrue(feed.drainInPlace((bytes, off, len, end) -> {
            feed.append(0, new byte[][] {b("DEL"), b("k")});
            return true;
        }));
        assertEquals("*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n", text(feed.takePending()));
    }

    @Test
    void aRecycledArrayLetsTheNextTakeHandOverTheFeedsOwnArray() {
        WriteFeed feed = feedWithOneSet();
        WriteFeed.Round copied = feed.takePending();
        byte[] spare = new byte[64 * 1024];
        feed.recycle(spare);
        feed.recycle(new byte[10]); // too small to hold a round's bytes: not kept
        feed.append(0, new byte[][] {b("DEL"), b("k")});
        WriteFeed.Round own = feed.takePending();
        assertEquals("*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n", text(own));
        assertTrue(own.bytes().length >= 16 * 1024, "the feed's own array, not a copy of the round");
        // The feed goes on in the spare; with none left, the next round is copied out of it.
        feed.append(0, new byte[][] {b("DEL"), b("j")});
        WriteFeed.Round next = feed.takePending();
        assertEquals("*2\r\n$3\r\nDEL\r\n$1\r\nj\r\n", text(next));
        assertEquals(next.length(), next.bytes().length);
        assertEquals(copied.length(), copied.bytes().length);
        feed.append(0, new byte[][] {b("DEL"), b("i")});
        feed.recycle(own.bytes());
        assertTrue(feed.takePending().bytes() == spare, "the spare became the feed's array");
    }

    @Test
    void aTapSeesEveryByteOnceFromWhenItIsSetAndKeepsTheFeedOnWithoutTheAof() {
        WriteFeed feed = feedWithOneSet();
        StringBuilder tapped = new StringBuilder();
        List<Long> ends = new ArrayList<>();
        feed.tap((bytes, off, len, end) -> {
            tapped.append(new String(bytes, off, len, StandardCharsets.ISO_8859_1));
            ends.add(end);
        });
        feed.append(0, new byte[][] {b("DEL"), b("k")});
        assertEquals("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
                + "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n", text(feed.takePending()),
                "the AOF's round; a new tap starts the feed with a SELECT");
        assertEquals("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n", tapped.toString(), "only what came after the tap");
        assertEquals(List.of(feed.offset()), ends);
        feed.enabled(false);
        assertTrue(feed.enabled(), "the tap still consumes it");
        feed.append(3, new byte[][] {b("DEL"), b("j")});
        feed.flushTap();
        feed.flushTap();
        feed.dropPending();
        assertFalse(feed.hasPending());
        assertTrue(tapped.toString().endsWith("*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$3\r\nDEL\r\n$1\r\nj\r\n"), tapped.toString());
        assertEquals(2, ends.size(), "each byte once");
        feed.tap(null);
        assertFalse(feed.enabled());
    }
}
