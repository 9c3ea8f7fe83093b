package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stream's node encoding (Redis's listpack layout, byte for byte) and its edits. */
class StreamValueTest {
    private static byte[][] fv(String... s) {
        byte[][] out = new byte[s.length][];
        for (int i = 0; i < s.length; i++) out[i] = s[i].getBytes(StandardCharsets.UTF_8);
        return out;
    }

    private static StreamId add(StreamValue s, String id, long maxEntries, String... fieldsAndValues) {
        return s.append(fv(fieldsAndValues), 0, fieldsAndValues.length / 2, StreamId.parse(id.getBytes(), 0, true, null), true,
                0, 4096, maxEntries);
    }

    private static List<byte[]> nodes(StreamValue s) {
        List<byte[]> out = new ArrayList<>();
        s.forEachNode((master, lp) -> out.add(lp));
        return out;
    }

    @Test
    void nodeBytesAreRedisListpackBytes() {
        StreamValue s = new StreamValue();
        add(s, "1-1", 100, "a", "1", "b", "hello");
        add(s, "1-2", 100, "a", "2", "b", "x");
        add(s, "2-0", 100, "c", "3");
        assertTrue(s.delete(new StreamId(1, 2)));
        // The node of the same stream in a DUMP from Redis 7.0.15: master entry, same-fields entries, a tombstone.
        assertArrayEquals(HexFormat.of().parseHex("430000001900020101010201816102816202000102010001000101018568656c6c6f06"
                + "05010301000101010201817802050100010101dfff02010181630203010601ff"), nodes(s).get(0));
        assertEquals(2, s.length);
        assertFalse(s.delete(new StreamId(1, 2)), "already a tombstone");
    }

