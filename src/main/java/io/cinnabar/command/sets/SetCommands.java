package io.cinnabar.command.sets;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.command.UnboundedReply;
import io.cinnabar.command.keys.ScanArgs;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.BytesSet;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.IntSet;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.Numbers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.INSERT;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** The set commands (Redis's t_set.c). */
public final class SetCommands implements CommandFamily {
    /** SPOP with a count rebuilds the set when fewer than count/5 members would remain. */
    private static final long SPOP_MOVE_STRATEGY_MUL = 5;
    /** SRANDMEMBER with a count copies the set when it is not 3x bigger than count. */
    private static final long SRANDMEMBER_SUB_STRATEGY_MUL = 3;

    private enum Op { UNION, DIFF }

    @Override
    public String group() {
        return "set";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SADD", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT)).doc("1.0.0", "Add one or more members to a set",
                        "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.")
                .history("2.4.0", "Accepts multiple `member` arguments."), this::sadd);
        t.add(spec("SREM", -3, WRITE, FAST).keys(at(1, RW, DELETE))
                .doc("1.0.0", "Remove one or more members from a set", "O(N) where N is the number of members to be removed.")
                .history("2.4.0", "Accepts multiple `member` arguments."), this::srem);
        t.add(spec("SMOVE", 4, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT))
                .doc("1.0.0", "Move a member from one set to another", "O(1)"), this::smove);
        t.add(spec("SISMEMBER", 3, READONLY, FAST).keys(at(1, RO))
                .doc("1.0.0", "Determine if a given value is a member of a set", "O(1)"), this::sismember);
        t.add(spec("SMISMEMBER", -3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("6.2.0", "Returns the membership associated with the given elements for a set",
                        "O(N) where N is the number of elements being checked for membership"), this::smismember);
        t.add(spec("SCARD", 2, READONLY, FAST).keys(at(1, RO)).doc("1.0.0", "Get the number of members in a set", "O(1)"), this::scard);
        t.add(spec("SMEMBERS", 2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output_order")
                .doc("1.0.0", "Get all the members in a set", "O(N) where N is the set cardinality."), c -> sinter(c, 1, c.argCount(), null, false, 0));
        t.add(spec("SPOP", -2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE)).tips("nondeterministic_output")
                .doc("1.0.0", "Remove and return one or multiple random members from a set",
                        "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.")
                .history("3.2.0", "Added the `count` argument."), this::spop);
        t.add(spec("SRANDMEMBER", -2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("1.0.0", "Get one or multiple random members from a set",
                        "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.")
                .history("2.6.0", "Added the optional `count` argument."), this::srandmember);
        t.add(spec("SINTER", -2, READONLY).keys(at(1, RO, ACCESS).range(-1, 1)).tips("nondeterministic_output_order")
                .doc("1.0.0", "Intersect multiple sets",
                        "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets."), c -> sinter(c, 1, c.argCount(), null, false, 0));
        t.add(spec("SINTERCARD", -3, READONLY).keys(at(1, RO, ACCESS).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("7.0.0", "Intersect multiple sets and return the cardinality of the result",
                        "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets."), this::sintercard);
        t.add(spec("SINTERSTORE", -3, WRITE, DENYOOM).keys(at(1, RW, UPDATE), at(2, RO, ACCESS).range(-1, 1))
                .doc("1.0.0", "Intersect multiple sets and store the resulting set in a key",
                        "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets."),
                c -> sinter(c, 2, c.argCount(), c.arg(1), false, 0));
        t.add(spec("SUNION", -2, READONLY).keys(at(1, RO, ACCESS).range(-1, 1)).tips("nondeterministic_output_order")
                .doc("1.0.0", "Add multiple sets", "O(N) where N is the total number of elements in all given sets."), c -> sunionDiff(c, 1, null, Op.UNION));
        t.add(spec("SUNIONSTORE", -3, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).range(-1, 1))
                .doc("1.0.0", "Add multiple sets and store the resulting set in a key",
                        "O(N) where N is the total number of elements in all given sets."), c -> sunionDiff(c, 2, c.arg(1), Op.UNION));
        t.add(spec("SDIFF", -2, READONLY).keys(at(1, RO, ACCESS).range(-1, 1)).tips("nondeterministic_output_order")
                .doc("1.0.0", "Subtract multiple sets", "O(N) where N is the total number of elements in all given sets."), c -> sunionDiff(c, 1, null, Op.DIFF));
        t.add(spec("SDIFFSTORE", -3, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).range(-1, 1))
                .doc("1.0.0", "Subtract multiple sets and store the resulting set in a key",
                        "O(N) where N is the total number of elements in all given sets."), c -> sunionDiff(c, 2, c.arg(1), Op.DIFF));
        t.add(spec("SSCAN", -3, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("2.8.0", "Incrementally iterate Set elements",
                        "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.."), this::sscan);
    }

    // ---- lookups ----

    /** The set at key for a read command, null if absent; WRONGTYPE if another type. */
    private static SetValue readSet(Database db, byte[] key) {
        return asSet(db.read(key));
    }

    /** The set at key for a write command (no WATCH signal until something changes). */
    private static SetValue writeSet(Database db, byte[] key) {
        Entry e = db.lookupForWrite(key);
        return e == null ? null : asSet(e.value());
    }

    private static SetValue asSet(Object v) {
        if (v == null || v instanceof SetValue) return (SetValue) v;
        throw WrongTypeException.INSTANCE;
    }

    /** Redis's signalModifiedKey for a set changed in place: a write lookup marks WATCHers. */
    private static void modified(Database db, byte[] key) {
        db.write(key);
    }

    private static long maxIntsetEntries(Call c) {
        return c.config().getLong(ConfigOptions.SET_MAX_INTSET_ENTRIES);
    }

    // ---- single-set commands ----

    /** SADD key member [member ...] */
    private void sadd(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        long max = maxIntsetEntries(c);
        SetValue set = writeSet(db, key);
        boolean created = set == null;
        if (created) {
            set = SetValue.forMember(c.arg(2));
            db.set(key, set);
        }
        long added = 0;
        for (int i = 2; i < c.argCount(); i++) if (set.add(c.arg(i), max)) added++;
        if (added > 0 && !created) modified(db, key);
        if (added > 0) c.notify(KeyspaceEvents.SET, "sadd", key);
        c.reply().integer(added);
    }

    /** SREM key member [member ...] */
    private void srem(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        SetValue set = writeSet(db, key);
        long deleted = 0;
        if (set != null) {
            for (int i = 2; i < c.argCount(); i++) {
                if (!set.remove(c.arg(i))) continue;
                deleted++;
                if (set.size() == 0) break;
            }
            if (set.size() == 0) db.delete(key);
            else if (deleted > 0) modified(db, key);
            if (deleted > 0) c.notify(KeyspaceEvents.SET, "srem", key);
            if (set.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", key);
        }
        c.reply().integer(deleted);
    }

    /** SMOVE source destination member */
    private void smove(Call c) {
        Database db = c.db();
        byte[] srcKey = c.arg(1), dstKey = c.arg(2), member = c.arg(3);
        Entry srcEntry = db.lookupForWrite(srcKey);
        Entry dstEntry = db.lookupForWrite(dstKey);
        if (srcEntry == null) {
            c.reply().integer(0);
            return;
        }
        SetValue src = asSet(srcEntry.value());
        SetValue dst = asSet(dstEntry == null ? null : dstEntry.value());
        if (src == dst) {
            c.reply().integer(src.contains(member) ? 1 : 0);
            return;
        }
        if (!src.remove(member)) {
            c.reply().integer(0);
            return;
        }
        if (src.size() == 0) db.delete(srcKey); else modified(db, srcKey);
        c.notify(KeyspaceEvents.SET, "srem", srcKey);
        if (src.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", srcKey);
        if (dst == null) {
            dst = SetValue.forMember(member);
            db.set(dstKey, dst);
        }
        boolean addsMember = !dst.contains(member);
        // Only a real addition counts as a change of the destination (WATCH).
        if (dst.add(member, maxIntsetEntries(c))) modified(db, dstKey);
        if (addsMember) c.notify(KeyspaceEvents.SET, "sadd", dstKey);
        c.reply().integer(1);
    }

    /** SISMEMBER key member */
    private void sismember(Call c) {
        SetValue set = readSet(c.db(), c.arg(1));
        c.reply().integer(set != null && set.contains(c.arg(2)) ? 1 : 0);
    }

    /** SMISMEMBER key member [member ...] — a missing key is an empty set. */
    private void smismember(Call c) {
        SetValue set = readSet(c.db(), c.arg(1));
        Reply r = c.reply();
        r.array(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) r.integer(set != null && set.contains(c.arg(i)) ? 1 : 0);
    }

    /** SCARD key */
    private void scard(Call c) {
        SetValue set = readSet(c.db(), c.arg(1));
        c.reply().integer(set == null ? 0 : set.size());
    }

    // ---- random members ----

    /** SPOP key [count] */
    private void spop(Call c) {
        if (c.argCount() > 3) throw CommandError.syntax();
        if (c.argCount() == 3) {
            spopCount(c);
            return;
        }
        Database db = c.db();
        byte[] key = c.arg(1);
        SetValue set = writeSet(db, key);
        if (set == null) {
            c.reply().nullBulk();
            return;
        }
        byte[] popped;
        if (set.isIntset()) {
            long v = set.randomInt();
            set.remove(v);
            popped = PropagatedCommands.number(v);
        } else {
            popped = set.randomMember();
            set.remove(popped);
        }
        // Redis announces the pop before replying, and the emptied set's deletion after.
        c.notify(KeyspaceEvents.SET, "spop", key);
        c.reply().bulk(popped);
        if (set.size() == 0) db.delete(key); else modified(db, key);
        if (set.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", key);
        c.propagateAs(PropagatedCommands.SREM, key, popped);
    }

    /** SPOP key count: Redis's three cases (whole set / pop one by one / rebuild the rest). */
    private void spopCount(Call c) {
        // getPositiveLongFromObjectOrReply: one message for a count that is not a number and a negative one.
        long count = c.longArg(2, "ERR value is out of range, must be positive");
        if (count < 0) throw new CommandError("ERR value is out of range, must be positive");
        Database db = c.db();
        byte[] key = c.arg(1);
        SetValue set = writeSet(db, key);
        Reply r = c.reply();
        if (set == null || count == 0) {
            r.set(0);
            return;
        }
        int size = set.size();
        c.notify(KeyspaceEvents.SET, "spop", key);
        if (count >= size) {
            replyMembers(r, set);
            db.delete(key);
            c.notify(KeyspaceEvents.GENERIC, "del", key);
            c.propagateAs(PropagatedCommands.DEL, key);
            return;
        }
        // Propagated as one SREM per member popped, as Redis does (a random pick must not be replayed).
        c.preventPropagation();
        r.set((int) count);
        long remaining = size - count;
        if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
            for (long i = 0; i < count; i++) {
                byte[] m;
                if (set.isIntset()) {
                    long v = set.randomInt();
                    set.remove(v);
                    r.bulk(v);
                    m = PropagatedCommands.number(v);
                } else {
                    m = set.randomMember();
                    set.remove(m);
                    r.bulk(m);
                }
                c.alsoPropagate(PropagatedCommands.SREM, key, m);
            }
            modified(db, key);
        } else {
            // Move the few survivors into a new set (it may come out as an intset), reply the rest.
            SetValue survivors = null;
            long max = maxIntsetEntries(c);
            for (long i = 0; i < remaining; i++) {
                byte[] m = set.randomMember();
                if (survivors == null) survivors = SetValue.forMember(m);
                survivors.add(m, max);
                set.remove(m);
            }
            replyElements(r, set);
            set.forEach(m -> c.alsoPropagate(PropagatedCommands.SREM, key, m));
            db.setKeepTtl(key, survivors);
        }
    }

    /** SRANDMEMBER key [count] */
    private void srandmember(Call c) {
        if (c.argCount() > 3) throw CommandError.syntax();
        if (c.argCount() == 3) {
            srandmemberCount(c);
            return;
        }
        SetValue set = readSet(c.db(), c.arg(1));
        if (set == null) c.reply().nullBulk();
        else if (set.isIntset()) c.reply().bulk(set.randomInt());
        else c.reply().bulk(set.randomMember());
    }

    /** SRANDMEMBER key count: negative counts may repeat members; Redis's four cases. */
    private void srandmemberCount(Call c) {
        long l = c.longArg(2);
        if (l == Long.MIN_VALUE) {
            throw new CommandError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        }
        boolean unique = l >= 0;
        long count = Math.abs(l);
        SetValue set = readSet(c.db(), c.arg(1));
        Reply r = c.reply();
        if (set == null || count == 0) {
            r.emptyArray();
            return;
        }
        int size = set.size();
        if (!unique || count == 1) {
            UnboundedReply out = UnboundedReply.of(c, count);
            out.array(count);
            for (long i = 0; i < count && !out.full(i); i++) {
                if (set.isIntset()) r.bulk(set.randomInt()); else r.bulk(set.randomMember());
            }
            return;
        }
        if (count >= size) {
            r.array(size);
            replyElements(r, set);
            return;
        }
        if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
            // Copy everything, then drop random members down to count.
            List<byte[]> all = new ArrayList<>(size);
            set.forEach(all::add);
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            while (all.size() > count) {
                int i = rnd.nextInt(all.size());
                all.set(i, all.get(all.size() - 1));
                all.remove(all.size() - 1);
            }
            r.array(all.size());
            for (byte[] m : all) r.bulk(m);
            return;
        }
        BytesSet picked = new BytesSet((int) count);
        while (picked.size() < count) picked.add(set.randomMember());
        r.array(picked.size());
        picked.forEach(r::bulk);
    }

    // ---- multi-set operations ----

    /** SINTERCARD numkeys key [key ...] [LIMIT limit] */
    private void sintercard(Call c) {
        String numkeysError = "ERR numkeys should be greater than 0";
        long numkeys = c.longArg(1, numkeysError);
        if (numkeys < 1) throw new CommandError(numkeysError);
        if (numkeys > c.argCount() - 2) throw new CommandError("ERR Number of keys can't be greater than number of args");
        long limit = 0;
        for (int i = 2 + (int) numkeys; i < c.argCount(); i++) {
            if (c.argIs(i, "LIMIT") && i + 1 < c.argCount()) {
                String limitError = "ERR LIMIT can't be negative";
                limit = c.longArg(++i, limitError);
                if (limit < 0) throw new CommandError(limitError);
            } else {
                throw CommandError.syntax();
            }
        }
        sinter(c, 2, 2 + (int) numkeys, null, true, limit);
    }

    /**
     * SINTER / SMEMBERS / SINTERSTORE / SINTERCARD over the keys in args [from, to): walks the
     * smallest set and keeps members every other set has. limit (SINTERCARD) 0 = no limit.
     */
    private void sinter(Call c, int from, int to, byte[] dstKey, boolean cardinalityOnly, long limit) {
        Database db = c.db();
        int n = to - from;
        SetValue[] sets = new SetValue[n];
        boolean empty = false;
        for (int j = 0; j < n; j++) {
            sets[j] = readSet(db, c.arg(from + j));
            if (sets[j] == null) empty = true;
        }
        Reply r = c.reply();
        if (empty) {
            if (dstKey != null) {
                if (db.delete(dstKey)) c.notify(KeyspaceEvents.GENERIC, "del", dstKey);
                r.integer(0);
            } else if (cardinalityOnly) {
                r.integer(0);
            } else {
                r.set(0);
            }
            return;
        }
        if (n == 1 && dstKey == null && !cardinalityOnly) {
            replyMembers(r, sets[0]);
            return;
        }
        Arrays.sort(sets, Comparator.comparingInt(SetValue::size));
        SetValue first = sets[0];
        long cardinality = 0;
        List<byte[]> found = cardinalityOnly ? null : new ArrayList<>();
        IntSet ints = first.intset();
        if (ints != null) {
            for (int i = 0; i < ints.size(); i++) {
                long v = ints.get(i);
                if (!inAllOthers(sets, v)) continue;
                cardinality++;
                if (found != null) found.add(Numbers.toBytes(v));
                if (limit > 0 && cardinality >= limit) break;
            }
        } else {
            long[] card = {0};
            first.forEach(m -> {
                if (limit > 0 && card[0] >= limit) return;
                if (!inAllOthers(sets, m)) return;
                card[0]++;
                if (found != null) found.add(m);
            });
            cardinality = card[0];
        }
        if (cardinalityOnly) {
            r.integer(cardinality);
        } else if (dstKey == null) {
            r.set(found.size());
            for (byte[] m : found) r.bulk(m);
        } else {
            SetValue result = SetValue.empty();
            long max = maxIntsetEntries(c);
            for (byte[] m : found) result.add(m, max);
            store(c, dstKey, result, "sinterstore");
        }
    }

    private static boolean inAllOthers(SetValue[] sets, long v) {
        for (int j = 1; j < sets.length; j++) {
            if (sets[j] != sets[0] && !sets[j].contains(v)) return false;
        }
        return true;
    }

    private static boolean inAllOthers(SetValue[] sets, byte[] m) {
        for (int j = 1; j < sets.length; j++) {
            if (sets[j] != sets[0] && !sets[j].contains(m)) return false;
        }
        return true;
    }

    /**
     * SUNION / SUNIONSTORE / SDIFF / SDIFFSTORE over the keys from args[from] on; missing keys are
     * empty sets. The result is built as Redis builds it (an intset until a member or the size
     * says otherwise), so it comes out, and is stored, in the same encoding. DIFF takes the
     * algorithm Redis picks: the same members either way, but the second adds all of the first
     * set before it removes, and a set the additions made a hash table stays one (SDIFFSTORE of
     * 520 integers minus 30 of them in three sets: a hash table of 490 in Redis).
     */
    private void sunionDiff(Call c, int from, byte[] dstKey, Op op) {
        Database db = c.db();
        int n = c.argCount() - from;
        SetValue[] sets = new SetValue[n];
        boolean sameSet = false;
        for (int j = 0; j < n; j++) {
            sets[j] = readSet(db, c.arg(from + j));
            if (j > 0 && sets[j] != null && sets[j] == sets[0]) sameSet = true;
        }
        long max = maxIntsetEntries(c);
        SetValue result = SetValue.empty();
        if (op == Op.UNION) {
            for (SetValue s : sets) if (s != null) addAll(result, s, max);
        } else if (sets[0] != null && !sameSet && addsAllFirst(sets)) {
            addAll(result, sets[0], max);
            for (int j = 1; j < n; j++) if (sets[j] != null) removeAll(result, sets[j]);
        } else if (sets[0] != null && !sameSet) {
            IntSet ints = sets[0].intset();
            if (ints != null) {
                for (int i = 0; i < ints.size(); i++) {
                    long v = ints.get(i);
                    if (!inAnyOther(sets, v)) result.add(v, max);
                }
            } else {
                sets[0].forEach(m -> {
                    if (!inAnyOther(sets, m)) result.add(m, max);
                });
            }
        }
        if (dstKey == null) replyMembers(c.reply(), result);
        else store(c, dstKey, result, op == Op.UNION ? "sunionstore" : "sdiffstore");
    }

    /**
     * Redis's choice of DIFF algorithm 2 (t_set.c): the first set's size once per set given,
     * halved (algorithm 1's advantage), against all the sets' sizes.
     */
    private static boolean addsAllFirst(SetValue[] sets) {
        long one = 0, two = 0;
        for (SetValue s : sets) {
            if (s == null) continue;
            one += sets[0].size();
            two += s.size();
        }
        return one / 2 > two;
    }

    private static void removeAll(SetValue from, SetValue members) {
        forEachMember(members, from::remove, from::remove);
    }

    private static void addAll(SetValue into, SetValue from, long max) {
        forEachMember(from, v -> into.add(v, max), m -> into.add(m, max));
    }

    private static boolean inAnyOther(SetValue[] sets, long v) {
        for (int j = 1; j < sets.length; j++) if (sets[j] != null && sets[j].contains(v)) return true;
        return false;
    }

    private static boolean inAnyOther(SetValue[] sets, byte[] m) {
        for (int j = 1; j < sets.length; j++) if (sets[j] != null && sets[j].contains(m)) return true;
        return false;
    }

    /** *STORE: a non-empty result replaces dstKey (dropping its TTL), an empty one deletes it. */
    private static void store(Call c, byte[] dstKey, SetValue result, String event) {
        Database db = c.db();
        c.reply().integer(result.size());
        if (result.size() > 0) {
            db.set(dstKey, result);
            c.notify(KeyspaceEvents.SET, event, dstKey);
        } else if (db.delete(dstKey)) {
            c.notify(KeyspaceEvents.GENERIC, "del", dstKey);
        }
    }

    // ---- SSCAN ----

    /** SSCAN key cursor [MATCH pattern] [COUNT count] */
    private void sscan(Call c) {
        ScanArgs.parseCursor(c.arg(2));
        SetValue set = readSet(c.db(), c.arg(1));
        Reply r = c.reply();
        if (set == null) {
            r.array(2);
            r.bulk("0");
            r.emptyArray();
            return;
        }
        ScanArgs a = ScanArgs.parse(c, 2, false);
        List<byte[]> visited = new ArrayList<>();
        long cursor = 0;
        if (set.isIntset()) {
            // Small encodings are returned whole with cursor 0, as Redis does.
            set.forEach(visited::add);
        } else {
            cursor = a.cursor;
            long maxIterations = a.count * 10;
            do {
                cursor = set.scan(cursor, visited::add);
            } while (cursor != 0 && maxIterations-- != 0 && visited.size() < a.count);
        }
        int matched = 0;
        for (int i = 0; i < visited.size(); i++) {
            if (a.matches(visited.get(i))) visited.set(matched++, visited.get(i));
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(cursor));
        r.array(matched);
        for (int i = 0; i < matched; i++) r.bulk(visited.get(i));
    }

    // ---- replies ----

    /** The whole set as a RESP3 set (array in RESP2). */
    private static void replyMembers(Reply r, SetValue set) {
        r.set(set.size());
        replyElements(r, set);
    }

    /** Every member, intset values written without formatting them first. */
    private static void replyElements(Reply r, SetValue set) {
        forEachMember(set, r::bulk, r::bulk);
    }

    /** Every member of set: an intset's values as numbers (not formatted first), others as bytes. */
    private static void forEachMember(SetValue set, LongConsumer ints, Consumer<byte[]> members) {
        IntSet values = set.intset();
        if (values != null) {
            for (int i = 0; i < values.size(); i++) ints.accept(values.get(i));
        } else {
            set.forEach(members);
        }
    }
}
