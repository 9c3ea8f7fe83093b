package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.keyspace.TypedValue;
import io.cinnabar.keyspace.ValueType;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.INSERT;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RM;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** Generic key commands: existence, deletion, naming, iteration, copying and introspection. */
public final class KeyCommands implements CommandFamily {
    private static final String SAME_OBJECT = "ERR source and destination objects are the same";
    private static final String DB_OUT_OF_RANGE = "ERR DB index is out of range";
    /** Redis's OBJ_SHARED_INTEGERS. */
    private static final long SHARED_INTEGERS = 10000;
    /** OBJ_SHARED_REFCOUNT: what OBJECT REFCOUNT says of a shared integer. */
    private static final long SHARED_REFCOUNT = Integer.MAX_VALUE;

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("DEL", -2, WRITE).keys(at(1, RM, DELETE).range(-1, 1)).tips("request_policy:multi_shard", "response_policy:agg_sum")
                .doc("1.0.0", "Delete a key",
                        "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1)."),
                c -> del(c, c.config().getBool(ConfigOptions.LAZYFREE_LAZY_USER_DEL)));
        t.add(spec("UNLINK", -2, WRITE, FAST).keys(at(1, RM, DELETE).range(-1, 1)).tips("request_policy:multi_shard", "response_policy:agg_sum")
                .doc("4.0.0", "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
                        "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of."), c -> del(c, true));
        t.add(spec("EXISTS", -2, READONLY, FAST).keys(at(1, RO).range(-1, 1)).tips("request_policy:multi_shard", "response_policy:agg_sum")
                .doc("1.0.0", "Determine if a key exists", "O(N) where N is the number of keys to check.")
                .history("3.0.3", "Accepts multiple `key` arguments."), this::exists);
        t.add(spec("TYPE", 2, READONLY, FAST).keys(at(1, RO)).doc("1.0.0", "Determine the type stored at key", "O(1)"), this::type);
        t.add(spec("KEYS", 2, READONLY).tips("request_policy:all_shards", "nondeterministic_output_order").acl("@dangerous")
                .doc("1.0.0", "Find all keys matching the given pattern",
                        "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length."), this::keys);
        t.add(spec("SCAN", -2, READONLY).tips("nondeterministic_output", "request_policy:special").touchesArbitraryKeys()
                .doc("2.8.0", "Incrementally iterate the keys space",
                        "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.")
                .history("6.0.0", "Added the `TYPE` subcommand."), this::scan);
        t.add(spec("RANDOMKEY", 1, READONLY).tips("request_policy:all_shards", "nondeterministic_output").touchesArbitraryKeys()
                .doc("1.0.0", "Return a random key from the keyspace", "O(1)"), this::randomKey);
        t.add(spec("RENAME", 3, WRITE).keys(at(1, RW, ACCESS, DELETE), at(2, OW, UPDATE))
                .doc("1.0.0", "Rename a key", "O(1)"), c -> rename(c, false));
        t.add(spec("RENAMENX", 3, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE), at(2, OW, INSERT))
                .doc("1.0.0", "Rename a key, only if the new key does not exist", "O(1)")
                .history("3.2.0", "The command no longer returns an error when source and destination names are the same."), c -> rename(c, true));
        t.add(spec("MOVE", 3, WRITE, FAST).keys(at(1, RW, ACCESS, UPDATE)).doc("1.0.0", "Move a key to another database", "O(1)"), this::move);
        t.add(spec("COPY", -3, WRITE, DENYOOM).keys(at(1, RO, ACCESS), at(2, OW, UPDATE)).doc("6.2.0", "Copy a key",
                        "O(N) worst case for collections, where N is the number of nested items. O(1) for string values."), this::copy);
        t.add(spec("TOUCH", -2, READONLY, FAST).keys(at(1, RO).range(-1, 1)).tips("request_policy:multi_shard", "response_policy:agg_sum")
                .doc("3.2.1", "Alters the last access time of a key(s). Returns the number of existing keys specified.",
                        "O(N) where N is the number of keys that will be touched."), this::touch);
        t.add(spec("OBJECT", -2).doc("2.2.3", "A container for object introspection commands", "Depends on subcommand.")
                .sub(spec("ENCODING", 3, READONLY).keys(at(2, RO)).tips("nondeterministic_output")
                        .doc("2.2.3", "Inspect the internal encoding of a Redis object", "O(1)"), this::objectEncoding)
                .sub(spec("REFCOUNT", 3, READONLY).keys(at(2, RO)).tips("nondeterministic_output")
                        .doc("2.2.3", "Get the number of references to the value of the key", "O(1)"), this::objectRefcount)
                .sub(spec("IDLETIME", 3, READONLY).keys(at(2, RO)).tips("nondeterministic_output")
                        .doc("2.2.3", "Get the time since a Redis object was last accessed", "O(1)"), this::objectIdletime)
                .sub(spec("FREQ", 3, READONLY).keys(at(2, RO)).tips("nondeterministic_output")
                        .doc("4.0.0", "Get the logarithmic access frequency counter of a Redis object", "O(1)"), this::objectFreq)
                .sub(spec("HELP", 2, LOADING, STALE)
                        .doc("6.2.0", "Show helpful text about the different subcommands", "O(1)"), this::objectHelp), null);
    }

    /** DEL key [key ...] and UNLINK key [key ...]: lazy counts big values as freed lazily (see LazyFree). */
    private void del(Call c, boolean lazy) {
        Database db = c.db();
        long n = 0;
        for (int i = 1; i < c.argCount(); i++) {
            Object value = db.deleteValue(c.arg(i));
            if (value == null) continue;
            if (lazy) c.keyspace().lazyFree().dropped(value);
            c.notify(KeyspaceEvents.GENERIC, "del", c.arg(i));
            n++;
        }
        c.reply().integer(n);
    }

    /** EXISTS key [key ...] */
    private void exists(Call c) {
        Database db = c.db();
        long n = 0;
        for (int i = 1; i < c.argCount(); i++) if (db.peek(c.arg(i)) != null) n++;
        c.reply().integer(n);
    }

    /** TOUCH key [key ...] */
    private void touch(Call c) {
        Database db = c.db();
        long n = 0;
        for (int i = 1; i < c.argCount(); i++) if (db.read(c.arg(i)) != null) n++;
        c.reply().integer(n);
    }

    /** TYPE key */
    private void type(Call c) {
        Entry e = c.db().peek(c.arg(1));
        c.reply().simple(e == null ? "none" : ValueType.of(e.value()).typeName());
    }

    /** KEYS pattern — expired keys not yet reclaimed are left alone but not listed. */
    private void keys(Call c) {
        Database db = c.db();
        byte[] pattern = c.arg(1);
        GlobMatcher.Compiled glob = GlobMatcher.matchesAll(pattern) ? null : GlobMatcher.compile(pattern, false);
        List<byte[]> found = new ArrayList<>();
        db.forEach(e -> {
            if ((glob == null || e.keyMatches(glob)) && !db.isExpired(e)) found.add(e.key());
        });
        replyKeys(c.reply(), found);
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] */
    private void scan(Call c) {
        ScanArgs a = ScanArgs.parse(c, 1, true);
        long cursor = a.cursor;
        Database db = c.db();
        List<Entry> visited = new ArrayList<>();
        // As Redis: up to ten buckets per requested key, so sparse tables don't block for long.
        long maxIterations = a.count * 10;
        do {
            cursor = db.scanStep(cursor, visited::add);
        } while (cursor != 0 && maxIterations-- != 0 && visited.size() < a.count);

        List<byte[]> keys = new ArrayList<>(visited.size());
        for (Entry e : visited) {
            if (!a.matches(e)) continue;
            if (a.typeName != null) {
                // Redis looks the type up through an expiring lookup: a stale key is type "none".
                boolean stale = db.reclaimIfExpired(e);
                String type = stale ? "none" : ValueType.of(e.value()).typeName();
                if (!equalsIgnoreCase(a.typeName, type)) continue;
                if (stale) {
                    keys.add(e.key());
                    continue;
                }
            }
            if (db.reclaimIfExpired(e)) continue;
            keys.add(e.key());
        }
        Reply r = c.reply();
        r.array(2);
        r.bulk(Long.toUnsignedString(cursor));
        replyKeys(r, keys);
    }

    /** RANDOMKEY */
    private void randomKey(Call c) {
        byte[] key = c.db().randomKey();
        if (key == null) c.reply().nullBulk(); else c.reply().bulk(key);
    }

    /** RENAME key newkey / RENAMENX key newkey — the TTL travels with the value. */
    private void rename(Call c, boolean nx) {
        Database db = c.db();
        byte[] from = c.arg(1), to = c.arg(2);
        Entry e = db.lookupForWrite(from);
        if (e == null) throw new CommandError(CommandError.NO_SUCH_KEY);
        if (Arrays.equals(from, to)) {
            if (nx) c.reply().integer(0); else c.reply().ok();
            return;
        }
        // Looked up even without NX so a stale destination is reclaimed (and counted) as expired.
        if (db.lookupForWrite(to) != null && nx) {
            c.reply().integer(0);
            return;
        }
        db.putFrom(to, e.value(), e, true);
        db.delete(from);
        c.notify(KeyspaceEvents.GENERIC, "rename_from", from);
        c.notify(KeyspaceEvents.GENERIC, "rename_to", to);
        if (nx) c.reply().integer(1); else c.reply().ok();
    }

    /** MOVE key db */
    private void move(Call c) {
        if (c.server().cluster() != null) throw new CommandError("ERR MOVE is not allowed in cluster mode");
        Database src = c.db();
        Database dst = targetDb(c, 2);
        if (src == dst) throw new CommandError(SAME_OBJECT);
        byte[] key = c.arg(1);
        Entry e = src.lookupForWrite(key);
        if (e == null || dst.lookupForWrite(key) != null) {
            c.reply().integer(0);
            return;
        }
        dst.putFrom(key, e.value(), e, true);
        src.delete(key);
        c.notify(KeyspaceEvents.GENERIC, "move_from", key, src.id());
        c.notify(KeyspaceEvents.GENERIC, "move_to", key, dst.id());
        c.reply().integer(1);
    }

    /** COPY source destination [DB destination-db] [REPLACE] */
    private void copy(Call c) {
        Database src = c.db(), dst = src;
        boolean replace = false;
        for (int i = 3; i < c.argCount(); i++) {
            if (c.argIs(i, "REPLACE")) {
                replace = true;
            } else if (c.argIs(i, "DB") && i + 1 < c.argCount()) {
                dst = targetDb(c, ++i);
            } else {
                throw CommandError.syntax();
            }
        }
        if (c.server().cluster() != null && (src.id() != 0 || dst.id() != 0)) {
            throw new CommandError("ERR Copying to another database is not allowed in cluster mode");
        }
        byte[] from = c.arg(1), to = c.arg(2);
        if (src == dst && Arrays.equals(from, to)) throw new CommandError(SAME_OBJECT);
        Object value = src.read(from);
        if (value == null) {
            c.reply().integer(0);
            return;
        }
        Entry e = src.lookup(from);
        if (dst.lookupForWrite(to) != null && !replace) {
            c.reply().integer(0);
            return;
        }
        // Stored strings are never mutated, so a copy may share the bytes.
        Object copy = value instanceof TypedValue ? ((TypedValue) value).copy() : value;
        dst.putFrom(to, copy, e, false);
        if (copy instanceof byte[]) dst.markPrivateCopy(to);
        c.notify(KeyspaceEvents.GENERIC, "copy_to", to, dst.id());
        c.reply().integer(1);
    }

    /** The database named by argument i, with Redis's getIntFromObjectOrReply + selectDb errors. */
    private static Database targetDb(Call c, int i) {
        int id = c.intArg(i);
        if (id < 0 || id >= c.keyspace().databaseCount()) throw new CommandError(DB_OUT_OF_RANGE);
        return c.keyspace().db(id);
    }

    // ---- OBJECT ----

    /** OBJECT ENCODING key */
    private void objectEncoding(Call c) {
        Entry e = c.db().inspect(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        Object v = e.value();
        c.reply().bulk(v instanceof TypedValue ? ((TypedValue) v).encoding() : e.stringEncoding());
    }

    /** OBJECT REFCOUNT key — small integers are shared objects in Redis unless an LRU/LFU policy is set. */
    private void objectRefcount(Call c) {
        Entry e = c.db().inspect(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        long refcount = 1;
        if (e.value() instanceof byte[] s && s.length <= 5 && sharesIntegers(c) && !e.privateCopy() && e.stringEncoding().equals("int")) {
            long n = Numbers.parseLongOr(s, -1);
            if (n >= 0 && n < SHARED_INTEGERS) refcount = SHARED_REFCOUNT;
        }
        if (refcount == 1 && e.value() instanceof byte[] s && isArgumentOfRunningExec(c, s)) refcount = 2;
        c.reply().integer(refcount);
    }

    /**
     * A string SET, MSET... stored inside the EXEC running now is still one of its queued
     * arguments (INCRBYFLOAT's result one of its rewritten ones): Redis stores the argument object
     * itself and frees the queued commands only when EXEC ends, so until then it counts two references.
     */
    private static boolean isArgumentOfRunningExec(Call c, byte[] value) {
        List<byte[][]> commands = c.client().executing();
        return commands != null && (holds(commands, value) || holds(c.client().execRewrites(), value));
    }

    private static boolean holds(List<byte[][]> commands, byte[] value) {
        for (byte[][] args : commands) {
            for (byte[] a : args) if (a == value) return true;
        }
        return false;
    }

    private static boolean sharesIntegers(Call c) {
        String policy = c.config().getString(ConfigOptions.MAXMEMORY_POLICY);
        return c.config().getLong(ConfigOptions.MAXMEMORY) == 0 || !(policy.endsWith("-lru") || policy.endsWith("-lfu"));
    }

    private static boolean lfuPolicy(Call c) {
        return c.config().getString(ConfigOptions.MAXMEMORY_POLICY).endsWith("-lfu");
    }

    /** OBJECT IDLETIME key — does not itself count as an access. */
    private void objectIdletime(Call c) {
        Entry e = c.db().inspect(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        if (lfuPolicy(c)) {
            throw new CommandError("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
                    + "when switching between policies at runtime LRU and LFU data will take some time to adjust.");
        }
        c.reply().integer(c.keyspace().idleSeconds(e));
    }

    /** OBJECT FREQ key */
    private void objectFreq(Call c) {
        Entry e = c.db().inspect(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        if (!lfuPolicy(c)) {
            throw new CommandError("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
                    + "note that when switching between policies at runtime LRU and LFU data will take some time to adjust.");
        }
        c.reply().integer(c.keyspace().lfuFrequency(e));
    }

    /** OBJECT HELP */
    private void objectHelp(Call c) {
        String[] lines = {
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>."
        };
        HelpReply.reply(c, lines);
    }

    private static void replyKeys(Reply r, List<byte[]> keys) {
        r.array(keys.size());
        for (byte[] k : keys) r.bulk(k);
    }

    private static boolean equalsIgnoreCase(byte[] a, String b) {
        return new String(a, StandardCharsets.ISO_8859_1).equalsIgnoreCase(b);
    }
}