    @Test
    void nodesSplitAtMaxEntriesCountingTombstones() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 5; i++) add(s, i + "-0", 3, "f", String.valueOf(i));
        assertEquals(2, s.nodeCount());
        s.delete(new StreamId(4, 0));
        add(s, "6-0", 3, "f", "6");
        assertEquals(2, s.nodeCount(), "4-0 still takes its place in the second node");
        add(s, "7-0", 3, "f", "7");
        assertEquals(3, s.nodeCount());
    }

    @Test
    void rangesSkipTombstonesBothWays() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 10; i++) add(s, i + "-0", 4, "f", String.valueOf(i), "g", i % 2 == 0 ? "even" : "odd");
        s.delete(new StreamId(5, 0));
        List<String> ids = new ArrayList<>();
        s.range(new StreamId(3, 0), new StreamId(8, 0), true, false, item -> ids.add(item.id().toString()));
        assertEquals(List.of("8-0", "7-0", "6-0", "4-0", "3-0"), ids);
        StreamValue.Item item = s.get(new StreamId(6, 0));
        assertEquals("even", new String(item.fieldsAndValues()[3], StandardCharsets.UTF_8));
        assertNull(s.get(new StreamId(5, 0)));
        assertEquals(new StreamId(10, 0), s.lastValidId());
        assertEquals(new StreamId(1, 0), s.edgeId(true, true));
    }

    @Test
    void deletingALastEntryDropsItsNodeAndTrimmingIsExactOrByNode() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 9; i++) add(s, i + "-0", 3, "f", String.valueOf(i));
        s.delete(new StreamId(7, 0));
        s.delete(new StreamId(8, 0));
        s.delete(new StreamId(9, 0));
        assertEquals(2, s.nodeCount());
        assertEquals(3, s.trim(new StreamValue.Trim(true, 2, null, true, 0)), "~ drops whole nodes only");
        assertEquals(0, s.trim(new StreamValue.Trim(true, 2, null, true, 0)), "the next node would leave fewer than 2");
        assertEquals(3, s.length);
        assertEquals(1, s.trim(new StreamValue.Trim(true, 2, null, false, 0)), "= marks one entry deleted in place");
        assertEquals(new StreamId(5, 0), s.firstId);
        assertEquals(1, s.trim(new StreamValue.Trim(false, 0, new StreamId(6, 0), false, 0)));
        assertEquals(1, s.length);
    }

    @Test
    void differentFieldsAreStoredInFullAndIntegersReadBackAsText() {
        StreamValue s = new StreamValue();
        add(s, "1-0", 100, "a", "1");
        add(s, "1-1", 100, "other", "-123456789012", "x", "y");
        StreamValue.Item item = s.get(new StreamId(1, 1));
        assertEquals(List.of("other", "-123456789012", "x", "y"),
                java.util.Arrays.stream(item.fieldsAndValues()).map(b -> new String(b, StandardCharsets.UTF_8)).toList());
        StreamValue copy = s.copy();
        add(s, "2-0", 100, "a", "2");
        assertEquals(2, copy.length, "a copy shares nothing");
    }

    /** What memoryUsage keeps as the stream changes equals what summing its nodes gives. */
    @Test
    void memoryUsageFollowsEveryEdit() {
        StreamValue s = new StreamValue();
        java.util.Random random = new java.util.Random(5);
        long ms = 1;
        for (int step = 0; step < 3000; step++) {
            int op = random.nextInt(10);
            if (op < 6) {
                String value = "v".repeat(random.nextInt(300));
                add(s, (ms++) + "-0", 20, random.nextBoolean() ? "f" : "g" + step, value);
            } else if (op < 8) {
                s.delete(new StreamId(1 + random.nextInt((int) ms), 0));
            } else if (op == 8) {
                s.trim(new StreamValue.Trim(true, random.nextInt(200), null, random.nextBoolean(), 0));
            } else {
                s = s.copy();
            }
            long nodes = 0;
            for (StreamListpack lp : s.nodes.values()) nodes += 64 + lp.buf.length;
            assertEquals(96 + nodes, s.memoryUsage(), "after step " + step);
        }
        StreamValue loaded = new StreamValue();
        s.forEachNode(loaded::addLoadedNode);
        long nodes = 0;
        for (StreamListpack lp : loaded.nodes.values()) nodes += 64 + lp.buf.length;
        assertEquals(96 + nodes, loaded.memoryUsage());
    }

    /** Reverse iteration walks entries back by their backlens: it must meet every entry forward iteration meets. */
    @Test
    void reverseRangeIsForwardReversed() {
        StreamValue s = new StreamValue();
        java.util.Random random = new java.util.Random(9);
        for (int i = 1; i <= 400; i++) {
            // Values up to 20,000 bytes: backlens of one, two and three bytes.
            int len = random.nextInt(5) == 0 ? random.nextInt(20_000) : random.nextInt(200);
            String field = random.nextInt(3) == 0 ? "other" + (i % 3) : "f";
            s.append(fv(field, "v".repeat(len), "g", String.valueOf(i * 1000L)), 0, 2, new StreamId(i, 0), true, 0,
                    64 * 1024, 30);
            if (random.nextInt(4) == 0) s.delete(new StreamId(1 + random.nextInt(i), 0));
        }
        for (boolean tombstones : new boolean[] {false, true}) {
            List<String> forward = new ArrayList<>(), backward = new ArrayList<>();
            s.range(StreamId.MIN, StreamId.MAX, false, tombstones, item -> forward.add(describe(item)));
            s.range(StreamId.MIN, StreamId.MAX, true, tombstones, item -> backward.add(describe(item)));
            java.util.Collections.reverse(backward);
            assertEquals(forward, backward);
            List<String> window = new ArrayList<>();
            s.range(new StreamId(120, 0), new StreamId(250, 0), true, tombstones, item -> window.add(describe(item)));
            java.util.Collections.reverse(window);
            assertEquals(forward.stream().filter(d -> {
                long ms = Long.parseLong(d.substring(0, d.indexOf('-')));
                return ms >= 120 && ms <= 250;
            }).toList(), window);
        }
        assertEquals(s.lastValidId(), lastOf(s));
    }

    /** XRANGE and XREAD reply from the nodes (count, then send): the same entries range reads, element for element. */
    @Test
    void sentEntriesAreTheEntriesRangeReads() {
        StreamValue s = new StreamValue();
        java.util.Random random = new java.util.Random(12);
        String[] values = {"0", "-1", "12", "4095", "-4096", "70000", "-9223372036854775808", "9223372036854775807",
                "007", "1.5", "", "text", "v".repeat(300)};
        for (int i = 1; i <= 600; i++) {
            int pairs = 1 + random.nextInt(3);
            String[] fieldsAndValues = new String[2 * pairs];
            for (int p = 0; p < pairs; p++) {
                fieldsAndValues[2 * p] = random.nextInt(4) == 0 ? values[random.nextInt(values.length)] : "f" + p;
                fieldsAndValues[2 * p + 1] = values[random.nextInt(values.length)];
            }
            // Past 2^63 milliseconds at the end: IDs whose text is unsigned.
            long ms = i <= 590 ? i : Long.MIN_VALUE + i;
            s.append(fv(fieldsAndValues), 0, pairs, new StreamId(ms, random.nextInt(3) == 0 ? -2 : 0), true, 0, 4096, 25);
            if (random.nextInt(5) == 0) s.delete(new StreamId(1 + random.nextInt(i), 0));
        }
        for (int round = 0; round < 2_000; round++) {
            StreamId start = randomBound(random), end = randomBound(random);
            boolean reverse = random.nextBoolean();
            long limit = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(40);
            List<String> expected = new ArrayList<>();
            s.range(start, end, reverse, false, item -> {
                StringBuilder b = new StringBuilder(item.id().toString()).append(' ').append(item.fieldsAndValues().length / 2);
                for (byte[] x : item.fieldsAndValues()) b.append(" <").append(new String(x, StandardCharsets.ISO_8859_1)).append('>');
                expected.add(b.toString());
                return limit == 0 || expected.size() < limit;
            });
            List<String> sent = new ArrayList<>();
            byte[] id = new byte[StreamId.MAX_TEXT_LENGTH];
            s.send(start, end, limit, reverse, new StreamValue.EntrySink() {
                @Override
                public void entry(long ms, long seq, int pairs) {
                    sent.add(new String(id, 0, StreamId.write(ms, seq, id), StandardCharsets.ISO_8859_1) + " " + pairs);
                }

                @Override
                public void element(byte[] b, int off, int len) {
                    append(" <" + new String(b, off, len, StandardCharsets.ISO_8859_1) + ">");
                }

                @Override
                public void element(long integer) {
                    append(" <" + integer + ">");
                }

                private void append(String text) {
                    sent.set(sent.size() - 1, sent.get(sent.size() - 1) + text);
                }
            });
            assertEquals(expected, sent, start + ".." + end + " reverse " + reverse + " limit " + limit);
            assertEquals(expected.size(), s.count(start, end, limit, reverse));
        }
    }

    private static StreamId randomBound(java.util.Random random) {
        return switch (random.nextInt(6)) {
            case 0 -> StreamId.MIN;
            case 1 -> StreamId.MAX;
            case 2 -> new StreamId(Long.MIN_VALUE + 590 + random.nextInt(12), random.nextInt(3) - 2);
            default -> new StreamId(random.nextInt(620), random.nextInt(3) == 0 ? -2 : random.nextInt(2));
        };
    }

    private static String describe(StreamValue.Item item) {
        StringBuilder b = new StringBuilder(item.id().toString());
        for (byte[] x : item.fieldsAndValues()) b.append(' ').append(x.length).append(':').append(new String(x, 0, Math.min(8, x.length), StandardCharsets.UTF_8));
        return b.toString();
    }

    private static StreamId lastOf(StreamValue s) {
        StreamId[] last = {StreamId.MIN};
        s.range(StreamId.MIN, StreamId.MAX, false, false, item -> {
            last[0] = item.id();
            return true;
        });
        return last[0];
    }
}
