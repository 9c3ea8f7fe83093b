package io.cinnabar.command.zsets;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;

/** ZPOPMIN/ZPOPMAX, ZMPOP and the blocking BZPOPMIN/BZPOPMAX/BZMPOP (Redis's genericZpopCommand). */
final class ZSetPops {
    private ZSetPops() {}

    /** ZPOPMIN key [count]; ZPOPMAX key [count] */
    static void zpop(Call c, boolean max) {
        if (c.argCount() > 3) throw CommandError.syntax();
        long count = -1;
        if (c.argCount() == 3) {
            count = c.longArg(2, "ERR value is out of range, must be positive");
            if (count < 0) throw new CommandError("ERR value is out of range, must be positive");
        }
        boolean nested = c.reply().protocol() == 3 && count != -1;
        byte[] key = c.arg(1);
        ZSetValue z = ZSetCommands.write(c, key);
        if (z == null || count == 0) {
            c.db().unchanged(key);
            c.reply().emptyArray();
            return;
        }
        long n = Math.min(count == -1 ? 1 : count, z.size());
        c.reply().array((int) (nested ? n : n * 2));
        pop(c, key, z, max, n, nested);
    }

    /** Pops n members from z at key, replying each as a pair; deletes the key when emptied. */
    private static void pop(Call c, byte[] key, ZSetValue z, boolean max, long n, boolean nested) {
        Reply r = c.reply();
        if (n > 0) c.notify(KeyspaceEvents.ZSET, max ? "zpopmax" : "zpopmin", key);
        for (long k = 0; k < n; k++) {
            ZSetValue.Cursor cur = z.at(max ? z.size() - 1 : 0);
            byte[] m = cur.member();
            double s = cur.score();
            z.remove(m);
            ZSetCommands.pair(r, m, s, nested);
        }
        if (z.size() == 0) c.db().delete(key);
        if (z.size() == 0) c.notify(KeyspaceEvents.GENERIC, "del", key);
    }

    /** ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]; BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] */
    static void zmpop(Call c, boolean blocking) {
        int numkeysIndex = blocking ? 2 : 1;
        long numkeys = c.longArg(numkeysIndex, "ERR numkeys should be greater than 0");
        if (numkeys < 1) throw new CommandError("ERR numkeys should be greater than 0");
        long whereIndex = numkeysIndex + numkeys + 1;
        if (whereIndex >= c.argCount()) throw CommandError.syntax();
        int w = (int) whereIndex;
        boolean max;
        if (c.argIs(w, "MIN")) max = false;
        else if (c.argIs(w, "MAX")) max = true;
        else throw CommandError.syntax();
        long count = -1;
        for (int j = w + 1; j < c.argCount(); j++) {
            if (count == -1 && c.argIs(j, "COUNT") && j + 1 < c.argCount()) {
                j++;
                count = c.longArg(j, "ERR count should be greater than 0");
                if (count < 1) throw new CommandError("ERR count should be greater than 0");
            } else {
                throw CommandError.syntax();
            }
        }
        if (count == -1) count = 1;
        byte[][] keys = new byte[(int) numkeys][];
        for (int i = 0; i < keys.length; i++) keys[i] = c.arg(numkeysIndex + 1 + i);
        if (blocking) {
            blockingPop(c, keys, max, 1, count, true);
            return;
        }
        for (byte[] key : keys) {
            ZSetValue z = ZSetCommands.write(c, key);
            if (z == null) continue;
            replyKeyed(c, key, z, max, count, true);
            return;
        }
        c.reply().nullArray();
    }

    /** BZPOPMIN key [key ...] timeout; BZPOPMAX key [key ...] timeout */
    static void bzpop(Call c, boolean max) {
        byte[][] keys = new byte[c.argCount() - 2][];
        for (int i = 0; i < keys.length; i++) keys[i] = c.arg(1 + i);
        blockingPop(c, keys, max, c.argCount() - 1, -1, false);
    }

    /**
     * Pops from the first non-empty key, or blocks on them all. A key holding another type is an
     * error, except when re-run for a blocked client: Redis 7.0 then keeps the client waiting.
     */
    private static void blockingPop(Call c, byte[][] keys, boolean max, int timeoutIndex, long count, boolean multi) {
        long deadline = c.timeoutArg(timeoutIndex);
        for (byte[] key : keys) {
            // Woken, served from the key that got data (serveClientsBlockedOnSortedSetKey).
            if (c.isRetry() && !java.util.Arrays.equals(key, c.readyKey())) continue;
            Object v = c.db().write(key);
            if (v == null) continue;
            if (!(v instanceof ZSetValue z)) {
                c.db().unchanged(key);
                if (c.isRetry()) continue;
                throw io.cinnabar.keyspace.WrongTypeException.INSTANCE;
            }
            replyKeyed(c, key, z, max, count, multi);
            return;
        }
        c.preventPropagation();
        if (!c.mayBlock()) {
            c.reply().nullArray();
            return;
        }
        c.block(keys, deadline, Reply::nullArray);
    }

    /**
     * The keyed replies: [key, member, score] for BZPOP* (count -1), [key, [[member, score] ...]]
     * for [B]ZMPOP.
     */
    private static void replyKeyed(Call c, byte[] key, ZSetValue z, boolean max, long count, boolean multi) {
        Reply r = c.reply();
        long n = Math.min(count == -1 ? 1 : count, z.size());
        if (multi) {
            r.array(2);
            r.bulk(key);
            r.array((int) n);
        } else {
            r.array((int) (n * 2 + 1));
            r.bulk(key);
        }
        pop(c, key, z, max, n, multi);
        // As Redis: ZPOPMIN|ZPOPMAX key for BZPOP*, with the count popped for [B]ZMPOP.
        byte[] name = max ? PropagatedCommands.ZPOPMAX : PropagatedCommands.ZPOPMIN;
        if (count == -1) c.propagateAs(name, key); else c.propagateAs(name, key, PropagatedCommands.number(n));
    }
}
