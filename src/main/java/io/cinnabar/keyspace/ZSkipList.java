package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Redis's zskiplist: nodes ordered by (score, member bytes unsigned), each level link carrying a
 * span so rank lookups are O(log n). Level 0 is stored inline in the node; only the quarter of
 * nodes taller than one level carry arrays for the upper levels, which keeps the common node at
 * one small object.
 */
public final class ZSkipList {
    static final int MAX_LEVEL = 32;

    /**
     * One member. Read-only to the outside; the list owns the links. It is also the member's node
     * in the owner's member-to-score {@link BytesMap} (key = member, value = itself), so a member
     * costs one object plus its bytes, like Redis's shared sds between dict and skiplist.
     */
    public static final class Node extends BytesMap.Node<Node> {
        double score;
        Node backward;
        Node next0;
        int span0;
        /** Levels 1.. (index level-1); null for single-level nodes. */
        Node[] nexts;
        int[] spans;

        Node(int level, double score, byte[] member) {
            super(member, member == null ? 0 : ChainedTable.hash(member), null);
            value = this;
            this.score = score;
            if (level > 1) {
                nexts = new Node[level - 1];
                spans = new int[level - 1];
            }
        }

        public byte[] member() {
            return key;
        }

        public double score() {
            return score;
        }

        public Node next() {
            return next0;
        }

        public Node previous() {
            return backward;
        }

        int level() {
            return nexts == null ? 1 : nexts.length + 1;
        }

        Node next(int i) {
            return i == 0 ? next0 : nexts[i - 1];
        }

        void next(int i, Node n) {
            if (i == 0) next0 = n; else nexts[i - 1] = n;
        }

        int span(int i) {
            return i == 0 ? span0 : spans[i - 1];
        }

        void span(int i, int s) {
            if (i == 0) span0 = s; else spans[i - 1] = s;
        }
    }

    private final Node header = new Node(MAX_LEVEL, 0, null);
    private Node tail;
    private int length;
    private int level = 1;
    // Scratch for insert/delete: the keyspace is single-threaded, one list is never used concurrently.
    private final Node[] update = new Node[MAX_LEVEL];
    private final int[] rank = new int[MAX_LEVEL];

    public int length() {
        return length;
    }

    public Node first() {
        return header.next0;
    }

    public Node last() {
        return tail;
    }

    /** Redis's ordering: score, then member bytes as unsigned (memcmp), shorter first on a tie. */
    static int compare(double s1, byte[] m1, double s2, byte[] m2) {
        if (s1 < s2) return -1;
        if (s1 > s2) return 1;
        return Arrays.compareUnsigned(m1, m2);
    }

    private static int randomLevel() {
        int lvl = 1;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (lvl < MAX_LEVEL && (r.nextInt() & 0xFFFF) < 0x4000) lvl++;
        return lvl;
    }

    /** Inserts a member known to be absent; returns its node. */
    public Node insert(double score, byte[] member) {
        Node x = new Node(randomLevel(), score, member);
        link(x);
        return x;
    }

    /** Links x (its score and member set, its own links ignored) at its place in the order. */
    private void link(Node x) {
        double score = x.score;
        byte[] member = x.key;
        Node p = header;
        for (int i = level - 1; i >= 0; i--) {
            rank[i] = i == level - 1 ? 0 : rank[i + 1];
            Node f;
            while ((f = p.next(i)) != null && compare(f.score, f.key, score, member) < 0) {
                rank[i] += p.span(i);
                p = f;
            }
            update[i] = p;
        }
        int lvl = x.level();
        if (lvl > level) {
            for (int i = level; i < lvl; i++) {
                rank[i] = 0;
                update[i] = header;
                header.span(i, length);
            }
            level = lvl;
        }
        for (int i = 0; i < lvl; i++) {
            Node u = update[i];
            x.next(i, u.next(i));
            u.next(i, x);
            x.span(i, u.span(i) - (rank[0] - rank[i]));
            u.span(i, rank[0] - rank[i] + 1);
        }
        for (int i = lvl; i < level; i++) update[i].span(i, update[i].span(i) + 1);
        x.backward = update[0] == header ? null : update[0];
        if (x.next0 != null) x.next0.backward = x; else tail = x;
        length++;
        Arrays.fill(update, 0, level, null);
    }

