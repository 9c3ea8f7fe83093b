package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZSkipListTest {
    private record E(double score, byte[] member) implements Comparable<E> {
        @Override
        public int compareTo(E o) {
            return ZSkipList.compare(score, member, o.score, o.member);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void randomInsertsAndDeletesKeepRankAndRangeInvariants() {
        Random rnd = new Random(42);
        ZSkipList zsl = new ZSkipList();
        TreeSet<E> model = new TreeSet<>();
        for (int step = 0; step < 20000; step++) {
            // Few distinct scores so ties ordered by member bytes are exercised.
            double score = rnd.nextInt(50);
            byte[] member = b("m" + rnd.nextInt(3000));
            E e = new E(score, member);
            E existing = model.stream().filter(x -> Arrays.equals(x.member, member)).findFirst().orElse(null);
            if (existing != null) {
                assertTrue(zsl.delete(existing.score, existing.member));
                model.remove(existing);
            } else {
                zsl.insert(score, member);
                model.add(e);
            }
            if (step % 1000 == 0) check(zsl, model, rnd);
        }
        check(zsl, model, rnd);
        assertFalse(zsl.delete(1e9, b("absent")));
    }

    private static void check(ZSkipList zsl, TreeSet<E> model, Random rnd) {
        assertNull(zsl.verify());
        assertEquals(model.size(), zsl.length());
        List<E> list = new ArrayList<>(model);
        for (int i = 0; i < list.size(); i++) {
            E e = list.get(i);
            assertEquals(i + 1, zsl.rank(e.score, e.member));
            ZSkipList.Node n = zsl.byRank(i + 1);
            assertArrayEquals(e.member, n.member());
        }
        assertNull(zsl.byRank(0));
        assertNull(zsl.byRank(list.size() + 1));
        for (int k = 0; k < 50; k++) {
            double lo = rnd.nextInt(55) - 2, hi = rnd.nextInt(55) - 2;
            boolean loEx = rnd.nextBoolean(), hiEx = rnd.nextBoolean();
            ScoreRange r = new ScoreRange(lo, loEx, hi, hiEx);
            int first = -1, last = -1;
            for (int i = 0; i < list.size(); i++) {
                double s = list.get(i).score;
                if (r.gteMin(s) && r.lteMax(s)) {
                    if (first < 0) first = i;
                    last = i;
                }
            }
            assertEquals(first, zsl.firstRank(r), "first in " + lo + " " + hi);
            assertEquals(last, zsl.lastRank(r), "last in " + lo + " " + hi);
        }
    }

    @Test
    void updateScoreKeepsTheNode() {
        Random rnd = new Random(7);
        ZSkipList zsl = new ZSkipList();
        List<ZSkipList.Node> nodes = new ArrayList<>();
        TreeSet<E> model = new TreeSet<>();
        for (int i = 0; i < 500; i++) {
            nodes.add(zsl.insert(i, b("m" + i)));
            model.add(new E(i, b("m" + i)));
        }
        for (int k = 0; k < 5000; k++) {
            ZSkipList.Node n = nodes.get(rnd.nextInt(nodes.size()));
            double s = rnd.nextInt(100);
            model.remove(new E(n.score(), n.member()));
            zsl.updateScore(n, s);
            model.add(new E(s, n.member()));
            assertEquals(s, n.score());
        }
        check(zsl, model, rnd);
    }

    @Test
    void deleteRangeByRankKeepsSpans() {
        ZSkipList zsl = new ZSkipList();
        for (int i = 0; i < 1000; i++) zsl.insert(i, b("m" + i));
        List<byte[]> removed = new ArrayList<>();
        assertEquals(100, zsl.deleteRangeByRank(101, 200, n -> removed.add(n.member())));
        assertEquals(100, removed.size());
        assertArrayEquals(b("m100"), removed.get(0));
        assertNull(zsl.verify());
        assertEquals(900, zsl.length());
        assertArrayEquals(b("m200"), zsl.byRank(101).member());
        assertEquals(101, zsl.rank(200, b("m200")));
    }

    @Test
    void lexRangesOverEqualScores() {
        ZSkipList zsl = new ZSkipList();
        for (String s : new String[] {"a", "b", "c", "d", "e"}) zsl.insert(0, b(s));
        assertEquals(1, zsl.firstRank(new LexRange(b("b"), false, LexRange.MAX, true)));
        assertEquals(2, zsl.firstRank(new LexRange(b("b"), true, LexRange.MAX, true)));
        assertEquals(3, zsl.lastRank(new LexRange(LexRange.MIN, true, b("e"), true)));
        assertEquals(-1, zsl.firstRank(new LexRange(b("f"), false, LexRange.MAX, true)));
        assertEquals(-1, zsl.firstRank(new LexRange(b("c"), true, b("c"), false)));
    }

    @Test
    void membersCompareAsUnsignedBytes() {
        ZSkipList zsl = new ZSkipList();
        zsl.insert(1, new byte[] {(byte) 0xff});
        zsl.insert(1, new byte[] {0x01});
        zsl.insert(1, new byte[] {0x01, 0x00});
        assertArrayEquals(new byte[] {0x01}, zsl.byRank(1).member());
        assertArrayEquals(new byte[] {0x01, 0x00}, zsl.byRank(2).member());
        assertArrayEquals(new byte[] {(byte) 0xff}, zsl.byRank(3).member());
    }
}
