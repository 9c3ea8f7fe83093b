package io.cinnabar.command.hashes;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.command.UnboundedReply;
import io.cinnabar.command.keys.ScanArgs;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Reply;
import io.cinnabar.protocol.RespConstants;
import io.cinnabar.util.LongDouble;
import io.cinnabar.util.Numbers;
import io.cinnabar.util.ShortDecimalSum;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.INSERT;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** Hash commands (t_hash.c). */
public final class HashCommands implements CommandFamily {
    /** HRANDFIELD: below count*3 > size, build the whole hash and drop random fields (Redis's SUB_STRATEGY_MUL). */
    private static final int SUB_STRATEGY_MUL = 3;

    @Override
    public String group() {
        return "hash";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("HSET", -4, WRITE, DENYOOM, FAST).keys(at(1, RW, UPDATE))
                .doc("2.0.0", "Set the string value of a hash field",
                        "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.")
                .history("4.0.0", "Accepts multiple `field` and `value` arguments."), c -> hset(c, false));
        t.add(spec("HMSET", -4, WRITE, DENYOOM, FAST).keys(at(1, RW, UPDATE))
                .doc("2.0.0", "Set multiple hash fields to multiple values", "O(N) where N is the number of fields being set.")
                .deprecated("4.0.0", "`HSET` with multiple field-value pairs"), c -> hset(c, true));
        t.add(spec("HSETNX", 4, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("2.0.0", "Set the value of a hash field, only if the field does not exist", "O(1)"), this::hsetnx);
        t.add(spec("HGET", 3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.0.0", "Get the value of a hash field", "O(1)"), this::hget);
        t.add(spec("HMGET", -3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.0.0", "Get the values of all the given hash fields", "O(N) where N is the number of fields being requested."), this::hmget);
        t.add(spec("HDEL", -3, WRITE, FAST).keys(at(1, RW, DELETE))
                .doc("2.0.0", "Delete one or more hash fields", "O(N) where N is the number of fields to be removed.")
                .history("2.4.0", "Accepts multiple `field` arguments."), this::hdel);
        t.add(spec("HLEN", 2, READONLY, FAST).keys(at(1, RO))
                .doc("2.0.0", "Get the number of fields in a hash", "O(1)"), this::hlen);
        t.add(spec("HSTRLEN", 3, READONLY, FAST).keys(at(1, RO))
                .doc("3.2.0", "Get the length of the value of a hash field", "O(1)"), this::hstrlen);
        t.add(spec("HEXISTS", 3, READONLY, FAST).keys(at(1, RO))
                .doc("2.0.0", "Determine if a hash field exists", "O(1)"), this::hexists);
        t.add(spec("HKEYS", 2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output_order")
                .doc("2.0.0", "Get all the fields in a hash", "O(N) where N is the size of the hash."), c -> hgetall(c, true, false));
        t.add(spec("HVALS", 2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output_order")
                .doc("2.0.0", "Get all the values in a hash", "O(N) where N is the size of the hash."), c -> hgetall(c, false, true));
        t.add(spec("HGETALL", 2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output_order")
                .doc("2.0.0", "Get all the fields and values in a hash", "O(N) where N is the size of the hash."), c -> hgetall(c, true, true));
        t.add(spec("HINCRBY", 4, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("2.0.0", "Increment the integer value of a hash field by the given number", "O(1)"), this::hincrby);
        t.add(spec("HINCRBYFLOAT", 4, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("2.6.0", "Increment the float value of a hash field by the given amount", "O(1)"), this::hincrbyfloat);
        t.add(spec("HRANDFIELD", -2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("6.2.0", "Get one or multiple random fields from a hash", "O(N) where N is the number of fields returned"), this::hrandfield);
        t.add(spec("HSCAN", -3, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("2.8.0", "Incrementally iterate hash fields and associated values",
                        "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.."), this::hscan);
    }

    // ---- lookups ----

    private static HashValue read(Database db, byte[] key) {
        Object v = db.read(key);
        if (v == null || v instanceof HashValue) return (HashValue) v;
        throw WrongTypeException.INSTANCE;
    }

    private static HashValue forWrite(Database db, byte[] key) {
        Object v = db.write(key);
        if (v == null || v instanceof HashValue) return (HashValue) v;
        throw WrongTypeException.INSTANCE;
    }

    private static long maxEntries(Call c) {
        return c.config().getLong(ConfigOptions.HASH_MAX_LISTPACK_ENTRIES);
    }

    private static long maxValue(Call c) {
        return c.config().getLong(ConfigOptions.HASH_MAX_LISTPACK_VALUE);
    }

    // ---- writes ----

    /** HSET key field value [field value ...] | HMSET key field value [field value ...] */
    private void hset(Call c, boolean hmset) {
        if (c.argCount() % 2 == 1) {
            throw new CommandError("ERR wrong number of arguments for '" + c.spec().fullName() + "' command");
        }
        Database db = c.db();
        byte[] key = c.arg(1);
        HashValue h = forWrite(db, key);
        boolean fresh = h == null;
        if (fresh) h = new HashValue();
        int created = h.setAll(c.args(), 2, maxEntries(c), maxValue(c));
        if (fresh) db.set(key, h);
        if (hmset) c.reply().ok(); else c.reply().integer(created);
        c.notify(KeyspaceEvents.HASH, "hset", key);
    }

    /** HSETNX key field value */
    private void hsetnx(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        HashValue h = forWrite(db, key);
        if (h != null && h.contains(c.arg(2))) {
            db.unchanged(key);
            c.reply().raw(RespConstants.ZERO);
            return;
        }
        boolean fresh = h == null;
        if (fresh) h = new HashValue();
        h.set(c.arg(2), c.arg(3), maxEntries(c), maxValue(c));
        if (fresh) db.set(key, h);
        c.reply().raw(RespConstants.ONE);
        c.notify(KeyspaceEvents.HASH, "hset", key);
    }

    /** HDEL key field [field ...] */
    private void hdel(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        HashValue h = forWrite(db, key);
        if (h == null) {
            c.reply().raw(RespConstants.ZERO);
            return;
        }
        int removed = h.delete(c.args(), 2);
        if (removed == 0) db.unchanged(key);
        if (removed > 0) c.notify(KeyspaceEvents.HASH, "hdel", key);
        if (h.isEmpty()) {
            db.delete(key);
            c.notify(KeyspaceEvents.GENERIC, "del", key);
        }
        c.reply().integer(removed);
    }

    /** HINCRBY key field increment */
    private void hincrby(Call c) {
        long incr = c.longArg(3);
        Database db = c.db();
        byte[] key = c.arg(1), field = c.arg(2);
        HashValue h = forWrite(db, key);
        long value = 0;
        byte[] old = h == null ? null : h.get(field);
        if (old != null) {
            long[] parsed = new long[1];
            if (!Numbers.parseLong(old, parsed)) throw new CommandError("ERR hash value is not an integer");
            value = parsed[0];
        }
        if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
            throw new CommandError("ERR increment or decrement would overflow");
        }
        value += incr;
        store(c, db, key, h, field, Numbers.toBytes(value));
        c.reply().integer(value);
        c.notify(KeyspaceEvents.HASH, "hincrby", key);
    }

    /** HINCRBYFLOAT key field increment: long double arithmetic, formatted as INCRBYFLOAT does. */
    private void hincrbyfloat(Call c) {
        byte[] increment = c.arg(3);
        // A short decimal is a finite float: the checks below could not fail.
        if (!ShortDecimalSum.isShortDecimal(increment)) checkedIncrement(increment);
        Database db = c.db();
        byte[] key = c.arg(1), field = c.arg(2);
        HashValue h = forWrite(db, key);
        byte[] old = h == null ? null : h.get(field);
        String quick = ShortDecimalSum.human(old, increment);
        byte[] result = (quick != null ? quick : exactSum(old, checkedIncrement(increment))).getBytes(StandardCharsets.US_ASCII);
        store(c, db, key, h, field, result);
        c.reply().bulk(result);
        c.notify(KeyspaceEvents.HASH, "hincrbyfloat", key);
        // The result, not the increment: float formatting must not differ on replay.
        c.propagateAs(PropagatedCommands.HSET, key, field, result);
    }

    private static LongDouble checkedIncrement(byte[] increment) {
        LongDouble incr = LongDouble.parse(increment);
        if (incr == null) throw new CommandError(CommandError.NOT_FLOAT);
        if (incr.isInfinite()) throw new CommandError("ERR value is NaN or Infinity");
        return incr;
    }

    private static String exactSum(byte[] old, LongDouble increment) {
        LongDouble value = LongDouble.ZERO;
        if (old != null) {
            value = LongDouble.parse(old);
            if (value == null) throw new CommandError("ERR hash value is not a float");
        }
        LongDouble sum = value.add(increment);
        if (sum == null || sum.isInfinite()) throw new CommandError("ERR increment would produce NaN or Infinity");
        return sum.toHumanString();
    }

    private static void store(Call c, Database db, byte[] key, HashValue h, byte[] field, byte[] value) {
        boolean fresh = h == null;
        if (fresh) h = new HashValue();
        h.set(field, value, maxEntries(c), maxValue(c));
        if (fresh) db.set(key, h);
    }

    // ---- reads ----

    /** HGET key field */
    private void hget(Call c) {
        HashValue h = read(c.db(), c.arg(1));
        Reply r = c.reply();
        if (h == null || !h.get(c.arg(2), r::bulk)) r.nullBulk();
    }

    /** HMGET key field [field ...] */
    private void hmget(Call c) {
        HashValue h = read(c.db(), c.arg(1));
        Reply r = c.reply();
        r.array(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) {
            if (h == null || !h.get(c.arg(i), r::bulk)) r.nullBulk();
        }
    }

    /** HLEN key */
    private void hlen(Call c) {
        HashValue h = read(c.db(), c.arg(1));
        c.reply().integer(h == null ? 0 : h.size());
    }

    /** HSTRLEN key field */
    private void hstrlen(Call c) {
        HashValue h = read(c.db(), c.arg(1));
        c.reply().integer(h == null ? 0 : Math.max(0, h.valueLength(c.arg(2))));
    }

    /** HEXISTS key field */
    private void hexists(Call c) {
        HashValue h = read(c.db(), c.arg(1));
        c.reply().raw(h != null && h.contains(c.arg(2)) ? RespConstants.ONE : RespConstants.ZERO);
    }

    /** HKEYS key | HVALS key | HGETALL key (a map in RESP3) */
    private void hgetall(Call c, boolean fields, boolean values) {
        HashValue h = read(c.db(), c.arg(1));
        Reply r = c.reply();
        int n = h == null ? 0 : h.size();
        if (fields && values) r.map(n); else r.array(n);
        if (h == null) return;
        h.forEach((f, fo, fl, v, vo, vl) -> {
            if (fields) r.bulk(f, fo, fl);
            if (values) r.bulk(v, vo, vl);
        });
    }

    // ---- HRANDFIELD ----

    /** HRANDFIELD key [count [WITHVALUES]] */
    private void hrandfield(Call c) {
        Reply r = c.reply();
        if (c.argCount() < 3) {
            HashValue h = read(c.db(), c.arg(1));
            if (h == null) {
                r.nullBulk();
                return;
            }
            byte[][] pair = new byte[2][];
            h.randomPair(pair);
            r.bulk(pair[0]);
            return;
        }
        long l = c.longArg(2);
        if (l == Long.MIN_VALUE) {
            throw new CommandError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        }
        if (c.argCount() > 4 || (c.argCount() == 4 && !c.argIs(3, "WITHVALUES"))) throw CommandError.syntax();
        boolean withValues = c.argCount() == 4;
        if (withValues) {
            if (l < -Long.MAX_VALUE / 2 || l > Long.MAX_VALUE / 2) throw new CommandError("ERR value is out of range");
        }
        HashValue h = read(c.db(), c.arg(1));
        if (h == null || l == 0) {
            r.emptyArray();
            return;
        }
        boolean unique = l > 0;
        long count = Math.abs(l);
        int size = h.size();
        boolean nested = withValues && r.protocol() > 2;
        HashValue.PairSink reply = (f, fo, fl, v, vo, vl) -> {
            if (nested) r.array(2);
            r.bulk(f, fo, fl);
            if (withValues) r.bulk(v, vo, vl);
        };
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        if (!unique || count == 1) {
            UnboundedReply out = UnboundedReply.of(c, count);
            out.array(withValues && !nested ? count * 2 : count);
            int[] starts = h.isCompact() ? h.pairStarts() : null;
            byte[][] pair = new byte[2][];
            for (long i = 0; i < count && !out.full(i); i++) {
                if (starts != null) {
                    h.visitPairAt(starts[rnd.nextInt(size)], reply);
                    continue;
                }
                h.randomPair(pair);
                replyPair(r, pair[0], pair[1], withValues, nested);
            }
            return;
        }
        int replySize = (int) Math.min(count, size);
        r.array(withValues && !nested ? replySize * 2 : replySize);
        if (count >= size) {
            h.forEach(reply);
            return;
        }
        if (h.isCompact()) {
            int[] starts = h.pairStarts();
            if (count * SUB_STRATEGY_MUL > size) {
                for (int i = 0; i < count; i++) {
                    int j = i + rnd.nextInt(size - i);
                    int t = starts[i];
                    starts[i] = starts[j];
                    starts[j] = t;
                    h.visitPairAt(starts[i], reply);
                }
                return;
            }
            // Redis's lpRandomPairsUnique: one walk, each pair taken with the chance (left to take) /
            // (left to see), so the picks come in storage order.
            int left = (int) count;
            for (int i = 0; left > 0; i++) {
                if (rnd.nextInt(size - i) < left) {
                    h.visitPairAt(starts[i], reply);
                    left--;
                }
            }
            return;
        }
        if (count * SUB_STRATEGY_MUL > size) {
            // Keep a random subset of count pairs (the whole hash is small next to count).
            byte[][] pairs = h.toPairs();
            int[] order = new int[size];
            for (int i = 0; i < size; i++) order[i] = i;
            for (int i = 0; i < count; i++) {
                int j = i + rnd.nextInt(size - i);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            for (int i = 0; i < count; i++) {
                int at = order[i] * 2;
                replyPair(r, pairs[at], pairs[at + 1], withValues, nested);
            }
            return;
        }
        // A big hashtable: sample until count distinct fields (stored arrays, so identity is equality).
        Set<byte[]> seen = Collections.newSetFromMap(new IdentityHashMap<>((int) count * 2));
        byte[][] pair = new byte[2][];
        while (seen.size() < count) {
            h.randomPair(pair);
            if (!seen.add(pair[0])) continue;
            replyPair(r, pair[0], pair[1], withValues, nested);
        }
    }

    private static void replyPair(Reply r, byte[] field, byte[] value, boolean withValues, boolean nested) {
        if (nested) r.array(2);
        r.bulk(field);
        if (withValues) r.bulk(value);
    }

    // ---- HSCAN ----

    /** HSCAN key cursor [MATCH pattern] [COUNT count] */
    private void hscan(Call c) {
        // Redis checks the cursor, then the key (missing: an empty scan, else WRONGTYPE), then the options.
        ScanArgs.parseCursor(c.arg(2));
        HashValue h = read(c.db(), c.arg(1));
        Reply r = c.reply();
        if (h == null) {
            r.array(2);
            r.bulk("0");
            r.emptyArray();
            return;
        }
        ScanArgs a = ScanArgs.parse(c, 2, false);
        List<byte[]> found = new ArrayList<>();
        long cursor = 0;
        if (h.isCompact()) {
            byte[][] pairs = h.toPairs();
            for (int i = 0; i < pairs.length; i += 2) {
                if (!a.matches(pairs[i])) continue;
                found.add(pairs[i]);
                found.add(pairs[i + 1]);
            }
        } else {
            List<byte[]> visited = new ArrayList<>();
            // As Redis: count doubles for field/value pairs, and at most ten buckets per element.
            long count = Math.min(a.count, Long.MAX_VALUE / 20) * 2;
            long maxIterations = count * 10;
            cursor = a.cursor;
            do {
                cursor = h.scanStep(cursor, (f, v) -> {
                    visited.add(f);
                    visited.add(v);
                });
            } while (cursor != 0 && maxIterations-- != 0 && visited.size() < count);
            for (int i = 0; i < visited.size(); i += 2) {
                if (!a.matches(visited.get(i))) continue;
                found.add(visited.get(i));
                found.add(visited.get(i + 1));
            }
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(cursor));
        r.array(found.size());
        for (byte[] b : found) r.bulk(b);
    }
}
