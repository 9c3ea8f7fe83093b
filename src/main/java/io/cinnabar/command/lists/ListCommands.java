package io.cinnabar.command.lists;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Reply;

import java.util.Arrays;

import static io.cinnabar.command.CommandFlag.BLOCKING;
import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
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

/**
 * List commands (t_list.c), blocking ones included. Blocking commands that find nothing call
 * {@link Call#block}; when a key they wait on is created the Dispatcher simply runs them again.
 */
public final class ListCommands implements CommandFamily {
    private static final boolean HEAD = true, TAIL = false;
    /** count value of the pops that reply a single element rather than an array. */
    private static final long SINGLE = -1;

    @Override
    public String group() {
        return "list";
    }

    private static final String PUSH_COMPLEXITY = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.";

    @Override
    public void register(CommandTable t) {
        t.add(spec("LPUSH", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("1.0.0", "Prepend one or multiple elements to a list", PUSH_COMPLEXITY)
                .history("2.4.0", "Accepts multiple `element` arguments."), c -> push(c, HEAD, false));
        t.add(spec("RPUSH", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("1.0.0", "Append one or multiple elements to a list", PUSH_COMPLEXITY)
                .history("2.4.0", "Accepts multiple `element` arguments."), c -> push(c, TAIL, false));
        t.add(spec("LPUSHX", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("2.2.0", "Prepend an element to a list, only if the list exists", PUSH_COMPLEXITY)
                .history("4.0.0", "Accepts multiple `element` arguments."), c -> push(c, HEAD, true));
        t.add(spec("RPUSHX", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("2.2.0", "Append an element to a list, only if the list exists", PUSH_COMPLEXITY)
                .history("4.0.0", "Accepts multiple `element` arguments."), c -> push(c, TAIL, true));
        t.add(spec("LPOP", -2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE))
                .doc("1.0.0", "Remove and get the first elements in a list", "O(N) where N is the number of elements returned")
                .history("6.2.0", "Added the `count` argument."), c -> pop(c, HEAD));
        t.add(spec("RPOP", -2, WRITE, FAST).keys(at(1, RW, ACCESS, DELETE))
                .doc("1.0.0", "Remove and get the last elements in a list", "O(N) where N is the number of elements returned")
                .history("6.2.0", "Added the `count` argument."), c -> pop(c, TAIL));
        t.add(spec("LLEN", 2, READONLY, FAST).keys(at(1, RO)).doc("1.0.0", "Get the length of a list", "O(1)"), this::llen);
        t.add(spec("LRANGE", 4, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.0.0", "Get a range of elements from a list",
                        "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range."), this::lrange);
        t.add(spec("LINDEX", 3, READONLY).keys(at(1, RO, ACCESS))
                .doc("1.0.0", "Get an element from a list by its index",
                        "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1)."), this::lindex);
        t.add(spec("LSET", 4, WRITE, DENYOOM).keys(at(1, RW, UPDATE))
                .doc("1.0.0", "Set the value of an element in a list by its index",
                        "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1)."), this::lset);
        t.add(spec("LINSERT", 5, WRITE, DENYOOM).keys(at(1, RW, INSERT))
                .doc("2.2.0", "Insert an element before or after another element in a list",
                        "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N)."), this::linsert);
        t.add(spec("LREM", 4, WRITE).keys(at(1, RW, DELETE)).doc("1.0.0", "Remove elements from a list",
                        "O(N+M) where N is the length of the list and M is the number of elements removed."), this::lrem);
        t.add(spec("LTRIM", 4, WRITE).keys(at(1, RW, DELETE))
                .doc("1.0.0", "Trim a list to the specified range",
                        "O(N) where N is the number of elements to be removed by the operation."), this::ltrim);
        t.add(spec("LPOS", -3, READONLY).keys(at(1, RO, ACCESS))
                .doc("6.0.6", "Return the index of matching elements on a list",
                        "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time."), this::lpos);
        t.add(spec("LMOVE", 5, WRITE, DENYOOM).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT))
                .doc("6.2.0", "Pop an element from a list, push it to another list and return it", "O(1)"),
                c -> move(c, side(c, 3), side(c, 4), -1));
        t.add(spec("RPOPLPUSH", 3, WRITE, DENYOOM).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT))
                .doc("1.2.0", "Remove the last element in a list, prepend it to another list and return it", "O(1)")
                .deprecated("6.2.0", "`LMOVE` with the `RIGHT` and `LEFT` arguments"),
                c -> move(c, TAIL, HEAD, -1));
        t.add(spec("LMPOP", -4, WRITE).keys(at(1, RW, ACCESS, DELETE).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 1, 2))
                .doc("7.0.0", "Pop elements from a list",
                        "O(N+M) where N is the number of provided keys and M is the number of elements returned."), c -> mpop(c, 1, false));
        t.add(spec("BLPOP", -3, WRITE, NOSCRIPT, BLOCKING).keys(at(1, RW, ACCESS, DELETE).range(-2, 1))
                .doc("2.0.0", "Remove and get the first element in a list, or block until one is available",
                        "O(N) where N is the number of provided keys.")
                .history("6.0.0", "`timeout` is interpreted as a double instead of an integer."),
                c -> blockingPop(c, 1, c.argCount() - 2, HEAD, c.argCount() - 1, SINGLE));
        t.add(spec("BRPOP", -3, WRITE, NOSCRIPT, BLOCKING).keys(at(1, RW, ACCESS, DELETE).range(-2, 1))
                .doc("2.0.0", "Remove and get the last element in a list, or block until one is available",
                        "O(N) where N is the number of provided keys.")
                .history("6.0.0", "`timeout` is interpreted as a double instead of an integer."),
                c -> blockingPop(c, 1, c.argCount() - 2, TAIL, c.argCount() - 1, SINGLE));
        t.add(spec("BLMOVE", 6, WRITE, DENYOOM, NOSCRIPT, BLOCKING).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT))
                .doc("6.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available", "O(1)"),
                this::blmove);
        t.add(spec("BRPOPLPUSH", 4, WRITE, DENYOOM, NOSCRIPT, BLOCKING).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT))
                .doc("2.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available", "O(1)")
                .deprecated("6.2.0", "`BLMOVE` with the `RIGHT` and `LEFT` arguments")
                .history("6.0.0", "`timeout` is interpreted as a double instead of an integer."),
                c -> move(c, TAIL, HEAD, 3));
        t.add(spec("BLMPOP", -5, WRITE, BLOCKING).keys(at(2, RW, ACCESS, DELETE).keynum(0, 1, 1)).keyFinder(KeyProcs.numKeys(0, 2, 3))
                .doc("7.0.0", "Pop elements from a list, or block until one is available",
                        "O(N+M) where N is the number of provided keys and M is the number of elements returned."), c -> mpop(c, 2, true));
    }

    // ---- lookups ----

    private static ListValue asList(Object v) {
        if (v == null || v instanceof ListValue) return (ListValue) v;
        throw WrongTypeException.INSTANCE;
    }

    private static ListValue readList(Call c, byte[] key) {
        return asList(c.db().read(key));
    }

    private static ListValue writeList(Call c, byte[] key) {
        return asList(c.db().write(key));
    }

    private static ListValue newList(Call c) {
        return new ListValue(c.config().getLong(ConfigOptions.LIST_MAX_LISTPACK_SIZE), c.config().getLong(ConfigOptions.LIST_COMPRESS_DEPTH));
    }

    /** Lists exist only while non-empty: a list emptied by a command goes away with it ("del"). */
    private static void deleteIfEmpty(Call c, byte[] key, ListValue list) {
        if (!list.isEmpty()) return;
        c.db().delete(key);
        c.notify(KeyspaceEvents.GENERIC, "del", key);
    }

    /** Redis's listElementsRemoved: the pop event, then the emptied list goes. */
    private static void popped(Call c, byte[] key, ListValue list, boolean atHead) {
        c.notify(KeyspaceEvents.LIST, atHead ? "lpop" : "rpop", key);
        deleteIfEmpty(c, key, list);
    }

    private static void pushed(Call c, byte[] key, boolean atHead) {
        c.notify(KeyspaceEvents.LIST, atHead ? "lpush" : "rpush", key);
    }

    /** LEFT or RIGHT (getListPositionFromObjectOrReply). */
    private static boolean side(Call c, int i) {
        if (c.argIs(i, "LEFT")) return HEAD;
        if (c.argIs(i, "RIGHT")) return TAIL;
        throw CommandError.syntax();
    }

    // ---- push ----

    /** LPUSH|RPUSH|LPUSHX|RPUSHX key element [element ...] */
    private void push(Call c, boolean atHead, boolean onlyIfExists) {
        byte[] key = c.arg(1);
        ListValue list = writeList(c, key);
        if (list == null) {
            if (onlyIfExists) {
                c.reply().integer(0);
                return;
            }
            list = newList(c);
            for (int i = 2; i < c.argCount(); i++) list.push(c.arg(i), atHead);
            c.db().set(key, list);
        } else {
            for (int i = 2; i < c.argCount(); i++) list.push(c.arg(i), atHead);
        }
        c.reply().integer(list.size());
        pushed(c, key, atHead);
    }

    // ---- pops ----

    /** LPOP|RPOP key [count] */
    private void pop(Call c, boolean atHead) {
        if (c.argCount() > 3) {
            throw new CommandError("ERR wrong number of arguments for '" + c.spec().fullName() + "' command");
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? positive(c, 2, "ERR value is out of range, must be positive") : SINGLE;
        byte[] key = c.arg(1);
        ListValue list = writeList(c, key);
        if (list == null) {
            if (hasCount) c.reply().nullArray(); else c.reply().nullBulk();
            return;
        }
        if (count == 0) {
            c.db().unchanged(key);
            c.reply().emptyArray();
            return;
        }
        if (count == SINGLE) {
            c.reply().bulk(list.pop(atHead));
        } else {
            popRange(c.reply(), list, atHead, count);
        }
        popped(c, key, list, atHead);
    }

    /** Replies up to count elements from one end, in pop order, and removes them. */
    private static void popRange(Reply r, ListValue list, boolean atHead, long count) {
        long n = Math.min(count, list.size());
        if (atHead) {
            rangeReply(r, list, 0, n - 1, false);
            list.trimHead(n);
        } else {
            rangeReply(r, list, -n, -1, true);
            list.trimTail(n);
        }
    }

    /** [key, [elements]] as LMPOP and BLMPOP reply; propagated as LPOP|RPOP key count. */
    private static void popRangeWithKey(Call c, byte[] key, ListValue list, boolean atHead, long count) {
        long popped = Math.min(count, list.size());
        c.reply().array(2);
        c.reply().bulk(key);
        popRange(c.reply(), list, atHead, count);
        popped(c, key, list, atHead);
        c.propagateAs(popName(atHead), key, PropagatedCommands.number(popped));
    }

    private static byte[] popName(boolean atHead) {
        return atHead ? PropagatedCommands.LPOP : PropagatedCommands.RPOP;
    }

    /** LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] / BLMPOP timeout numkeys key ... */
    private void mpop(Call c, int numkeysIdx, boolean blocking) {
        long numkeys = c.longArg(numkeysIdx, "ERR numkeys should be greater than 0");
        if (numkeys < 1) throw new CommandError("ERR numkeys should be greater than 0");
        if (numkeys >= c.argCount()) throw CommandError.syntax();
        int whereIdx = numkeysIdx + (int) numkeys + 1;
        if (whereIdx >= c.argCount()) throw CommandError.syntax();
        boolean atHead = side(c, whereIdx);
        long count = -1;
        for (int j = whereIdx + 1; j < c.argCount(); j++) {
            if (count == -1 && c.argIs(j, "COUNT") && j + 1 < c.argCount()) {
                count = c.longArg(++j, "ERR count should be greater than 0");
                if (count < 1) throw new CommandError("ERR count should be greater than 0");
            } else {
                throw CommandError.syntax();
            }
        }
        if (count == -1) count = 1;
        if (blocking) {
            blockingPop(c, numkeysIdx + 1, (int) numkeys, atHead, 1, count);
            return;
        }
        for (int j = numkeysIdx + 1; j < whereIdx; j++) {
            ListValue list = writeList(c, c.arg(j));
            if (list == null || list.isEmpty()) continue;
            popRangeWithKey(c, c.arg(j), list, atHead, count);
            return;
        }
        c.reply().nullArray();
    }

    /**
     * BLPOP/BRPOP (count SINGLE: [key, element]) and BLMPOP ([key, [elements]]): pops from the
     * first non-empty key of numKeys starting at argument first, or blocks on all of them; woken,
     * from the key that got data.
     */
    private void blockingPop(Call c, int first, int numKeys, boolean atHead, int timeoutIdx, long count) {
        long deadline = c.timeoutArg(timeoutIdx);
        boolean retry = c.isRetry();
        for (int j = first; j < first + numKeys; j++) {
            byte[] key = c.arg(j);
            // A woken client is served from the key that got data (serveClientsBlockedOnListKey),
            // not from the first of its keys that has some.
            if (retry && !Arrays.equals(key, c.readyKey())) continue;
            Object v = c.db().write(key);
            if (v == null) continue;
            // Redis serves a woken client only from lists: a key turned into another type is skipped.
            if (!(v instanceof ListValue)) {
                c.db().unchanged(key);
                if (retry) continue;
                throw WrongTypeException.INSTANCE;
            }
            ListValue list = (ListValue) v;
            if (list.isEmpty()) continue;
            if (count == SINGLE) {
                c.reply().array(2);
                c.reply().bulk(key);
                c.reply().bulk(list.pop(atHead));
                popped(c, key, list, atHead);
                c.propagateAs(popName(atHead), key);
            } else {
                popRangeWithKey(c, key, list, atHead, count);
            }
            return;
        }
        c.preventPropagation();
        if (!c.mayBlock()) {
            c.reply().nullArray();
            return;
        }
        c.block(Arrays.copyOfRange(c.args(), first, first + numKeys), deadline, Reply::nullArray);
    }

    // ---- moves ----

    /** BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
    private void blmove(Call c) {
        move(c, side(c, 3), side(c, 4), 5);
    }

    /**
     * LMOVE/RPOPLPUSH (timeoutIdx -1) and BLMOVE/BRPOPLPUSH: pops from source, pushes onto
     * destination, replies the element; the blocking forms wait for source to exist.
     */
    private void move(Call c, boolean from, boolean to, int timeoutIdx) {
        long deadline = timeoutIdx < 0 ? 0 : c.timeoutArg(timeoutIdx);
        byte[] src = c.arg(1), dst = c.arg(2);
        Object v = c.db().write(src);
        if (timeoutIdx >= 0 && c.isRetry() && v != null && !(v instanceof ListValue)) v = null;
        ListValue source = asList(v);
        if (source == null || source.isEmpty()) {
            c.db().unchanged(src);
            c.preventPropagation();
            if (timeoutIdx < 0 || !c.mayBlock()) {
                c.reply().nullBulk();
                return;
            }
            c.block(new byte[][] {src}, deadline, Reply::nullArray);
            return;
        }
        ListValue dest = writeList(c, dst);
        byte[] value = source.pop(from);
        if (dest == null) {
            dest = newList(c);
            dest.push(value, to);
            c.db().set(dst, dest);
        } else {
            dest.push(value, to);
        }
        // Redis's lmoveHandlePush announces the push, then replies; the pop comes last.
        pushed(c, dst, to);
        c.reply().bulk(value);
        popped(c, src, source, from);
        if (timeoutIdx >= 0) {
            // BLMOVE as LMOVE, BRPOPLPUSH as RPOPLPUSH.
            c.propagateAs(c.argCount() == 6
                    ? new byte[][] {PropagatedCommands.LMOVE, src, dst, c.arg(3), c.arg(4)}
                    : new byte[][] {PropagatedCommands.RPOPLPUSH, src, dst});
        }
    }

    // ---- reads ----

    /** LLEN key */
    private void llen(Call c) {
        ListValue list = readList(c, c.arg(1));
        c.reply().integer(list == null ? 0 : list.size());
    }

    /** LRANGE key start stop */
    private void lrange(Call c) {
        long start = c.longArg(2), end = c.longArg(3);
        ListValue list = readList(c, c.arg(1));
        if (list == null) {
            c.reply().emptyArray();
            return;
        }
        rangeReply(c.reply(), list, start, end, false);
    }

    /** Elements start..end (inclusive, negative from the end) as an array, optionally tail first. */
    private static void rangeReply(Reply r, ListValue list, long start, long end, boolean reverse) {
        long llen = list.size();
        if (start < 0) start = llen + start;
        if (end < 0) end = llen + end;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            r.emptyArray();
            return;
        }
        if (end >= llen) end = llen - 1;
        long n = end - start + 1;
        r.array((int) n);
        ListValue.Cursor cur = list.cursor(reverse ? end : start);
        for (long i = 0; i < n; i++) {
            r.bulk(cur.buffer(), cur.offset(), cur.length());
            if (i + 1 < n) {
                if (reverse) cur.prev(); else cur.next();
            }
        }
    }

    /** LINDEX key index */
    private void lindex(Call c) {
        ListValue list = readList(c, c.arg(1));
        if (list == null) {
            c.reply().nullBulk();
            return;
        }
        ListValue.Cursor cur = list.cursor(index(list, c.longArg(2)));
        if (cur == null) c.reply().nullBulk(); else c.reply().bulk(cur.buffer(), cur.offset(), cur.length());
    }

    private static long index(ListValue list, long i) {
        return i < 0 ? list.size() + i : i;
    }

    /** LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
    private void lpos(Call c) {
        byte[] element = c.arg(2);
        long rank = 1, count = -1, maxlen = 0;
        for (int j = 3; j < c.argCount(); j++) {
            boolean more = j + 1 < c.argCount();
            if (more && c.argIs(j, "RANK")) {
                rank = c.longArg(++j);
                if (rank == 0) {
                    throw new CommandError("ERR RANK can't be zero: use 1 to start from the first match, "
                            + "2 from the second ... or use negative to start from the end of the list");
                }
            } else if (more && c.argIs(j, "COUNT")) {
                count = positive(c, ++j, "ERR COUNT can't be negative");
            } else if (more && c.argIs(j, "MAXLEN")) {
                maxlen = positive(c, ++j, "ERR MAXLEN can't be negative");
            } else {
                throw CommandError.syntax();
            }
        }
        boolean forward = rank > 0;
        if (!forward) rank = -rank;
        ListValue list = readList(c, c.arg(1));
        if (list == null) {
            if (count != -1) c.reply().emptyArray(); else c.reply().nullBulk();
            return;
        }
        long llen = list.size();
        long[] found = new long[count > 0 ? (int) Math.min(count, 16) : 16];
        int nfound = 0;
        long matches = 0;
        ListValue.Cursor cur = list.cursorAtEnd(forward);
        for (long index = 0; index < llen && (maxlen == 0 || index < maxlen); index++) {
            if (cur.matches(element)) {
                matches++;
                if (matches >= rank) {
                    if (nfound == found.length) found = Arrays.copyOf(found, nfound * 2);
                    found[nfound++] = forward ? index : llen - index - 1;
                    if (count == -1 || (count != 0 && matches - rank + 1 >= count)) break;
                }
            }
            if (forward) cur.next(); else cur.prev();
        }
        if (count == -1) {
            if (nfound == 0) c.reply().nullBulk(); else c.reply().integer(found[0]);
            return;
        }
        c.reply().array(nfound);
        for (int i = 0; i < nfound; i++) c.reply().integer(found[i]);
    }

    /** Argument i as a long >= 0, with Redis's message for both bad syntax and negatives. */
    private static long positive(Call c, int i, String error) {
        long v = c.longArg(i, error);
        if (v < 0) throw new CommandError(error);
        return v;
    }

    // ---- edits ----

    /** LSET key index element */
    private void lset(Call c) {
        ListValue list = writeList(c, c.arg(1));
        if (list == null) throw new CommandError("ERR no such key");
        long i = index(list, c.longArg(2));
        if (i < 0 || i >= list.size()) throw new CommandError("ERR index out of range");
        list.set(i, c.arg(3));
        c.reply().ok();
        c.notify(KeyspaceEvents.LIST, "lset", c.arg(1));
    }

    /** LINSERT key BEFORE|AFTER pivot element */
    private void linsert(Call c) {
        boolean after;
        if (c.argIs(2, "AFTER")) after = true;
        else if (c.argIs(2, "BEFORE")) after = false;
        else throw CommandError.syntax();
        ListValue list = writeList(c, c.arg(1));
        if (list == null) {
            c.reply().integer(0);
            return;
        }
        byte[] pivot = c.arg(3);
        ListValue.Cursor cur = list.cursorAtEnd(true);
        do {
            if (cur.matches(pivot)) {
                list.insert(cur, c.arg(4), after);
                c.notify(KeyspaceEvents.LIST, "linsert", c.arg(1));
                c.reply().integer(list.size());
                return;
            }
        } while (cur.next());
        c.db().unchanged(c.arg(1));
        c.reply().integer(-1);
    }

    /** LREM key count element */
    private void lrem(Call c) {
        long toRemove = c.longArg(2);
        byte[] key = c.arg(1), element = c.arg(3);
        ListValue list = writeList(c, key);
        if (list == null) {
            c.reply().integer(0);
            return;
        }
        boolean forward = toRemove >= 0;
        if (!forward) toRemove = -toRemove;
        long removed = 0;
        ListValue.Cursor cur = list.cursorAtEnd(forward);
        boolean more = true;
        while (more) {
            if (cur.matches(element)) {
                more = list.remove(cur, forward);
                removed++;
                if (toRemove != 0 && removed == toRemove) break;
            } else {
                more = forward ? cur.next() : cur.prev();
            }
        }
        if (removed == 0) c.db().unchanged(key);
        if (removed > 0) c.notify(KeyspaceEvents.LIST, "lrem", key);
        deleteIfEmpty(c, key, list);
        c.reply().integer(removed);
    }

    /** LTRIM key start stop */
    private void ltrim(Call c) {
        long start = c.longArg(2), end = c.longArg(3);
        byte[] key = c.arg(1);
        ListValue list = writeList(c, key);
        if (list == null) {
            c.reply().ok();
            return;
        }
        long llen = list.size();
        if (start < 0) start = llen + start;
        if (end < 0) end = llen + end;
        if (start < 0) start = 0;
        long ltrim, rtrim;
        if (start > end || start >= llen) {
            ltrim = llen;
            rtrim = 0;
        } else {
            if (end >= llen) end = llen - 1;
            ltrim = start;
            rtrim = llen - end - 1;
        }
        list.trimHead(ltrim);
        list.trimTail(rtrim);
        c.notify(KeyspaceEvents.LIST, "ltrim", key);
        deleteIfEmpty(c, key, list);
        c.reply().ok();
    }
}
