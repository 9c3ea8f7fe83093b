package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Entry;

import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** Expiry commands: setting, reading and removing a key's time to live. */
public final class ExpireCommands implements CommandFamily {
    private static final int NX = 1, XX = 2, GT = 4, LT = 8;
    private static final boolean SECONDS = true, MILLISECONDS = false;

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("EXPIRE", -3, WRITE, FAST).keys(at(1, RW, UPDATE)).doc("1.0.0", "Set a key's time to live in seconds", "O(1)")
                .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."),
                c -> expire(c, c.mstime(), SECONDS));
        t.add(spec("PEXPIRE", -3, WRITE, FAST).keys(at(1, RW, UPDATE)).doc("2.6.0", "Set a key's time to live in milliseconds", "O(1)")
                .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."),
                c -> expire(c, c.mstime(), MILLISECONDS));
        t.add(spec("EXPIREAT", -3, WRITE, FAST).keys(at(1, RW, UPDATE)).doc("1.2.0", "Set the expiration for a key as a UNIX timestamp", "O(1)")
                .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."),
                c -> expire(c, 0, SECONDS));
        t.add(spec("PEXPIREAT", -3, WRITE, FAST).keys(at(1, RW, UPDATE))
                .doc("2.6.0", "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "O(1)")
                .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`."),
                c -> expire(c, 0, MILLISECONDS));
        t.add(spec("TTL", 2, READONLY, FAST).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("1.0.0", "Get the time to live for a key in seconds", "O(1)")
                .history("2.8.0", "Added the -2 reply."),
                c -> ttl(c, SECONDS, false));
        t.add(spec("PTTL", 2, READONLY, FAST).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("2.6.0", "Get the time to live for a key in milliseconds", "O(1)")
                .history("2.8.0", "Added the -2 reply."),
                c -> ttl(c, MILLISECONDS, false));
        t.add(spec("EXPIRETIME", 2, READONLY, FAST).keys(at(1, RO, ACCESS)).doc("7.0.0", "Get the expiration Unix timestamp for a key", "O(1)"),
                c -> ttl(c, SECONDS, true));
        t.add(spec("PEXPIRETIME", 2, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("7.0.0", "Get the expiration Unix timestamp for a key in milliseconds", "O(1)"),
                c -> ttl(c, MILLISECONDS, true));
        t.add(spec("PERSIST", 2, WRITE, FAST).keys(at(1, RW, UPDATE)).doc("2.2.0", "Remove the expiration from a key", "O(1)"), this::persist);
    }

    /**
     * EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT key time [NX | XX | GT | LT]: basetime is now for the
     * relative forms and 0 for the absolute ones. A time already past deletes the key.
     */
    private void expire(Call c, long basetime, boolean seconds) {
        int flags = parseFlags(c);
        long when = c.longArg(2);
        if (seconds) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) throw invalidExpireTime(c);
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - basetime) throw invalidExpireTime(c);
        when += basetime;

        Database db = c.db();
        byte[] key = c.arg(1);
        Entry e = db.lookupForWrite(key);
        if (e == null) {
            c.reply().integer(0);
            return;
        }
        if (flags != 0 && !conditionHolds(flags, when, e.expireAt())) {
            // Replayed later, a relative time would compare differently: propagate nothing.
            c.preventPropagation();
            c.reply().integer(0);
            return;
        }
        if (c.alreadyExpired(when)) {
            db.delete(key);
            c.propagateAs(PropagatedCommands.deletion(lazyExpire(c)), key);
            c.notify(KeyspaceEvents.GENERIC, "del", key);
        } else {
            db.setExpire(key, when);
            // As Redis: PEXPIREAT with the absolute time, the condition flags kept.
            byte[][] argv = c.args().clone();
            argv[0] = PropagatedCommands.PEXPIREAT;
            argv[2] = PropagatedCommands.number(when);
            c.propagateAs(argv);
            c.notify(KeyspaceEvents.GENERIC, "expire", key);
        }
        c.reply().integer(1);
    }

    static boolean lazyExpire(Call c) {
        return c.config().getBool(ConfigOptions.LAZYFREE_LAZY_EXPIRE);
    }

    /** NX / XX / GT / LT against the current expiry (-1 = none, which GT treats as infinite). */
    private static boolean conditionHolds(int flags, long when, long current) {
        if ((flags & NX) != 0 && current != -1) return false;
        if ((flags & XX) != 0 && current == -1) return false;
        if ((flags & GT) != 0 && (current == -1 || when <= current)) return false;
        return (flags & LT) == 0 || current == -1 || when < current;
    }

    private static int parseFlags(Call c) {
        int flags = 0;
        for (int i = 3; i < c.argCount(); i++) {
            if (c.argIs(i, "NX")) flags |= NX;
            else if (c.argIs(i, "XX")) flags |= XX;
            else if (c.argIs(i, "GT")) flags |= GT;
            else if (c.argIs(i, "LT")) flags |= LT;
            else throw new CommandError("ERR Unsupported option " + c.quoted(i));
        }
        if ((flags & NX) != 0 && (flags & (XX | GT | LT)) != 0) {
            throw new CommandError("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((flags & (GT | LT)) == (GT | LT)) {
            throw new CommandError("ERR GT and LT options at the same time are not compatible");
        }
        return flags;
    }

    private static CommandError invalidExpireTime(Call c) {
        return new CommandError("ERR invalid expire time in '" + c.spec().fullName() + "' command");
    }

    /**
     * TTL / PTTL / EXPIRETIME / PEXPIRETIME key: -2 no key, -1 no expiry. The time left is counted
     * from this instant (Redis 7.0's expire-mstime()), not from the command's start: a client that
     * sets PXAT from its own clock never reads back more than it set.
     */
    private void ttl(Call c, boolean seconds, boolean absolute) {
        Entry e = c.db().peek(c.arg(1));
        if (e == null) {
            c.reply().integer(-2);
            return;
        }
        long at = e.expireAt();
        if (at == -1) {
            c.reply().integer(-1);
            return;
        }
        long t = Math.max(0, absolute ? at : at - c.mstime());
        c.reply().integer(seconds ? (t + 500) / 1000 : t);
    }

    /** PERSIST key */
    private void persist(Call c) {
        boolean removed = c.db().lookupForWrite(c.arg(1)) != null && c.db().persist(c.arg(1));
        if (removed) c.notify(KeyspaceEvents.GENERIC, "persist", c.arg(1));
        c.reply().integer(removed ? 1 : 0);
    }
}
