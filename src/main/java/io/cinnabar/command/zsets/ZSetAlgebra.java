package io.cinnabar.command.zsets;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.keyspace.BytesMap;
import io.cinnabar.keyspace.MemberSet;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;

import java.util.Arrays;
import java.util.Comparator;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD (Redis's zunionInterDiffGenericCommand).
 * Inputs may be sorted sets or plain sets (every member scoring 1); missing keys are empty.
 */
final class ZSetAlgebra {
    static final int UNION = 0, INTER = 1, DIFF = 2;
    private static final int SUM = 0, MIN = 1, MAX = 2;

    private ZSetAlgebra() {}

    /** One input: a sorted set, a plain set, or nothing (missing key). */
    private static final class Source {
        ZSetValue zset;
        MemberSet set;
        double weight = 1;

        Object value() {
            return zset != null ? zset : set;
        }

        int size() {
            return zset != null ? zset.size() : set != null ? set.size() : 0;
        }

        /** The member's unweighted score, NaN when absent. */
        double score(byte[] m) {
            if (zset != null) return zset.score(m);
            return set != null && set.contains(m) ? 1 : Double.NaN;
        }

        void forEach(ZSetValue.MemberScoreVisitor v) {
            if (zset != null) zset.forEach(v); else if (set != null) set.forEachMember(m -> v.visit(m, 1));
        }
    }

    /** The result being built: parallel arrays of distinct members and scores. */
    private static final class Result {
        byte[][] members = new byte[16][];
        double[] scores = new double[16];
        int n;

        void add(byte[] m, double s) {
            if (n == members.length) {
                members = Arrays.copyOf(members, n * 2);
                scores = Arrays.copyOf(scores, n * 2);
            }
            members[n] = m;
            scores[n++] = s;
        }
    }

    /**
     * ZUNION/ZINTER/ZDIFF numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES];
     * Z*STORE destination numkeys key ...; ZINTERCARD numkeys key [key ...] [LIMIT limit]
     */
    static void run(Call c, boolean store, int op, boolean cardinalityOnly) {
        int numkeysIndex = store ? 2 : 1;
        long setnum = c.longArg(numkeysIndex);
        if (setnum < 1) {
            throw new CommandError("ERR at least 1 input key is needed for '" + c.spec().fullName() + "' command");
        }
        if (setnum > c.argCount() - (numkeysIndex + 1)) throw CommandError.syntax();
        int n = (int) setnum;
        Source[] src = new Source[n];
        int j = numkeysIndex + 1;
        for (int i = 0; i < n; i++, j++) {
            src[i] = new Source();
            Object v = c.db().read(c.arg(j));
            if (v instanceof ZSetValue z) src[i].zset = z;
            else if (v instanceof MemberSet s) src[i].set = s;
            else if (v != null) throw WrongTypeException.INSTANCE;
        }
        int aggregate = SUM;
        boolean withScores = false;
        long limit = 0;
        while (j < c.argCount()) {
            int remaining = c.argCount() - j;
            if (op != DIFF && !cardinalityOnly && remaining >= n + 1 && c.argIs(j, "WEIGHTS")) {
                j++;
                for (int i = 0; i < n; i++, j++) {
                    double w = io.cinnabar.util.Numbers.parseDouble(c.arg(j));
                    if (Double.isNaN(w)) throw new CommandError("ERR weight value is not a float");
                    src[i].weight = w;
                }
            } else if (op != DIFF && !cardinalityOnly && remaining >= 2 && c.argIs(j, "AGGREGATE")) {
                j++;
                if (c.argIs(j, "SUM")) aggregate = SUM;
                else if (c.argIs(j, "MIN")) aggregate = MIN;
                else if (c.argIs(j, "MAX")) aggregate = MAX;
                else throw CommandError.syntax();
                j++;
            } else if (!store && !cardinalityOnly && c.argIs(j, "WITHSCORES")) {
                j++;
                withScores = true;
            } else if (cardinalityOnly && remaining >= 2 && c.argIs(j, "LIMIT")) {
                limit = c.longArg(j + 1, "ERR LIMIT can't be negative");
                if (limit < 0) throw new CommandError("ERR LIMIT can't be negative");
                j += 2;
            } else {
                throw CommandError.syntax();
            }
        }
        if (op != DIFF) Arrays.sort(src, Comparator.comparingInt(Source::size));

        Result out = new Result();
        long cardinality = 0;
        if (op == INTER) {
            if (src[0].size() > 0) {
                cardinality = inter(src, aggregate, cardinalityOnly, limit, out);
            }
        } else if (op == UNION) {
            union(src, aggregate, out);
        } else {
            diff(src, out);
        }

        Reply r = c.reply();
        if (store) {
            byte[] dst = c.arg(1);
            if (out.n > 0) {
                c.db().set(dst, ZSetValue.build(out.members, out.scores, out.n,
                        ZSetCommands.maxEntries(c), ZSetCommands.maxValue(c)));
                r.integer(out.n);
                c.notify(KeyspaceEvents.ZSET, op == UNION ? "zunionstore" : op == INTER ? "zinterstore" : "zdiffstore", dst);
            } else {
                r.integer(0);
                if (c.db().delete(dst)) c.notify(KeyspaceEvents.GENERIC, "del", dst);
            }
        } else if (cardinalityOnly) {
            r.integer(cardinality);
        } else {
            // Redis replies from the skiplist it built, scores as computed: a weight of -1 gives -0,
            // which a listpack would read back as 0.
            boolean nested = withScores && r.protocol() == 3;
            r.array(withScores && !nested ? out.n * 2 : out.n);
            for (int i : ZSetValue.order(out.members, out.scores, out.n)) {
                if (withScores) ZSetCommands.pair(r, out.members[i], out.scores[i], nested); else r.bulk(out.members[i]);
            }
        }
    }

    private static double aggregate(double target, double v, int how) {
        switch (how) {
            case SUM: {
                double s = target + v;
                return Double.isNaN(s) ? 0 : s; // inf + -inf
            }
            case MIN: return v < target ? v : target;
            default: return v > target ? v : target;
        }
    }

    private static double weighted(double score, double weight) {
        double s = score * weight;
        return Double.isNaN(s) ? 0 : s; // inf * 0
    }

    private static long inter(Source[] src, int aggregate, boolean cardinalityOnly, long limit, Result out) {
        long[] card = new long[1];
        boolean[] stop = new boolean[1];
        Source first = src[0];
        first.forEach((m, s) -> {
            if (stop[0]) return;
            double score = weighted(s, first.weight);
            for (int k = 1; k < src.length; k++) {
                double v;
                if (src[k].value() == first.value()) {
                    v = s * src[k].weight;
                } else {
                    v = src[k].score(m);
                    if (Double.isNaN(v)) return;
                    v *= src[k].weight;
                }
                score = aggregate(score, v, aggregate);
            }
            if (cardinalityOnly) {
                card[0]++;
                if (limit > 0 && card[0] >= limit) stop[0] = true;
            } else {
                out.add(m, score);
            }
        });
        return card[0];
    }

    private static void union(Source[] src, int aggregate, Result out) {
        BytesMap<int[]> index = new BytesMap<>(src[src.length - 1].size());
        for (Source source : src) {
            if (source.size() == 0) continue;
            source.forEach((m, s) -> {
                double score = weighted(s, source.weight);
                int[] at = index.get(m);
                if (at == null) {
                    index.put(m, new int[] {out.n});
                    out.add(m, score);
                } else {
                    out.scores[at[0]] = aggregate(out.scores[at[0]], score, aggregate);
                }
            });
        }
    }

    private static void diff(Source[] src, Result out) {
        if (src[0].size() == 0) return;
        src[0].forEach((m, s) -> {
            for (int k = 1; k < src.length; k++) {
                if (src[k].value() == src[0].value() || !Double.isNaN(src[k].score(m))) return;
            }
            out.add(m, s);
        });
    }
}
