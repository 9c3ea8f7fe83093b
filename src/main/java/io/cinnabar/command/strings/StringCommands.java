package io.cinnabar.command.strings;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.GrowableString;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Reply;
import io.cinnabar.protocol.RespConstants;
import io.cinnabar.util.LongDouble;
import io.cinnabar.util.Numbers;
import io.cinnabar.util.ShortDecimalSum;

import java.nio.charset.StandardCharsets;

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
import static io.cinnabar.command.KeyFlag.VARIABLE_FLAGS;
import static io.cinnabar.command.KeySpec.at;

/** String commands (t_string.c). */
public final class StringCommands implements CommandFamily {
    // Option bits of SET and GETEX, as parseExtendedStringArgumentsOrReply knows them.
    private static final int NX = 1, XX = 1 << 1, GET = 1 << 2, KEEPTTL = 1 << 3, PERSIST = 1 << 4;
    private static final int EX = 1 << 5, PX = 1 << 6, EXAT = 1 << 7, PXAT = 1 << 8;
    private static final int ANY_EXPIRE = EX | PX | EXAT | PXAT;
    private static final byte[] EMPTY = new byte[0];
    private static final byte[] MATCHES = "matches".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LEN = "len".getBytes(StandardCharsets.US_ASCII);

    @Override
    public String group() {
        return "string";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("GET", 2, READONLY, FAST).keys(at(1, RO, ACCESS)).doc("1.0.0", "Get the value of a key", "O(1)"), this::get);
        t.add(spec("SET", -3, WRITE, DENYOOM)
                .keys(at(1, RW, ACCESS, UPDATE, VARIABLE_FLAGS).notes("RW and ACCESS due to the optional `GET` argument"))
                .keyFinder(KeyProcs::set).doc("1.0.0", "Set the string value of a key", "O(1)")
                .history("2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options.",
                        "6.0.0", "Added the `KEEPTTL` option.",
                        "6.2.0", "Added the `GET`, `EXAT` and `PXAT` option.",
                        "7.0.0", "Allowed the `NX` and `GET` options to be used together."), this::set);
        t.add(spec("SETNX", 3, WRITE, DENYOOM, FAST).keys(at(1, OW, INSERT))
                .doc("1.0.0", "Set the value of a key, only if the key does not exist", "O(1)"), this::setnx);
        t.add(spec("SETEX", 4, WRITE, DENYOOM).keys(at(1, OW, UPDATE))
                .doc("2.0.0", "Set the value and expiration of a key", "O(1)"), c -> setex(c, true));
        t.add(spec("PSETEX", 4, WRITE, DENYOOM).keys(at(1, OW, UPDATE))
                .doc("2.6.0", "Set the value and expiration in milliseconds of a key", "O(1)"), c -> setex(c, false));
        t.add(spec("GETEX", -2, WRITE, FAST).keys(at(1, RW, ACCESS, UPDATE).notes("RW and UPDATE because it changes the TTL"))
                .doc("6.2.0", "Get the value of a key and optionally set its expiration", "O(1)"), this::getex);
        t.add(spec("GETDEL", 2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE))
                .doc("6.2.0", "Get the value of a key and delete the key", "O(1)"), this::getdel);
        t.add(spec("GETSET", 3, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.0.0", "Set the string value of a key and return its old value", "O(1)")
                .deprecated("6.2.0", "`SET` with the `!GET` argument"), this::getset);
        t.add(spec("MGET", -2, READONLY, FAST).keys(at(1, RO, ACCESS).range(-1, 1)).tips("request_policy:multi_shard")
                .doc("1.0.0", "Get the values of all the given keys", "O(N) where N is the number of keys to retrieve."), this::mget);
        t.add(spec("MSET", -3, WRITE, DENYOOM).keys(at(1, OW, UPDATE).range(-1, 2))
                .tips("request_policy:multi_shard", "response_policy:all_succeeded")
                .doc("1.0.1", "Set multiple keys to multiple values", "O(N) where N is the number of keys to set."), c -> mset(c, false));
        t.add(spec("MSETNX", -3, WRITE, DENYOOM).keys(at(1, OW, INSERT).range(-1, 2)).tips("request_policy:multi_shard", "response_policy:agg_min")
                .doc("1.0.1", "Set multiple keys to multiple values, only if none of the keys exist",
                        "O(N) where N is the number of keys to set."), c -> mset(c, true));
        t.add(spec("APPEND", 3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT)).doc("2.0.0", "Append a value to a key",
                        "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation."), this::append);
        t.add(spec("STRLEN", 2, READONLY, FAST).keys(at(1, RO))
                .doc("2.2.0", "Get the length of the value stored in a key", "O(1)"), this::strlen);
        t.add(spec("GETRANGE", 4, READONLY).keys(at(1, RO, ACCESS))
                .doc("2.4.0", "Get a substring of the string stored at a key",
                        "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings."), this::getrange);
        t.add(spec("SUBSTR", 4, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.0.0", "Get a substring of the string stored at a key",
                        "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.")
                .deprecated("2.0.0", "`GETRANGE`"), this::getrange);
        t.add(spec("SETRANGE", 4, WRITE, DENYOOM).keys(at(1, RW, UPDATE))
                .doc("2.2.0", "Overwrite part of a string at key starting at the specified offset",
                        "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument."), this::setrange);
        t.add(spec("INCR", 2, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.0.0", "Increment the integer value of a key by one", "O(1)"), c -> incrBy(c, 1));
        t.add(spec("DECR", 2, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.0.0", "Decrement the integer value of a key by one", "O(1)"), c -> incrBy(c, -1));
        t.add(spec("INCRBY", 3, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.0.0", "Increment the integer value of a key by the given amount", "O(1)"), c -> incrBy(c, c.longArg(2)));
        t.add(spec("DECRBY", 3, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("1.0.0", "Decrement the integer value of a key by the given number", "O(1)"), this::decrby);
        t.add(spec("INCRBYFLOAT", 3, WRITE, DENYOOM, FAST).keys(at(1, RW, ACCESS, UPDATE))
                .doc("2.6.0", "Increment the float value of a key by the given amount", "O(1)"), this::incrbyfloat);
        t.add(spec("LCS", -3, READONLY).keys(at(1, RO, ACCESS).range(1, 1))
                .doc("7.0.0", "Find longest common substring", "O(N*M) where N and M are the lengths of s1 and s2, respectively"), this::lcs);
    }

    /** GET key */
    private void get(Call c) {
        Entry e = c.db().getStringEntry(c.arg(1));
        if (e == null) c.reply().nullBulk(); else bulkString(c.reply(), e);
    }

    /** Replies e's string from where it lies: a string packed with its key is not copied out first. */
    private static void bulkString(Reply r, Entry e) {
        byte[] a = e.stringArray();
        int start = e.stringStart();
        r.bulk(a, start, a.length - start);
    }

    // ---- SET and its variants ----

    /** SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] */
    private void set(Call c) {
        long parsed = parseOptions(c, true);
        setGeneric(c, (int) parsed, (int) (parsed >>> 32), null, null);
    }

    /** SETNX key value */
    private void setnx(Call c) {
        setGeneric(c, NX, 0, RespConstants.ONE, RespConstants.ZERO);
    }

    /** SETEX key seconds value | PSETEX key milliseconds value */
    private void setex(Call c, boolean seconds) {
        // SETEX's value sits after the time, so swap the roles SET gives arguments 2 and 3.
        setGeneric(c, seconds ? EX : PX, 2, null, null, c.arg(3));
    }

    private void setGeneric(Call c, int flags, int expireIndex, byte[] okReply, byte[] abortReply) {
        setGeneric(c, flags, expireIndex, okReply, abortReply, c.arg(2));
    }

    /** Redis's setGenericCommand: the expire is validated first, then GET, then NX/XX. */
    private void setGeneric(Call c, int flags, int expireIndex, byte[] okReply, byte[] abortReply, byte[] value) {
        long when = expireIndex > 0 ? expireAt(c, expireIndex, flags) : 0;
        Database db = c.db();
        byte[] key = c.arg(1);
        Reply r = c.reply();
        if ((flags & GET) != 0) {
            byte[] old = db.getString(key);
            if (old == null) r.nullBulk(); else r.bulk(old);
        }
        boolean found = db.writeEntry(key) != null;
        if (((flags & NX) != 0 && found) || ((flags & XX) != 0 && !found)) {
            db.unchanged(key);
            c.preventPropagation();
            if ((flags & GET) == 0) {
                if (abortReply != null) r.raw(abortReply); else r.nullBulk();
            }
            return;
        }
        if ((flags & KEEPTTL) != 0) {
            db.setKeepTtl(key, value);
        } else if (expireIndex > 0) {
            // A time already past still stores the key; it is expired on next access, as in Redis.
            db.set(key, value, when);
            c.propagateAs(PropagatedCommands.SET, key, value, PropagatedCommands.PXAT, PropagatedCommands.number(when));
        } else {
            db.set(key, value);
        }
        c.notify(KeyspaceEvents.STRING, "set", key);
        if (expireIndex > 0) c.notify(KeyspaceEvents.GENERIC, "expire", key);
        if ((flags & GET) != 0 && expireIndex == 0) c.propagateAs(withoutGet(c.args()));
        if ((flags & GET) == 0) {
            if (okReply != null) r.raw(okReply); else r.ok();
        }
    }

    /** SET's argv without its GET option, which a replay has no use for. */
    private static byte[][] withoutGet(byte[][] argv) {
        byte[][] out = new byte[argv.length - 1][];
        int n = 0;
        for (int i = 0; i < argv.length; i++) {
            boolean get = i >= 3 && argv[i].length == 3 && (argv[i][0] | 32) == 'g' && (argv[i][1] | 32) == 'e'
                    && (argv[i][2] | 32) == 't';
            if (!get && n < out.length) out[n++] = argv[i];
        }
        return out;
    }

    /**
     * Redis's parseExtendedStringArgumentsOrReply for SET (NX XX GET KEEPTTL EX PX EXAT PXAT) or
     * GETEX (PERSIST EX PX EXAT PXAT). Returns the flags in the low word and the index of the
     * expire argument (0 if none) in the high word. Conflicting options are syntax errors.
     */
    private static long parseOptions(Call c, boolean forSet) {
        int flags = 0;
        int expireIndex = 0;
        int n = c.argCount();
        for (int j = forSet ? 3 : 2; j < n; j++) {
            boolean hasNext = j < n - 1;
            if (forSet && c.argIs(j, "NX") && (flags & XX) == 0) {
                flags |= NX;
            } else if (forSet && c.argIs(j, "XX") && (flags & NX) == 0) {
                flags |= XX;
            } else if (forSet && c.argIs(j, "GET")) {
                flags |= GET;
            } else if (forSet && c.argIs(j, "KEEPTTL") && (flags & (PERSIST | ANY_EXPIRE)) == 0) {
                flags |= KEEPTTL;
            } else if (!forSet && c.argIs(j, "PERSIST") && (flags & (KEEPTTL | ANY_EXPIRE)) == 0) {
                flags |= PERSIST;
            } else if (hasNext && (flags & (KEEPTTL | PERSIST)) == 0 && expireOption(c, j) != 0
                    && (flags & (ANY_EXPIRE & ~expireOption(c, j))) == 0) {
                flags |= expireOption(c, j);
                expireIndex = ++j;
            } else {
                throw CommandError.syntax();
            }
        }
        return ((long) expireIndex << 32) | flags;
    }

    private static int expireOption(Call c, int j) {
        if (c.argIs(j, "EX")) return EX;
        if (c.argIs(j, "PX")) return PX;
        if (c.argIs(j, "EXAT")) return EXAT;
        if (c.argIs(j, "PXAT")) return PXAT;
        return 0;
    }

    /**
     * Redis's getExpireMillisecondsOrReply: the absolute unix-ms expiry an EX/PX/EXAT/PXAT
     * argument names. Zero, negative and overflowing times are "invalid expire time" errors.
     */
    private static long expireAt(Call c, int index, int flags) {
        long v = c.longArg(index);
        boolean seconds = (flags & (EX | EXAT)) != 0;
        if (v <= 0 || (seconds && v > Long.MAX_VALUE / 1000)) throw invalidExpire(c);
        if (seconds) v *= 1000;
        if ((flags & (EX | PX)) != 0) v += c.mstime();
        if (v <= 0) throw invalidExpire(c);
        return v;
    }

    private static CommandError invalidExpire(Call c) {
        return new CommandError("ERR invalid expire time in '" + c.spec().fullName() + "' command");
    }

    // ---- GET variants ----

    /** GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST] */
    private void getex(Call c) {
        long parsed = parseOptions(c, false);
        int flags = (int) parsed;
        int expireIndex = (int) (parsed >>> 32);
        Database db = c.db();
        byte[] key = c.arg(1);
        byte[] value = db.getString(key);
        if (value == null) {
            c.reply().nullBulk();
            return;
        }
        long when = expireIndex > 0 ? expireAt(c, expireIndex, flags) : 0;
        c.reply().bulk(value);
        // Never propagated as sent: as DEL/UNLINK, PEXPIREAT or PERSIST, like Redis.
        if ((flags & (EXAT | PXAT)) != 0 && c.alreadyExpired(when)) {
            db.delete(key);
            c.propagateAs(PropagatedCommands.deletion(lazy(c, ConfigOptions.LAZYFREE_LAZY_EXPIRE)), key);
            c.notify(KeyspaceEvents.GENERIC, "del", key);
        } else if (expireIndex > 0) {
            db.setExpire(key, when);
            c.propagateAs(PropagatedCommands.PEXPIREAT, key, PropagatedCommands.number(when));
            c.notify(KeyspaceEvents.GENERIC, "expire", key);
        } else if ((flags & PERSIST) != 0) {
            if (db.persist(key)) c.notify(KeyspaceEvents.GENERIC, "persist", key);
            c.propagateAs(PropagatedCommands.PERSIST, key);
        }
    }

    /** GETDEL key */
    private void getdel(Call c) {
        byte[] value = c.db().getString(c.arg(1));
        if (value == null) {
            c.reply().nullBulk();
            return;
        }
        c.reply().bulk(value);
        c.db().delete(c.arg(1));
        c.propagateAs(PropagatedCommands.deletion(lazy(c, ConfigOptions.LAZYFREE_LAZY_USER_DEL)), c.arg(1));
        c.notify(KeyspaceEvents.GENERIC, "del", c.arg(1));
    }

    private static boolean lazy(Call c, io.cinnabar.config.ConfigOption option) {
        return c.config().getBool(option);
    }

    /** GETSET key value */
    private void getset(Call c) {
        Database db = c.db();
        byte[] old = db.getString(c.arg(1));
        if (old == null) c.reply().nullBulk(); else c.reply().bulk(old);
        db.set(c.arg(1), c.arg(2));
        c.propagateAs(PropagatedCommands.SET, c.arg(1), c.arg(2));
        c.notify(KeyspaceEvents.STRING, "set", c.arg(1));
    }

    /** MGET key [key ...]: keys of other types read as nil, not WRONGTYPE. */
    private void mget(Call c) {
        Database db = c.db();
        Reply r = c.reply();
        r.array(c.argCount() - 1);
        for (int i = 1; i < c.argCount(); i++) {
            Entry e = db.readEntry(c.arg(i));
            if (e != null && e.isString()) bulkString(r, e); else r.nullBulk();
        }
    }

    /** MSET key value [key value ...] | MSETNX key value [key value ...] */
    private void mset(Call c, boolean nx) {
        int n = c.argCount();
        if (n % 2 == 0) throw new CommandError("ERR wrong number of arguments for '" + c.spec().fullName() + "' command");
        Database db = c.db();
        if (nx) {
            for (int i = 1; i < n; i += 2) {
                if (db.write(c.arg(i)) != null) {
                    for (int k = 1; k <= i; k += 2) db.unchanged(c.arg(k));
                    c.reply().integer(0);
                    return;
                }
            }
        }
        for (int i = 1; i < n; i += 2) {
            db.set(c.arg(i), c.arg(i + 1));
            c.notify(KeyspaceEvents.STRING, "set", c.arg(i));
        }
        if (nx) c.reply().integer(1); else c.reply().ok();
    }

    // ---- editing ----

    /** APPEND key value */
    private void append(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        byte[] tail = c.arg(2);
        long old = StringValues.lengthBeforeEdit(db, key);
        if (old >= 0) StringValues.checkLength(c, old, tail.length);  // before the string is unshared
        GrowableString s = db.growable(key);
        if (s == null) {
            db.set(key, tail);
            c.notify(KeyspaceEvents.STRING, "append", key);
            c.reply().integer(tail.length);
            return;
        }
        // In place, with room to grow: n appends copy the string O(log n) times, as Redis's sds.
        s.append(tail);
        c.notify(KeyspaceEvents.STRING, "append", key);
        c.reply().integer(s.length());
    }

    /** STRLEN key */
    private void strlen(Call c) {
        Object value = c.db().getStringInPlace(c.arg(1));
        c.reply().integer(value == null ? 0 : StringValues.length(value));
    }

    /** GETRANGE key start end | SUBSTR key start end */
    private void getrange(Call c) {
        long start = c.longArg(2);
        long end = c.longArg(3);
        Object s = c.db().getStringInPlace(c.arg(1));
        if (s == null) {
            c.reply().bulk(EMPTY);
            return;
        }
        byte[] value = StringValues.bytes(s);
        long len = StringValues.length(s);
        if (start < 0 && end < 0 && start > end) {
            c.reply().bulk(EMPTY);
            return;
        }
        if (start < 0) start = len + start;
        if (end < 0) end = len + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= len) end = len - 1;
        if (start > end || len == 0) c.reply().bulk(EMPTY);
        else c.reply().bulk(value, (int) start, (int) (end - start + 1));
    }

    /** SETRANGE key offset value */
    private void setrange(Call c) {
        long offset = c.longArg(2);
        if (offset < 0) throw new CommandError("ERR offset is out of range");
        Database db = c.db();
        byte[] key = c.arg(1);
        byte[] patch = c.arg(3);
        if (patch.length == 0) {
            // As Redis, an empty patch leaves the string (and its encoding) alone.
            byte[] old = StringValues.forWrite(db, key);
            db.unchanged(key);
            c.reply().integer(old == null ? 0 : old.length);
            return;
        }
        StringValues.lengthBeforeEdit(db, key);  // WRONGTYPE, then the length, then the string unshared
        StringValues.checkLength(c, offset, patch.length);
        GrowableString s = db.growable(key);
        int end = (int) (offset + patch.length);
        if (s == null) {
            byte[] created = new byte[end];
            System.arraycopy(patch, 0, created, (int) offset, patch.length);
            db.setRawKeepTtl(key, created);
        } else {
            System.arraycopy(patch, 0, s.writable(end), (int) offset, patch.length);
        }
        c.notify(KeyspaceEvents.STRING, "setrange", key);
        c.reply().integer(s == null ? end : s.length());
    }

    // ---- counters ----

    /** INCR key | DECR key | INCRBY key increment | DECRBY key decrement (negated) */
    private void incrBy(Call c, long delta) {
        Database db = c.db();
        byte[] key = c.arg(1);
        Entry old = db.writeEntry(key);
        long value = 0;
        if (old != null) {
            if (!old.isString()) throw WrongTypeException.INSTANCE;
            byte[] a = old.stringArray();
            int start = old.stringStart();
            long[] out = new long[1];
            if (!Numbers.parseLong(a, start, a.length - start, out)) throw CommandError.notInteger();
            value = out[0];
        }
        if ((delta < 0 && value < 0 && delta < Long.MIN_VALUE - value)
                || (delta > 0 && value > 0 && delta > Long.MAX_VALUE - value)) {
            throw new CommandError("ERR increment or decrement would overflow");
        }
        value += delta;
        if (old == null || !db.overwriteInteger(old, value)) db.setKeepTtl(key, StringValues.decimal(value));
        c.notify(KeyspaceEvents.STRING, "incrby", key);
        c.reply().integer(value);
    }

    /** DECRBY key decrement */
    private void decrby(Call c) {
        long decrement = c.longArg(2);
        if (decrement == Long.MIN_VALUE) throw new CommandError("ERR decrement would overflow");
        incrBy(c, -decrement);
    }

    /** INCRBYFLOAT key increment: long double arithmetic, stored and replied as "%.17Lf" trimmed. */
    private void incrbyfloat(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        byte[] old = StringValues.forWrite(db, key);
        String quick = ShortDecimalSum.human(old, c.arg(2));
        byte[] result = (quick != null ? quick : exactSum(old, c.arg(2))).getBytes(StandardCharsets.US_ASCII);
        db.setNotIntKeepTtl(key, result);
        c.notify(KeyspaceEvents.STRING, "incrbyfloat", key);
        c.reply().bulk(result);
        // The result, not the increment: float formatting must not differ on replay.
        c.propagateAs(PropagatedCommands.SET, key, result, PropagatedCommands.KEEPTTL);
    }

    private static String exactSum(byte[] old, byte[] incrementArg) {
        LongDouble value = old == null ? LongDouble.ZERO : LongDouble.parse(old);
        LongDouble increment = value == null ? null : LongDouble.parse(incrementArg);
        if (increment == null) throw new CommandError(CommandError.NOT_FLOAT);
        LongDouble sum = value.add(increment);
        if (sum == null || sum.isInfinite()) throw new CommandError("ERR increment would produce NaN or Infinity");
        return sum.toHumanString();
    }

    // ---- LCS ----

    /** LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN] */
    private void lcs(Call c) {
        Database db = c.db();
        Object oa = db.read(c.arg(1));
        Object ob = db.read(c.arg(2));
        if ((oa != null && !(oa instanceof byte[])) || (ob != null && !(ob instanceof byte[]))) {
            throw new CommandError("ERR The specified keys must contain string values");
        }
        byte[] a = oa == null ? EMPTY : (byte[]) oa;
        byte[] b = ob == null ? EMPTY : (byte[]) ob;
        boolean getLen = false, getIdx = false, withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < c.argCount(); j++) {
            boolean more = j < c.argCount() - 1;
            if (c.argIs(j, "IDX")) {
                getIdx = true;
            } else if (c.argIs(j, "LEN")) {
                getLen = true;
            } else if (c.argIs(j, "WITHMATCHLEN")) {
                withMatchLen = true;
            } else if (c.argIs(j, "MINMATCHLEN") && more) {
                minMatchLen = Math.max(0, c.longArg(++j));
            } else {
                throw CommandError.syntax();
            }
        }
        if (getLen && getIdx) {
            throw new CommandError("ERR If you want both the length and indexes, please just use IDX.");
        }
        if (LcsTable.redisTableBytes(a, b) > c.config().getLong(io.cinnabar.config.ConfigOptions.PROTO_MAX_BULK_LEN)) {
            throw new CommandError("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        }
        Reply r = c.reply();
        LcsTable table;
        try {
            if (getLen) {
                r.integer(LcsTable.length(a, b));
                return;
            }
            table = LcsTable.of(a, b);
        } catch (OutOfMemoryError e) {
            throw new CommandError("ERR Insufficient memory, failed allocating transient memory for LCS");
        }
        int alen = a.length, blen = b.length, total = table.length();
        // Walk back from the end as Redis does, so the string and the ranges come out in its order.
        byte[] result = new byte[total];
        IntList ranges = getIdx ? new IntList() : null;
        int idx = total;
        int i = alen, j = blen;
        int aStart = alen, aEnd = 0, bStart = 0, bEnd = 0; // aStart == alen: no range open
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                result[idx - 1] = a[i - 1];
                if (aStart == alen) {
                    aStart = aEnd = i - 1;
                    bStart = bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) emit = true;
                idx--;
                i--;
                j--;
            } else {
                if (table.at(i - 1, j) > table.at(i, j - 1)) i--; else j--;
                if (aStart != alen) emit = true;
            }
            if (emit) {
                int matchLen = aEnd - aStart + 1;
                if (ranges != null && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    ranges.add(aStart, aEnd, bStart, bEnd, matchLen);
                }
                aStart = alen;
            }
        }
        if (ranges == null) {
            r.bulk(result);
            return;
        }
        r.map(2);
        r.bulk(MATCHES);
        r.array(ranges.size / 5);
        for (int k = 0; k < ranges.size; k += 5) {
            int[] v = ranges.values;
            r.array(withMatchLen ? 3 : 2);
            r.array(2);
            r.integer(v[k]);
            r.integer(v[k + 1]);
            r.array(2);
            r.integer(v[k + 2]);
            r.integer(v[k + 3]);
            if (withMatchLen) r.integer(v[k + 4]);
        }
        r.bulk(LEN);
        r.integer(total);
    }

    /** A growable int array for LCS match ranges (five ints per match). */
    private static final class IntList {
        int[] values = new int[20];
        int size;

        void add(int a, int b, int c, int d, int e) {
            if (size + 5 > values.length) values = java.util.Arrays.copyOf(values, values.length * 2);
            values[size++] = a;
            values[size++] = b;
            values[size++] = c;
            values[size++] = d;
            values[size++] = e;
        }
    }
}