    /**
     * Changes x's score, keeping the node object (the dict holds it): in place when the order is
     * unchanged, else unlinked and linked again (Redis's zslUpdateScore).
     */
    public void updateScore(Node x, double newScore) {
        Node prev = x.backward, next = x.next0;
        if ((prev == null || prev.score < newScore) && (next == null || next.score > newScore)) {
            x.score = newScore;
            return;
        }
        Node p = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = p.next(i)) != null && compare(f.score, f.key, x.score, x.key) < 0) p = f;
            update[i] = p;
        }
        unlink(x);
        Arrays.fill(update, 0, MAX_LEVEL, null);
        x.score = newScore;
        link(x);
    }

    /** Removes the node with this score and member; false if absent. */
    public boolean delete(double score, byte[] member) {
        Node x = header;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && compare(f.score, f.key, score, member) < 0) x = f;
            update[i] = x;
        }
        x = x.next0;
        boolean found = x != null && x.score == score && Arrays.equals(x.key, member);
        if (found) unlink(x);
        Arrays.fill(update, 0, MAX_LEVEL, null);
        return found;
    }

    /** Unlinks x given update[] filled with its predecessors at every level. */
    private void unlink(Node x) {
        for (int i = 0; i < level; i++) {
            Node u = update[i];
            if (u.next(i) == x) {
                u.span(i, u.span(i) + x.span(i) - 1);
                u.next(i, x.next(i));
            } else {
                u.span(i, u.span(i) - 1);
            }
        }
        if (x.next0 != null) x.next0.backward = x.backward; else tail = x.backward;
        while (level > 1 && header.next(level - 1) == null) level--;
        length--;
    }

    /** 1-based rank of the node with this score and member, 0 if absent. */
    public long rank(double score, byte[] member) {
        Node x = header;
        long r = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && compare(f.score, f.key, score, member) <= 0) {
                r += x.span(i);
                x = f;
            }
            if (x != header && Arrays.equals(x.key, member)) return r;
        }
        return 0;
    }

    /** The node at 1-based rank, or null when out of range. */
    public Node byRank(long rnk) {
        if (rnk < 1 || rnk > length) return null;
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && traversed + x.span(i) <= rnk) {
                traversed += x.span(i);
                x = f;
            }
            if (traversed == rnk) return x;
        }
        return null;
    }

    /** 0-based rank of the first node with a score in range, or -1. */
    public long firstRank(ScoreRange r) {
        if (r.isEmpty() || tail == null || !r.gteMin(tail.score) || !r.lteMax(header.next0.score)) return -1;
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && !r.gteMin(f.score)) {
                traversed += x.span(i);
                x = f;
            }
        }
        x = x.next0;
        return x != null && r.lteMax(x.score) ? traversed : -1;
    }

    /** 0-based rank of the last node with a score in range, or -1. */
    public long lastRank(ScoreRange r) {
        if (r.isEmpty() || tail == null || !r.gteMin(tail.score) || !r.lteMax(header.next0.score)) return -1;
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && r.lteMax(f.score)) {
                traversed += x.span(i);
                x = f;
            }
        }
        return x != header && r.gteMin(x.score) ? traversed - 1 : -1;
    }

    public long firstRank(LexRange r) {
        if (r.isEmpty() || tail == null || !r.gteMin(tail.key) || !r.lteMax(header.next0.key)) return -1;
        long rank = lexDeleteStart(r);
        return rank >= 0 && r.lteMax(byRank(rank + 1).key) ? rank : -1;
    }

    /**
     * 0-based rank of the first node the level walk does not pass as below min, or -1: where
     * Redis's zslDeleteRangeByLex starts (it skips zslFirstInLexRange's range tests).
     */
    public long lexDeleteStart(LexRange r) {
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && !r.gteMin(f.key)) {
                traversed += x.span(i);
                x = f;
            }
        }
        return x.next0 != null ? traversed : -1;
    }

    public long lastRank(LexRange r) {
        if (r.isEmpty() || tail == null || !r.gteMin(tail.key) || !r.lteMax(header.next0.key)) return -1;
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && r.lteMax(f.key)) {
                traversed += x.span(i);
                x = f;
            }
        }
        return x != header && r.gteMin(x.key) ? traversed - 1 : -1;
    }

    /**
     * Removes the nodes at 1-based ranks start..end inclusive, calling removed for each (so the
     * owner can drop them from its dict). Returns how many were removed.
     */
    public long deleteRangeByRank(long start, long end, java.util.function.Consumer<Node> removed) {
        Node x = header;
        long traversed = 0;
        for (int i = level - 1; i >= 0; i--) {
            Node f;
            while ((f = x.next(i)) != null && traversed + x.span(i) < start) {
                traversed += x.span(i);
                x = f;
            }
            update[i] = x;
        }
        traversed++;
        x = x.next0;
        long n = 0;
        while (x != null && traversed <= end) {
            Node next = x.next0;
            unlink(x);
            removed.accept(x);
            n++;
            traversed++;
            x = next;
        }
        Arrays.fill(update, 0, MAX_LEVEL, null);
        return n;
    }

    /** Checks spans, ordering and back links; for tests. Returns an error text or null. */
    String verify() {
        long count = 0;
        Node prev = null;
        for (Node x = header.next0; x != null; x = x.next0) {
            if (x.backward != prev) return "bad backward at " + count;
            if (prev != null && compare(prev.score, prev.key, x.score, x.key) >= 0) return "bad order at " + count;
            prev = x;
            count++;
        }
        if (count != length) return "length " + length + " but " + count + " nodes";
        if (tail != prev) return "bad tail";
        for (int i = 0; i < level; i++) {
            // The span of each link equals the number of level-0 steps it skips.
            Node x = header;
            while (x != null) {
                Node f = x.next(i);
                int steps = 0;
                Node y = x;
                if (f == null) break;
                while (y != f) {
                    y = y.next0;
                    steps++;
                }
                if (steps != x.span(i)) return "bad span at level " + i;
                x = f;
            }
        }
        return null;
    }
}
