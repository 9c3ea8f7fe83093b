package io.cinnabar.command.zsets;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.keys.ScanArgs;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.LexRange;
import io.cinnabar.keyspace.ScoreRange;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.DoubleFormat;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.CommandFlag.BLOCKING;
import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** Sorted set commands (t_zset.c). Set algebra lives in {@link ZSetAlgebra}, pops in {@link ZSetPops}. */
public final class ZSetCommands implements CommandFamily {
    enum RangeType { AUTO, RANK, SCORE, LEX }

    enum Direction { AUTO, FORWARD, REVERSE }

    @Override
    public String group() {
        return "sorted-set";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("ZADD", -4, WRITE, DENYOOM, FAST).keys(at(1, RW, UPDATE))
                .doc("1.2.0", "Add one or more members to a sorted set, or update its score if it already exists",
                        "O(log(N)) for each item added, where N is the number of elements in the sorted set.")
                .history("2.4.0", "Accepts multiple elements.",
                        "3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options.",
                        "6.2.0", "Added the `GT` and `LT` options."),
                c -> zadd(c, 0));
        t.add(spec("ZINCRBY", 4, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.2.0", "Increment the score of a member in a sorted set",
                        "O(log(N)) where N is the number of elements in the sorted set."), c -> zadd(c, ZSetValue.IN_INCR));
        t.add(spec("ZREM", -3, WRITE, FAST).keys(at(1, RW, DELETE))
                .doc("1.2.0", "Remove one or more members from a sorted set",
                        "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.")
                .history("2.4.0", "Accepts multiple elements."), this::zrem);
        t.add(spec("ZCARD", 2, READONLY, FAST).keys(at(1, RO))
                .doc("1.2.0", "Get the number of members in a sorted set", "O(1)"), this::zcard);
        t.add(spec("ZCOUNT", 4, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.0.0", "Count the members in a sorted set with scores within the given values",
                        "O(log(N)) with N being the number of elements in the sorted set."), this::zcount);
        t.add(spec("ZLEXCOUNT", 4, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.8.9", "Count the number of members in a sorted set between a given lexicographical range",
                        "O(log(N)) with N being the number of elements in the sorted set."),
                this::zlexcount);
        t.add(spec("ZSCORE", 3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("1.2.0", "Get the score associated with the given member in a sorted set", "O(1)"), this::zscore);
        t.add(spec("ZMSCORE", -3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("6.2.0", "Get the score associated with the given members in a sorted set",
                        "O(N) where N is the number of members being requested."), this::zmscore);
        t.add(spec("ZRANK", 3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.0.0", "Determine the index of a member in a sorted set", "O(log(N))"), c -> zrank(c, false));
        t.add(spec("ZREVRANK", 3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.0.0", "Determine the index of a member in a sorted set, with scores ordered from high to low", "O(log(N))"),
                c -> zrank(c, true));
        t.add(spec("ZRANGE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.2.0", "Return a range of members in a sorted set",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.")
                .history("6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."),
                c -> zrange(c, 1, false, RangeType.AUTO, Direction.AUTO));
        t.add(spec("ZRANGESTORE", -5, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS))
                .doc("6.2.0", "Store a range of members from sorted set into another key",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key."),
                c -> zrange(c, 2, true, RangeType.AUTO, Direction.AUTO));
        t.add(spec("ZREVRANGE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.2.0", "Return a range of members in a sorted set, by index, with scores ordered from high to low",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.")
                .deprecated("6.2.0", "`ZRANGE` with the `REV` argument"),
                c -> zrange(c, 1, false, RangeType.RANK, Direction.REVERSE));
        t.add(spec("ZRANGEBYSCORE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.0.5", "Return a range of members in a sorted set, by score",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).")
                .deprecated("6.2.0", "`ZRANGE` with the `BYSCORE` argument")
                .history("2.0.0", "Added the `WITHSCORES` modifier."),
                c -> zrange(c, 1, false, RangeType.SCORE, Direction.FORWARD));
        t.add(spec("ZREVRANGEBYSCORE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("2.2.0", "Return a range of members in a sorted set, by score, with scores ordered from high to low",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).")
                .deprecated("6.2.0", "`ZRANGE` with the `REV` and `BYSCORE` arguments")
                .history("2.1.6", "`min` and `max` can be exclusive."),
                c -> zrange(c, 1, false, RangeType.SCORE, Direction.REVERSE));
        t.add(spec("ZRANGEBYLEX", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("2.8.9", "Return a range of members in a sorted set, by lexicographical range",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).")
                .deprecated("6.2.0", "`ZRANGE` with the `BYLEX` argument"),
                c -> zrange(c, 1, false, RangeType.LEX, Direction.FORWARD));
        t.add(spec("ZREVRANGEBYLEX", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("2.8.9", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).")
                .deprecated("6.2.0", "`ZRANGE` with the `REV` and `BYLEX` arguments"),
                c -> zrange(c, 1, false, RangeType.LEX, Direction.REVERSE));
        t.add(spec("ZREMRANGEBYRANK", 4, WRITE).keys(at(1, RW, DELETE))
                .doc("2.0.0", "Remove all members in a sorted set within the given indexes",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation."),
                c -> zremrange(c, RangeType.RANK));
        t.add(spec("ZREMRANGEBYSCORE", 4, WRITE).keys(at(1, RW, DELETE))
                .doc("1.2.0", "Remove all members in a sorted set within the given scores",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation."),
                c -> zremrange(c, RangeType.SCORE));
        t.add(spec("ZREMRANGEBYLEX", 4, WRITE).keys(at(1, RW, DELETE))
                .doc("2.8.9", "Remove all members in a sorted set between the given lexicographical range",
                        "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation."),
                c -> zremrange(c, RangeType.LEX));
        t.add(spec("ZRANDMEMBER", -2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("6.2.0", "Get one or multiple random elements from a sorted set",
                        "O(N) where N is the number of elements returned"), ZSetRandom::zrandmember);
        t.add(spec("ZSCAN", -3, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("2.8.0", "Incrementally iterate sorted sets elements and associated scores",
                        "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.."), this::zscan);

        t.add(spec("ZUNION", -3, READONLY).keys(at(1, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("6.2.0", "Add multiple sorted sets",
                        "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set."), c -> ZSetAlgebra.run(c, false, ZSetAlgebra.UNION, false));
        t.add(spec("ZINTER", -3, READONLY).keys(at(1, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("6.2.0", "Intersect multiple sorted sets",
                        "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set."), c -> ZSetAlgebra.run(c, false, ZSetAlgebra.INTER, false));
        t.add(spec("ZDIFF", -3, READONLY).keys(at(1, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("6.2.0", "Subtract multiple sorted sets",
                        "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set."), c -> ZSetAlgebra.run(c, false, ZSetAlgebra.DIFF, false));
        t.add(spec("ZINTERCARD", -3, READONLY).keys(at(1, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("7.0.0", "Intersect multiple sorted sets and return the cardinality of the result",
                        "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets."),
                c -> ZSetAlgebra.run(c, false, ZSetAlgebra.INTER, true));
        t.add(spec("ZUNIONSTORE", -4, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(1, 2, 3))
                .doc("2.0.0", "Add multiple sorted sets and store the resulting sorted set in a new key",
                        "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set."),
                c -> ZSetAlgebra.run(c, true, ZSetAlgebra.UNION, false));
        t.add(spec("ZINTERSTORE", -4, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(1, 2, 3))
                .doc("2.0.0", "Intersect multiple sorted sets and store the resulting sorted set in a new key",
                        "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set."),
                c -> ZSetAlgebra.run(c, true, ZSetAlgebra.INTER, false));
        t.add(spec("ZDIFFSTORE", -4, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(1, 2, 3))
                .doc("6.2.0", "Subtract multiple sorted sets and store the resulting sorted set in a new key",
                        "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set."),
                c -> ZSetAlgebra.run(c, true, ZSetAlgebra.DIFF, false));

        t.add(spec("ZPOPMIN", -2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE))
                .doc("5.0.0", "Remove and return members with the lowest scores in a sorted set",
                        "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped."),
                c -> ZSetPops.zpop(c, false));
        t.add(spec("ZPOPMAX", -2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE))
                .doc("5.0.0", "Remove and return members with the highest scores in a sorted set",
                        "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped."),
                c -> ZSetPops.zpop(c, true));
        t.add(spec("ZMPOP", -4, WRITE).keys(at(1, RW, ACCESS, DELETE).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("7.0.0", "Remove and return members with scores in a sorted set",
                        "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped."), c -> ZSetPops.zmpop(c, false));
        t.add(spec("BZPOPMIN", -3, WRITE, NOSCRIPT, FAST, BLOCKING).keys(at(1, RW, ACCESS, DELETE).range(-2, 1))
                .doc("5.0.0", "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available",
                        "O(log(N)) with N being the number of elements in the sorted set.")
                .history("6.0.0", "`timeout` is interpreted as a double instead of an integer."),
                c -> ZSetPops.bzpop(c, false));
        t.add(spec("BZPOPMAX", -3, WRITE, NOSCRIPT, FAST, BLOCKING).keys(at(1, RW, ACCESS, DELETE).range(-2, 1))
                .doc("5.0.0", "Remove and return the member with the highest score from one or more sorted sets, or block until one is available",
                        "O(log(N)) with N being the number of elements in the sorted set.")
                .history("6.0.0", "`timeout` is interpreted as a double instead of an integer."),
                c -> ZSetPops.bzpop(c, true));
        t.add(spec("BZMPOP", -5, WRITE, BLOCKING).keys(at(2, RW, ACCESS, DELETE).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 2, 3))
                .doc("7.0.0", "Remove and return members with scores in a sorted set or block until one is available",
                        "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped."),
                c -> ZSetPops.zmpop(c, true));
    }

    // ---- lookups shared by the family ----

    /** The sorted set at key for reading, null if absent; WRONGTYPE if another type. */
    public static ZSetValue read(Call c, byte[] key) {
        Object v = c.db().read(key);
        if (v == null || v instanceof ZSetValue) return (ZSetValue) v;
        throw WrongTypeException.INSTANCE;
    }

    /** The sorted set at key for modifying, null if absent; WRONGTYPE if another type. */
    static ZSetValue write(Call c, byte[] key) {
        Object v = c.db().write(key);
        if (v == null || v instanceof ZSetValue) return (ZSetValue) v;
        throw WrongTypeException.INSTANCE;
    }

    public static long maxEntries(Call c) {
        return c.config().getLong(ConfigOptions.ZSET_MAX_LISTPACK_ENTRIES);
    }

    public static long maxValue(Call c) {
        return c.config().getLong(ConfigOptions.ZSET_MAX_LISTPACK_VALUE);
    }

    /** A member and score as a pair: [m, s] nested in RESP3, two flat items in RESP2. */
    static void pair(Reply r, byte[] member, double score, boolean nested) {
        if (nested) r.array(2);
        r.bulk(member);
        r.doubleValue(score);
    }

    // ---- handlers ----

    /**
     * ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]; ZINCRBY key increment
     * member (flags IN_INCR); also what GEOADD runs once it has turned coordinates into scores.
     */
    public static void zadd(Call c, int flags) {
        boolean ch = false;
        int i = 2;
        if (flags == 0) {
            for (; i < c.argCount(); i++) {
                if (c.argIs(i, "NX")) flags |= ZSetValue.IN_NX;
                else if (c.argIs(i, "XX")) flags |= ZSetValue.IN_XX;
                else if (c.argIs(i, "CH")) ch = true;
                else if (c.argIs(i, "INCR")) flags |= ZSetValue.IN_INCR;
                else if (c.argIs(i, "GT")) flags |= ZSetValue.IN_GT;
                else if (c.argIs(i, "LT")) flags |= ZSetValue.IN_LT;
                else break;
            }
        }
        boolean incr = (flags & ZSetValue.IN_INCR) != 0, nx = (flags & ZSetValue.IN_NX) != 0;
        boolean xx = (flags & ZSetValue.IN_XX) != 0, gt = (flags & ZSetValue.IN_GT) != 0;
        boolean lt = (flags & ZSetValue.IN_LT) != 0;
        int elements = c.argCount() - i;
        if (elements % 2 != 0 || elements == 0) throw CommandError.syntax();
        elements /= 2;
        if (nx && xx) throw new CommandError("ERR XX and NX options at the same time are not compatible");
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            throw new CommandError("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 1) throw new CommandError("ERR INCR option supports a single increment-element pair");
        double[] scores = new double[elements];
        for (int j = 0; j < elements; j++) scores[j] = c.doubleArg(i + j * 2);

        byte[] key = c.arg(1);
        ZSetValue z = write(c, key);
        boolean created = false;
        int added = 0, updated = 0, processed = 0;
        double[] out = new double[1];
        double score = 0;
        if (z == null && !xx) {
            z = new ZSetValue();
            created = true;
        }
        if (z != null) {
            long maxEntries = maxEntries(c), maxValue = maxValue(c);
            for (int j = 0; j < elements; j++) {
                int r = z.add(scores[j], c.arg(i + j * 2 + 1), flags, out, maxEntries, maxValue);
                if ((r & ZSetValue.OUT_NAN) != 0) {
                    if (created && z.size() > 0) c.db().set(key, z);
                    // Redis announces what the members before the NaN changed.
                    if (added + updated > 0) c.notify(KeyspaceEvents.ZSET, incr ? "zincr" : "zadd", key);
                    throw new CommandError("ERR resulting score is not a number (NaN)");
                }
                if ((r & ZSetValue.OUT_ADDED) != 0) added++;
                if ((r & ZSetValue.OUT_UPDATED) != 0) updated++;
                if ((r & ZSetValue.OUT_NOP) == 0) {
                    processed++;
                    score = out[0];
                }
            }
            if (created && z.size() > 0) c.db().set(key, z);
            else if (added + updated == 0) c.db().unchanged(key);
        }
        if (incr) {
            if (processed > 0) c.reply().doubleValue(score); else c.reply().nullBulk();
        } else {
            c.reply().integer(ch ? added + updated : added);
        }
        if (added + updated > 0) c.notify(KeyspaceEvents.ZSET, incr ? "zincr" : "zadd", key);
    }

    /** ZREM key member [member ...] */
    private void zrem(Call c) {
        byte[] key = c.arg(1);
        ZSetValue z = write(c, key);
        if (z == null) {
            c.reply().integer(0);
            return;
        }
        int deleted = 0;
        for (int j = 2; j < c.argCount(); j++) {
            if (z.remove(c.arg(j))) deleted++;
            if (z.size() == 0) {
                c.db().delete(key);
                break;
            }
        }
        if (deleted == 0) c.db().unchanged(key);
        if (deleted > 0) c.notify(KeyspaceEvents.ZSET, "zrem", key);
        if (z.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", key);
        c.reply().integer(deleted);
    }

    /** ZCARD key */
    private void zcard(Call c) {
        ZSetValue z = read(c, c.arg(1));
        c.reply().integer(z == null ? 0 : z.size());
    }

    /** ZCOUNT key min max */
    private void zcount(Call c) {
        ScoreRange r = ZRanges.score(c.arg(2), c.arg(3));
        ZSetValue z = read(c, c.arg(1));
        long first = z == null ? -1 : z.firstRank(r);
        c.reply().integer(first < 0 ? 0 : z.lastRank(r) - first + 1);
    }

    /** ZLEXCOUNT key min max */
    private void zlexcount(Call c) {
        LexRange r = ZRanges.lex(c.arg(2), c.arg(3));
        ZSetValue z = read(c, c.arg(1));
        c.reply().integer(z == null ? 0 : z.lexCount(r));
    }

    /** ZSCORE key member */
    private void zscore(Call c) {
        ZSetValue z = read(c, c.arg(1));
        double s = z == null ? Double.NaN : z.score(c.arg(2));
        if (Double.isNaN(s)) c.reply().nullBulk(); else c.reply().doubleValue(s);
    }

    /** ZMSCORE key member [member ...] */
    private void zmscore(Call c) {
        ZSetValue z = read(c, c.arg(1));
        c.reply().array(c.argCount() - 2);
        for (int j = 2; j < c.argCount(); j++) {
            double s = z == null ? Double.NaN : z.score(c.arg(j));
            if (Double.isNaN(s)) c.reply().nullBulk(); else c.reply().doubleValue(s);
        }
    }

    /** ZRANK key member; ZREVRANK key member */
    private void zrank(Call c, boolean reverse) {
        ZSetValue z = read(c, c.arg(1));
        long r = z == null ? -1 : z.rank(c.arg(2), reverse);
        if (r < 0) c.reply().nullBulk(); else c.reply().integer(r);
    }

    /**
     * ZRANGE key min max [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES], ZRANGESTORE dst
     * src ..., and the older ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX (Redis's zrangeGenericCommand).
     */
    private void zrange(Call c, int keyIndex, boolean store, RangeType type, Direction dir) {
        int minIdx = keyIndex + 1, maxIdx = keyIndex + 2;
        boolean withScores = false;
        long offset = 0, limit = -1;
        for (int j = keyIndex + 3; j < c.argCount(); j++) {
            int left = c.argCount() - j - 1;
            if (!store && c.argIs(j, "WITHSCORES")) {
                withScores = true;
            } else if (c.argIs(j, "LIMIT") && left >= 2) {
                offset = c.longArg(j + 1);
                limit = c.longArg(j + 2);
                j += 2;
            } else if (dir == Direction.AUTO && c.argIs(j, "REV")) {
                dir = Direction.REVERSE;
            } else if (type == RangeType.AUTO && c.argIs(j, "BYLEX")) {
                type = RangeType.LEX;
            } else if (type == RangeType.AUTO && c.argIs(j, "BYSCORE")) {
                type = RangeType.SCORE;
            } else {
                throw CommandError.syntax();
            }
        }
        if (dir == Direction.AUTO) dir = Direction.FORWARD;
        if (type == RangeType.AUTO) type = RangeType.RANK;
        if (limit != -1 && type == RangeType.RANK) {
            throw new CommandError("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        }
        if (withScores && type == RangeType.LEX) {
            throw new CommandError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        boolean reverse = dir == Direction.REVERSE;
        if (reverse && type != RangeType.RANK) {
            int t = minIdx;
            minIdx = maxIdx;
            maxIdx = t;
        }
        long start = 0, end = 0;
        ScoreRange scoreRange = null;
        LexRange lexRange = null;
        switch (type) {
            case SCORE -> scoreRange = ZRanges.score(c.arg(minIdx), c.arg(maxIdx));
            case LEX -> lexRange = ZRanges.lex(c.arg(minIdx), c.arg(maxIdx));
            default -> {
                start = c.longArg(minIdx);
                end = c.longArg(maxIdx);
            }
        }
        ZSetValue z = read(c, c.arg(keyIndex));
        // The span to emit: first rank visited and how many, walking backwards when reverse.
        long from = 0, count = 0;
        if (z != null) {
            long size = z.size();
            if (type == RangeType.RANK) {
                if (start < 0) start += size;
                if (end < 0) end += size;
                if (start < 0) start = 0;
                if (!(start > end || start >= size)) {
                    if (end >= size) end = size - 1;
                    count = end - start + 1;
                    from = reverse ? size - 1 - start : start;
                }
            } else if (lexRange != null) {
                // Redis's walk: from its first (last) member in range, offset skipped unchecked, then while in range.
                long edge = reverse ? z.lastRank(lexRange) : z.firstRank(lexRange);
                if (edge >= 0 && offset >= 0) {
                    from = reverse ? edge - offset : edge + offset;
                    count = z.lexRun(from, lexRange, reverse, limit);
                }
            } else {
                long first = z.firstRank(scoreRange);
                long last = first < 0 ? -1 : z.lastRank(scoreRange);
                long total = first < 0 || last < first ? 0 : last - first + 1;
                if (offset >= 0 && total > offset) {
                    count = total - offset;
                    if (limit >= 0 && limit < count) count = limit;
                    from = reverse ? last - offset : first + offset;
                }
            }
        }
        if (store) {
            store(c, z, from, count, reverse);
            return;
        }
        Reply r = c.reply();
        if (count == 0) {
            r.emptyArray();
            return;
        }
        boolean nested = withScores && r.protocol() == 3;
        r.array((int) (withScores && !nested ? count * 2 : count));
        ZSetValue.Cursor cur = z.at(from);
        for (long k = 0; k < count; k++) {
            if (withScores) pair(r, cur.member(), cur.score(), nested); else r.bulk(cur.member());
            if (reverse) cur.previous(); else cur.next();
        }
    }

    private static void store(Call c, ZSetValue z, long from, long count, boolean reverse) {
        byte[] dst = c.arg(1);
        if (count == 0) {
            c.reply().integer(0);
            if (c.db().delete(dst)) c.notify(KeyspaceEvents.GENERIC, "del", dst);
            return;
        }
        int n = (int) count;
        byte[][] ms = new byte[n][];
        double[] ss = new double[n];
        ZSetValue.Cursor cur = z.at(from);
        for (int k = 0; k < n; k++) {
            ms[k] = cur.member();
            ss[k] = cur.score();
            if (reverse) cur.previous(); else cur.next();
        }
        c.db().set(dst, ZSetValue.build(ms, ss, n, maxEntries(c), maxValue(c)));
        c.reply().integer(n);
        c.notify(KeyspaceEvents.ZSET, "zrangestore", dst);
    }

    /** ZREMRANGEBYRANK key start stop; ZREMRANGEBYSCORE key min max; ZREMRANGEBYLEX key min max */
    private void zremrange(Call c, RangeType type) {
        long start = 0, end = 0;
        ScoreRange scoreRange = null;
        LexRange lexRange = null;
        switch (type) {
            case SCORE -> scoreRange = ZRanges.score(c.arg(2), c.arg(3));
            case LEX -> lexRange = ZRanges.lex(c.arg(2), c.arg(3));
            default -> {
                start = c.longArg(2);
                end = c.longArg(3);
            }
        }
        byte[] key = c.arg(1);
        ZSetValue z = write(c, key);
        if (z == null) {
            c.reply().integer(0);
            return;
        }
        long size = z.size();
        if (type == RangeType.RANK) {
            if (start < 0) start += size;
            if (end < 0) end += size;
            if (start < 0) start = 0;
            if (start > end || start >= size) {
                c.db().unchanged(key);
                c.reply().integer(0);
                return;
            }
            if (end >= size) end = size - 1;
        } else {
            if (scoreRange != null) {
                start = z.firstRank(scoreRange);
                end = start < 0 ? -1 : z.lastRank(scoreRange);
            } else {
                start = z.lexDeleteStart(lexRange);
                end = start < 0 ? -1 : start + z.lexRun(start, lexRange, false, -1) - 1;
            }
            if (start < 0 || end < start) {
                c.db().unchanged(key);
                c.reply().integer(0);
                return;
            }
        }
        long deleted = z.removeRange(start, end);
        if (z.size() == 0) c.db().delete(key);
        if (deleted > 0) c.notify(KeyspaceEvents.ZSET, type == RangeType.RANK ? "zremrangebyrank"
                : type == RangeType.SCORE ? "zremrangebyscore" : "zremrangebylex", key);
        if (z.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", key);
        c.reply().integer(deleted);
    }

    /** ZSCAN key cursor [MATCH pattern] [COUNT count] */
    private void zscan(Call c) {
        // Redis checks the cursor, then the key (missing: an empty scan, else WRONGTYPE), then the options.
        ScanArgs.parseCursor(c.arg(2));
        ZSetValue z = read(c, c.arg(1));
        Reply r = c.reply();
        if (z == null) {
            r.array(2);
            r.bulk(ZERO);
            r.emptyArray();
            return;
        }
        ScanArgs a = ScanArgs.parse(c, 2, false);
        List<byte[]> items = new ArrayList<>();
        // A listpack's score is the text its d2string stored (1e17 as 100000000000000000); a
        // skiplist's is printed anew with "%.17Lg" (1e+17).
        boolean listpack = z.isListpack();
        ZSetValue.MemberScoreVisitor collect = (m, s) -> {
            if (a.matches(m)) {
                items.add(m);
                String score = listpack ? DoubleFormat.d2string(s) : DoubleFormat.reply(s);
                items.add(score.getBytes(StandardCharsets.US_ASCII));
            }
        };
        long cursor = 0;
        if (listpack) {
            z.forEach(collect);
        } else {
            // Redis bounds the work per call at count*10 buckets, empty ones included.
            cursor = a.cursor;
            long maxIterations = a.count * 10;
            int[] seen = new int[1];
            ZSetValue.MemberScoreVisitor counting = (m, s) -> {
                seen[0] += 2; // Redis counts member and score as two items
                collect.visit(m, s);
            };
            do {
                cursor = z.scanStep(cursor, counting);
            } while (cursor != 0 && maxIterations-- > 0 && seen[0] < a.count);
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(cursor));
        r.array(items.size());
        for (byte[] b : items) r.bulk(b);
    }

    private static final byte[] ZERO = {'0'};
}
