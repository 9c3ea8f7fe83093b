package io.cinnabar.keyspace;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A sorted set. Small ones are "listpack" encoded: a {@link ScorePack}, one byte[] of (member,
 * score) entries in the set's order, walked from the start as Redis walks its listpack (~11 bytes
 * a member plus its length, where a byte[] per member and parallel arrays took ~40). Past
 * zset-max-listpack-entries / -value they turn, one way, into "skiplist": a
 * {@link ZSkipList} for order and rank plus a {@link BytesMap} from member to its skiplist node
 * for O(1) score lookups, the node holding the score.
 */
public final class ZSetValue implements TypedValue {
    // zsetAdd's input flags.
    public static final int IN_INCR = 1, IN_NX = 1 << 1, IN_XX = 1 << 2, IN_GT = 1 << 3, IN_LT = 1 << 4;
    // zsetAdd's outcome flags.
    public static final int OUT_ADDED = 1, OUT_UPDATED = 1 << 1, OUT_NOP = 1 << 2, OUT_NAN = 1 << 3;

    /** Header and fields of a ZSetValue; of a ZSkipList and its dict; of one member's node, levels and dict slot. */
    private static final int OBJECT_BYTES = 40, SKIPLIST_BYTES = 96, SKIPLIST_MEMBER_BYTES = 96;
    private static final byte[] EMPTY = new byte[0];

    // listpack encoding (dict == null): size entries in pack
    private byte[] pack = EMPTY;
    private int size;
    // skiplist encoding
    private ZSkipList zsl;
    private BytesMap<ZSkipList.Node> dict;
    /** Heap bytes of the skiplist encoding's member arrays, kept as they change ({@link #memoryUsage}). */
    private long memberBytes;

    /** An empty listpack-encoded set. */
    public ZSetValue() {
    }

    private ZSetValue(int capacity) {
        zsl = new ZSkipList();
        dict = new BytesMap<>(capacity);
    }

    /**
     * Builds a set from n distinct members, encoded as Redis encodes the result of ZUNIONSTORE and
     * ZRANGESTORE: listpack when it fits the limits, skiplist otherwise.
     */
    public static ZSetValue build(byte[][] ms, double[] ss, int n, long maxEntries, long maxValue) {
        int maxLen = 0;
        for (int i = 0; i < n; i++) maxLen = Math.max(maxLen, ms[i].length);
        if (n <= maxEntries && maxLen <= maxValue) {
            Integer[] order = order(ms, ss, n);
            int bytes = 0;
            for (int i = 0; i < n; i++) bytes += ScorePack.entrySize(ms[i]);
            ZSetValue z = new ZSetValue();
            z.pack = new byte[bytes];
            for (int i = 0, off = 0; i < n; i++) off = ScorePack.put(z.pack, off, listpackScore(ss[order[i]]), ms[order[i]]);
            z.size = n;
            return z;
        }
        ZSetValue z = new ZSetValue(n);
        for (int i = 0; i < n; i++) {
            z.dict.putNode(z.zsl.insert(ss[i], ms[i]));
            z.memberBytes += Entry.arrayBytes(ms[i].length);
        }
        return z;
    }

