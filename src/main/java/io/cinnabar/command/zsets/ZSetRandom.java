package io.cinnabar.command.zsets;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.UnboundedReply;
import io.cinnabar.keyspace.BytesMap;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;

import java.util.concurrent.ThreadLocalRandom;

/** ZRANDMEMBER, with Redis's strategies: sampling with repeats, whole set, subtract, or pick. */
final class ZSetRandom {
    /** Past size/3 requested members, shuffling a copy beats picking until enough are unique. */
    private static final int SUB_STRATEGY_MUL = 3;

    private ZSetRandom() {}

    /** ZRANDMEMBER key [count [WITHSCORES]] */
    static void zrandmember(Call c) {
        if (c.argCount() >= 3) {
            long l = c.longArg(2);
            if (l == Long.MIN_VALUE) {
                throw new CommandError("ERR value is out of range, value must between "
                        + -Long.MAX_VALUE + " and " + Long.MAX_VALUE);
            }
            boolean withScores = false;
            if (c.argCount() > 4 || (c.argCount() == 4 && !c.argIs(3, "WITHSCORES"))) {
                throw CommandError.syntax();
            } else if (c.argCount() == 4) {
                withScores = true;
                if (l < -Long.MAX_VALUE / 2 || l > Long.MAX_VALUE / 2) throw new CommandError("ERR value is out of range");
            }
            withCount(c, l, withScores);
            return;
        }
        ZSetValue z = ZSetCommands.read(c, c.arg(1));
        if (z == null) {
            c.reply().nullBulk();
            return;
        }
        ZSetValue.Cursor pick = z.at(0);
        pick.moveToRandom(ThreadLocalRandom.current());
        c.reply().bulk(pick.member());
    }

    private static void withCount(Call c, long l, boolean withScores) {
        ZSetValue z = ZSetCommands.read(c, c.arg(1));
        Reply r = c.reply();
        if (z == null || l == 0) {
            r.emptyArray();
            return;
        }
        boolean unique = l > 0;
        long count = Math.abs(l);
        long size = z.size();
        boolean nested = withScores && r.protocol() == 3;
        if (!unique || count == 1) {
            UnboundedReply out = UnboundedReply.of(c, count);
            out.array(withScores && !nested ? count * 2 : count);
            // A cursor, not randomMember: a listpack's entries are found by a walk, its offsets read once here.
            ZSetValue.Cursor pick = z.at(0);
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (long k = 0; k < count && !out.full(k); k++) {
                pick.moveToRandom(rnd);
                if (withScores) ZSetCommands.pair(r, pick.member(), pick.score(), nested); else r.bulk(pick.member());
            }
            return;
        }
        long n = Math.min(count, size);
        r.array((int) (withScores && !nested ? n * 2 : n));
        if (count >= size) {
            // Redis's zset iterator walks from the highest score down.
            for (ZSetValue.Cursor cur = z.at(size - 1); cur.valid(); cur.previous()) {
                if (withScores) ZSetCommands.pair(r, cur.member(), cur.score(), nested); else r.bulk(cur.member());
            }
            return;
        }
        if (count * SUB_STRATEGY_MUL > size) {
            int total = (int) size;
            byte[][] ms = new byte[total][];
            double[] ss = new double[total];
            int[] i = {0};
            z.forEach((m, s) -> {
                ms[i[0]] = m;
                ss[i[0]++] = s;
            });
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int k = 0; k < count; k++) {
                int pick = k + rnd.nextInt(total - k);
                byte[] tm = ms[k]; ms[k] = ms[pick]; ms[pick] = tm;
                double ts = ss[k]; ss[k] = ss[pick]; ss[pick] = ts;
                if (withScores) ZSetCommands.pair(r, ms[k], ss[k], nested); else r.bulk(ms[k]);
            }
            return;
        }
        BytesMap<Boolean> seen = new BytesMap<>((int) count);
        ZSetValue.Cursor pick = z.at(0);
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        long added = 0;
        while (added < count) {
            pick.moveToRandom(rnd);
            byte[] m = pick.member();
            if (seen.put(m, Boolean.TRUE) != null) continue;
            added++;
            if (withScores) ZSetCommands.pair(r, m, pick.score(), nested); else r.bulk(m);
        }
    }
}
