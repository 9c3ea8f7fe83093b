package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The quicklist-like storage against a plain ArrayList model, under every node sizing. */
class ListValueTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> contents(ListValue l) {
        List<String> out = new ArrayList<>();
        ListValue.Cursor c = l.cursorAtEnd(true);
        if (c == null) return out;
        do {
            out.add(new String(c.buffer(), c.offset(), c.length(), StandardCharsets.UTF_8));
        } while (c.next());
        return out;
    }

    private static List<String> reversed(ListValue l) {
        List<String> out = new ArrayList<>();
        ListValue.Cursor c = l.cursorAtEnd(false);
        if (c == null) return out;
        do {
            out.add(0, new String(c.buffer(), c.offset(), c.length(), StandardCharsets.UTF_8));
        } while (c.prev());
        return out;
    }

    @Test
    void pushPopBothEnds() {
        ListValue l = new ListValue(-2);
        l.push(b("b"), true);
        l.push(b("a"), true);
        l.push(b("c"), false);
        assertEquals(List.of("a", "b", "c"), contents(l));
        assertArrayEquals(b("a"), l.pop(true));
        assertArrayEquals(b("c"), l.pop(false));
        assertArrayEquals(b("b"), l.pop(false));
        assertNull(l.pop(true));
        assertTrue(l.isEmpty());
        assertEquals(0, l.nodeCount());
    }

    @Test
    void nodesFollowEntryCountFill() {
        ListValue l = new ListValue(3);
        for (int i = 0; i < 10; i++) l.push(b("x" + i), false);
        assertEquals(4, l.nodeCount());
        ListValue one = new ListValue(1);
        for (int i = 0; i < 5; i++) one.push(b("y"), true);
        assertEquals(5, one.nodeCount());
    }

    @Test
    void nodesFollowByteLimitFill() {
        ListValue l = new ListValue(-1); // 4 KB nodes
        byte[] big = new byte[1000];
        for (int i = 0; i < 8; i++) l.push(big, false);
        assertEquals(2, l.nodeCount(), "four 1000-byte elements fit in a 4 KB node");
        ListValue huge = new ListValue(-1);
        huge.push(new byte[100_000], false);
        huge.push(new byte[100_000], true);
        huge.push(b("small"), false);
        assertEquals(3, huge.nodeCount(), "an element larger than a node gets a node of its own");
        assertEquals(100_000, huge.cursor(0).length());
        assertEquals("small", contents(huge).get(2));
    }

    @Test
    void largeLengthsRoundTrip() {
        ListValue l = new ListValue(-2);
        int[] sizes = {0, 1, 127, 128, 16383, 16384, 2_097_152};
        for (int s : sizes) l.push(new byte[s], false);
        for (int s : sizes) l.push(new byte[s], true);
        for (int i = sizes.length - 1; i >= 0; i--) assertEquals(sizes[i], l.pop(true).length);
        for (int i = sizes.length - 1; i >= 0; i--) assertEquals(sizes[i], l.pop(false).length);
    }

    @Test
    void copyIsIndependent() {
        ListValue l = new ListValue(-2);
        l.push(b("a"), false);
        l.push(b("b"), false);
        ListValue c = l.copy();
        l.set(0, b("z"));
        l.pop(false);
        assertEquals(List.of("a", "b"), contents(c));
        assertEquals(List.of("z"), contents(l));
        assertEquals("quicklist", c.encoding());
        assertEquals(ValueType.LIST, c.type());
    }

    @Test
    void randomOperationsMatchModel() {
        for (long fill : new long[] {-5, -2, -1, 0, 1, 2, 5, 128}) {
            Random rnd = new Random(fill * 31 + 7);
            ListValue l = new ListValue(fill);
            List<String> model = new ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                int op = rnd.nextInt(10);
                String v = rnd.nextInt(20) == 0 ? "v".repeat(rnd.nextInt(3000)) : "e" + rnd.nextInt(50);
                switch (op) {
                    case 0, 1 -> {
                        l.push(b(v), true);
                        model.add(0, v);
                    }
                    case 2, 3 -> {
                        l.push(b(v), false);
                        model.add(v);
                    }
                    case 4 -> {
                        boolean head = rnd.nextBoolean();
                        byte[] p = l.pop(head);
                        if (model.isEmpty()) {
                            assertNull(p);
                        } else {
                            String expected = head ? model.remove(0) : model.remove(model.size() - 1);
                            assertEquals(expected, new String(p, StandardCharsets.UTF_8));
                        }
                    }
                    case 5 -> {
                        if (model.isEmpty()) break;
                        int i = rnd.nextInt(model.size());
                        ListValue.Cursor c = l.cursor(i);
                        boolean after = rnd.nextBoolean();
                        l.insert(c, b(v), after);
                        model.add(after ? i + 1 : i, v);
                    }
                    case 6 -> {
                        if (model.isEmpty()) break;
                        int i = rnd.nextInt(model.size());
                        l.set(i, b(v));
                        model.set(i, v);
                    }
                    case 7 -> {
                        // LREM-like scan in a random direction removing one value.
                        String target = "e" + rnd.nextInt(50);
                        boolean forward = rnd.nextBoolean();
                        ListValue.Cursor c = l.cursorAtEnd(forward);
                        boolean more = c != null;
                        while (more) {
                            if (c.matches(b(target))) more = l.remove(c, forward);
                            else more = forward ? c.next() : c.prev();
                        }
                        model.removeIf(target::equals);
                    }
                    case 8 -> {
                        int n = rnd.nextInt(4);
                        if (rnd.nextBoolean()) {
                            l.trimHead(n);
                            model.subList(0, Math.min(n, model.size())).clear();
                        } else {
                            l.trimTail(n);
                            model.subList(Math.max(0, model.size() - n), model.size()).clear();
                        }
                    }
                    default -> {
                        if (model.isEmpty()) break;
                        int i = rnd.nextInt(model.size());
                        ListValue.Cursor c = l.cursor(i);
                        assertEquals(model.get(i), new String(c.toArray(), StandardCharsets.UTF_8));
                        assertEquals(i, c.index());
                    }
                }
                assertEquals(model.size(), l.size());
                if (step % 500 == 0) {
                    assertEquals(model, contents(l), "fill " + fill + " step " + step);
                    assertEquals(model, reversed(l), "fill " + fill + " step " + step);
                }
            }
            assertEquals(model, contents(l));
            assertFalse(l.nodeCount() > l.size(), "no empty nodes");
        }
    }

    @Test
    void popsMatchModelExactly() {
        Random rnd = new Random(42);
        ListValue l = new ListValue(4);
        List<String> model = new ArrayList<>();
        for (int step = 0; step < 50_000; step++) {
            boolean head = rnd.nextBoolean();
            if (rnd.nextInt(3) > 0) {
                String v = Integer.toString(step);
                l.push(b(v), head);
                if (head) model.add(0, v); else model.add(v);
            } else {
                byte[] p = l.pop(head);
                if (model.isEmpty()) {
                    assertNull(p);
                } else {
                    String expected = head ? model.remove(0) : model.remove(model.size() - 1);
                    assertEquals(expected, new String(p, StandardCharsets.UTF_8));
                }
            }
        }
        assertEquals(model, contents(l));
    }

    /** Not an assertion on the JVM's allocator: prints bytes per element for the report. */
    @Test
    void memoryPerSmallElement() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long before = rt.totalMemory() - rt.freeMemory();
        ListValue l = new ListValue(-2);
        int n = 1_000_000;
        for (int i = 0; i < n; i++) l.push(b("member:" + i), false);
        System.gc();
        long after = rt.totalMemory() - rt.freeMemory();
        System.out.printf("ListValue: %d elements of ~12 bytes, %d nodes, ~%.1f bytes/element%n",
                n, l.nodeCount(), (after - before) / (double) n);
        assertEquals(n, l.size());
    }
}