    /** The indexes of n members with their scores in a sorted set's order: by score (-0 equal to 0), then bytes. */
    public static Integer[] order(byte[][] ms, double[] ss, int n) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> ZSkipList.compare(ss[a], ms[a], ss[b], ms[b]));
        return order;
    }

    @Override
    public ValueType type() {
        return ValueType.ZSET;
    }

    @Override
    public String encoding() {
        return dict == null ? "listpack" : "skiplist";
    }

    public boolean isListpack() {
        return dict == null;
    }

    /** DEBUG HTSTATS-KEY's text of the skiplist encoding's member dict; null for a listpack. */
    public String tableStats() {
        return dict == null ? null : dict.tableStats();
    }

    @Override
    public ZSetValue copy() {
        if (dict == null) {
            ZSetValue z = new ZSetValue();
            z.pack = pack; // never modified in place
            z.size = size;
            return z;
        }
        ZSetValue z = new ZSetValue(dict.size());
        // From the greatest down, as Redis's zsetDup: each insert is then the smallest yet and
        // stops at the header on every level. From the smallest up, each one walked the list's
        // levels to its end: COPY of 10k members ran at 0.91x Redis's rate.
        for (ZSkipList.Node n = zsl.last(); n != null; n = n.backward) {
            z.dict.putNode(z.zsl.insert(n.score, n.key()));
        }
        z.memberBytes = memberBytes;
        return z;
    }

    public int size() {
        return dict == null ? size : zsl.length();
    }

    /** The member's score, or NaN when absent (a stored score is never NaN). */
    public double score(byte[] member) {
        if (dict == null) {
            int off = offsetOf(member);
            return off < 0 ? Double.NaN : ScorePack.score(pack, off);
        }
        ZSkipList.Node n = dict.get(member);
        return n == null ? Double.NaN : n.score;
    }

    /**
     * Redis's zsetAdd: adds or updates member per the IN_* flags, converting to skiplist past the
     * limits. out[0] gets the resulting score. Returns OUT_* flags; OUT_NAN when INCR made NaN.
     */
    public int add(double score, byte[] member, int flags, double[] out, long maxEntries, long maxValue) {
        boolean incr = (flags & IN_INCR) != 0, nx = (flags & IN_NX) != 0, xx = (flags & IN_XX) != 0;
        boolean gt = (flags & IN_GT) != 0, lt = (flags & IN_LT) != 0;
        if (dict == null) {
            int off = offsetOf(member);
            if (off >= 0) {
                if (nx) return OUT_NOP;
                double cur = ScorePack.score(pack, off);
                if (incr) {
                    score += cur;
                    if (Double.isNaN(score)) return OUT_NAN;
                }
                if ((lt && score >= cur) || (gt && score <= cur)) return OUT_NOP;
                if (out != null) out[0] = score;
                if (score != cur) {
                    removeAt(off);
                    insertSorted(score, member);
                    return OUT_UPDATED;
                }
                return 0;
            }
            if (xx) return OUT_NOP;
            if (size + 1 > maxEntries || member.length > maxValue) {
                convertToSkiplist();
            } else {
                insertSorted(score, member);
                if (out != null) out[0] = score;
                return OUT_ADDED;
            }
        }
        ZSkipList.Node node = dict.get(member);
        if (node != null) {
            if (nx) return OUT_NOP;
            double cur = node.score;
            if (incr) {
                score += cur;
                if (Double.isNaN(score)) return OUT_NAN;
            }
            if ((lt && score >= cur) || (gt && score <= cur)) return OUT_NOP;
            if (out != null) out[0] = score;
            if (score != cur) {
                zsl.updateScore(node, score);
                return OUT_UPDATED;
            }
            return 0;
        }
        if (xx) return OUT_NOP;
        dict.putNode(zsl.insert(score, member));
        memberBytes += Entry.arrayBytes(member.length);
        if (out != null) out[0] = score;
        return OUT_ADDED;
    }

    /** Removes member; false if absent. */
    public boolean remove(byte[] member) {
        if (dict == null) {
            int off = offsetOf(member);
            if (off < 0) return false;
            removeAt(off);
            return true;
        }
        BytesMap.Node<ZSkipList.Node> n = dict.remove(member);
        if (n == null) return false;
        zsl.delete(n.value().score, member);
        memberBytes -= Entry.arrayBytes(member.length);
        return true;
    }

    /** 0-based rank of member (from the highest score when reverse), or -1 if absent. */
    public long rank(byte[] member, boolean reverse) {
        long r;
        if (dict == null) {
            int off = offsetOf(member);
            if (off < 0) return -1;
            r = ScorePack.indexAt(pack, off);
        } else {
            ZSkipList.Node n = dict.get(member);
            if (n == null) return -1;
            r = zsl.rank(n.score, member) - 1;
        }
        return reverse ? size() - 1 - r : r;
    }

    // ---- ranges: every range maps to a span of 0-based ranks ----

    public long firstRank(ScoreRange r) {
        if (dict != null) return zsl.firstRank(r);
        if (r.isEmpty()) return -1;
        for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(pack, off)) {
            double score = ScorePack.score(pack, off);
            if (r.gteMin(score)) return r.lteMax(score) ? i : -1;
        }
        return -1;
    }

    public long lastRank(ScoreRange r) {
        if (dict != null) return zsl.lastRank(r);
        if (r.isEmpty()) return -1;
        int last = -1; // the last index whose score is not above max
        for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(pack, off)) {
            double score = ScorePack.score(pack, off);
            if (!r.lteMax(score)) break;
            if (r.gteMin(score)) last = i;
        }
        return last;
    }

    /*
     * Lex ranges assume that all scores are equal. On a set where they differ clients still see
     * Redis's answer, so these follow its walks step by step (zzl*InLexRange and zsl*InLexRange):
     * first the quick "is any of it in range" test on the first and last member, then the search
     * for a first (or last) member, then a run that stops at the first member past the other end.
     */

    /** Rank of Redis's first member in range (a scan from the front for the listpack), or -1. */
    public long firstRank(LexRange r) {
        if (dict != null) return zsl.firstRank(r);
        if (!mayHaveLexRange(r)) return -1;
        for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(pack, off)) {
            byte[] m = ScorePack.member(pack, off);
            if (r.gteMin(m)) return r.lteMax(m) ? i : -1;
        }
        return -1;
    }

    /** Rank of Redis's last member in range (a scan from the back for the listpack), or -1. */
    public long lastRank(LexRange r) {
        if (dict != null) return zsl.lastRank(r);
        if (!mayHaveLexRange(r)) return -1;
        int[] offsets = ScorePack.offsets(pack, size);
        for (int i = size - 1; i >= 0; i--) {
            byte[] m = ScorePack.member(pack, offsets[i]);
            if (r.lteMax(m)) return r.gteMin(m) ? i : -1;
        }
        return -1;
    }

    /** Redis's zzlIsInLexRange: the range is not empty, the last member is above min and the first below max. */
    private boolean mayHaveLexRange(LexRange r) {
        return !r.isEmpty() && size > 0 && r.gteMin(ScorePack.member(pack, ScorePack.offsetOf(pack, size - 1)))
                && r.lteMax(ScorePack.member(pack, 0));
    }

    /**
     * How many members from rank from on (backwards when reverse), at most max (negative: no
     * limit), lie before the first one past max (below min when reverse): Redis's ZRANGEBYLEX loop.
     */
    public long lexRun(long from, LexRange r, boolean reverse, long max) {
        if (from < 0 || from >= size()) return 0;
        long n = 0;
        for (Cursor cur = at(from); cur.valid() && (max < 0 || n < max); n++) {
            if (reverse ? !r.gteMin(cur.member()) : !r.lteMax(cur.member())) break;
            if (reverse) cur.previous(); else cur.next();
        }
        return n;
    }

    /** ZLEXCOUNT as Redis counts: the run from the first member (listpack), or the difference of two ranks (skiplist). */
    public long lexCount(LexRange r) {
        long first = firstRank(r);
        if (first < 0) return 0;
        if (dict == null) return lexRun(first, r, false, -1);
        long last = lastRank(r);
        return last < 0 ? size() - first : last - first + 1;
    }

    /** Where ZREMRANGEBYLEX starts deleting: the skiplist's search skips the in-range test. -1 for nowhere. */
    public long lexDeleteStart(LexRange r) {
        return dict == null ? firstRank(r) : zsl.lexDeleteStart(r);
    }

    /** Removes the members at 0-based ranks start..end inclusive (already clamped); returns how many. */
    public long removeRange(long start, long end) {
        if (start > end) return 0;
        if (dict == null) {
            int from = ScorePack.offsetOf(pack, (int) start), to = from;
            for (long i = start; i <= end; i++) to = ScorePack.next(pack, to);
            pack = ScorePack.cut(pack, from, to);
            int removed = (int) (end - start + 1);
            size -= removed;
            return removed;
        }
        return zsl.deleteRangeByRank(start + 1, end + 1, n -> {
            dict.remove(n.key());
            memberBytes -= Entry.arrayBytes(n.key().length);
        });
    }

    /** A cursor at 0-based rank (which must be within 0..size-1). */
    public Cursor at(long rank) {
        Cursor c = new Cursor();
        c.index = (int) rank;
        if (dict != null) c.node = rank == 0 ? zsl.first() : rank == size() - 1 ? zsl.last() : zsl.byRank(rank + 1);
        return c;
    }

    /** Walks the set in rank order in either direction. */
    public final class Cursor {
        private int index;
        private ZSkipList.Node node;
        /** The listpack's entry offsets, taken from the pack they were read from (a write replaces it). */
        private byte[] offsetsOf;
        private int[] offsets;

        public boolean valid() {
            return dict == null ? index >= 0 && index < size : node != null;
        }

        /** The member; a listpack's is a copy of its bytes. */
        public byte[] member() {
            return dict == null ? ScorePack.member(pack, offset()) : node.key();
        }

        public double score() {
            return dict == null ? ScorePack.score(pack, offset()) : node.score;
        }

        private int offset() {
            if (offsetsOf != pack) {
                offsets = ScorePack.offsets(pack, size);
                offsetsOf = pack;
            }
            return offsets[index];
        }

        public void next() {
            index++;
            if (node != null) node = node.next0;
        }

        public void previous() {
            index--;
            if (node != null) node = node.backward;
        }

        /**
         * Moves to a 0-based rank within 0..size-1: O(1) in a listpack once its offsets are read,
         * O(log n) in a skiplist. Random picks go by rank: exactly uniform, where bucket-then-chain
         * sampling of the dict would favour members in short chains.
         */
        public void moveTo(long rank) {
            index = (int) rank;
            if (dict != null) node = zsl.byRank(rank + 1);
        }

        /**
         * To a member picked uniformly at random: a skiplist's from its dict, as Redis's
         * ZRANDMEMBER picks (dictGetFairRandomKey), without the walk down to a random rank. Its
         * rank is then unknown: moveTo, not next or previous, moves it on.
         */
        public void moveToRandom(ThreadLocalRandom rnd) {
            if (dict == null) {
                index = rnd.nextInt(size);
            } else {
                node = (ZSkipList.Node) dict.randomNode();
                index = -1;
            }
        }
    }

    /** Visits every member with its score in rank order; the visitor must not modify the set. */
    public void forEach(MemberScoreVisitor v) {
        if (dict == null) {
            byte[] p = pack;
            for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(p, off)) {
                v.visit(ScorePack.member(p, off), ScorePack.score(p, off));
            }
        } else {
            for (ZSkipList.Node n = zsl.first(); n != null; n = n.next0) v.visit(n.key(), n.score);
        }
    }

    @FunctionalInterface
    public interface MemberScoreVisitor {
        void visit(byte[] member, double score);
    }

    /** One ZSCAN step over the skiplist encoding's dict; listpack sets are scanned whole by the caller. */
    public long scanStep(long cursor, MemberScoreVisitor v) {
        return dict.scan(cursor, (m, n) -> v.visit(m, n.score));
    }

    // ---- listpack internals ----

    private int offsetOf(byte[] member) {
        for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(pack, off)) {
            if (ScorePack.memberEquals(pack, off, member)) return off;
        }
        return -1;
    }

    private void removeAt(int off) {
        pack = ScorePack.cut(pack, off, ScorePack.next(pack, off));
        size--;
    }

    private void insertSorted(double score, byte[] member) {
        int off = 0;
        for (int i = 0; i < size && ScorePack.compare(pack, off, score, member) < 0; i++) off = ScorePack.next(pack, off);
        pack = ScorePack.insert(pack, off, listpackScore(score), member);
        size++;
    }

    /**
     * Redis's listpack keeps scores as text and reads "-0" back as 0, so a small sorted set
     * never reports -0 (a skiplist one does). Adding +0.0 turns -0.0 into 0.0 and nothing else.
     */
    private static double listpackScore(double score) {
        return score + 0.0;
    }

    /** Turns a listpack into a skiplist for good, as SORT does to any sorted set it reads (zsetConvert). */
    public void useSkiplist() {
        if (dict == null) convertToSkiplist();
    }

    private void convertToSkiplist() {
        ZSkipList list = new ZSkipList();
        BytesMap<ZSkipList.Node> map = new BytesMap<>(size);
        for (int i = 0, off = 0; i < size; i++, off = ScorePack.next(pack, off)) {
            byte[] member = ScorePack.member(pack, off);
            map.putNode(list.insert(ScorePack.score(pack, off), member));
            memberBytes += Entry.arrayBytes(member.length);
        }
        zsl = list;
        dict = map;
        pack = null;
        size = 0;
    }

    /**
     * Heap bytes, O(1): this object and its pack, or ~96 bytes a member for the skiplist node, its
     * levels and the dict slot plus the member arrays.
     */
    @Override
    public long memoryUsage() {
        if (dict == null) return OBJECT_BYTES + Entry.arrayBytes(pack.length);
        return OBJECT_BYTES + SKIPLIST_BYTES + SKIPLIST_MEMBER_BYTES * (long) dict.size() + memberBytes;
    }
}
