package io.cinnabar.command.streams;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.StreamId;
import io.cinnabar.keyspace.StreamValue;
import io.cinnabar.util.BinaryText;

import static io.cinnabar.command.CommandFlag.BLOCKING;
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
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.after;
import static io.cinnabar.command.KeySpec.at;

/**
 * The stream commands (t_stream.c). This class declares the family and serves the commands on
 * entries (XADD, XRANGE, XLEN, XDEL, XTRIM, XSETID); reads are in {@link StreamReads}, consumer
 * groups in {@link StreamGroupCommands}, XINFO in {@link StreamInfo}.
 */
public final class StreamCommands implements CommandFamily {
    @Override
    public String group() {
        return "stream";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("XADD", -5, WRITE, DENYOOM, FAST).keys(at(1, RW, UPDATE).notes("UPDATE instead of INSERT because of the optional trimming feature"))
                .tips("nondeterministic_output")
                .doc("5.0.0", "Appends a new entry to a stream", "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.")
                .history("6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option.",
                        "7.0.0", "Added support for the `<ms>-*` explicit ID form."), this::xadd);
        t.add(spec("XRANGE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("5.0.0", "Return a range of elements in a stream, with IDs matching the specified IDs interval",
                        "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).")
                .history("6.2.0", "Added exclusive ranges."), c -> range(c, false));
        t.add(spec("XREVRANGE", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("5.0.0", "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
                        "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).")
                .history("6.2.0", "Added exclusive ranges."), c -> range(c, true));
        t.add(spec("XLEN", 2, READONLY, FAST).keys(at(1, RO)).doc("5.0.0", "Return the number of entries in a stream", "O(1)"), this::xlen);
        t.add(spec("XDEL", -3, WRITE, FAST).keys(at(1, RW, DELETE))
                .doc("5.0.0", "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
                        "O(1) for each single item to delete in the stream, regardless of the stream size."), this::xdel);
        t.add(spec("XTRIM", -4, WRITE).keys(at(1, RW, DELETE)).tips("nondeterministic_output")
                .doc("5.0.0", "Trims the stream to (approximately if '~' is passed) a certain size",
                        "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.")
                .history("6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option."), this::xtrim);
        t.add(spec("XSETID", -3, WRITE, DENYOOM, FAST).keys(at(1, RW, UPDATE))
                .doc("5.0.0", "An internal command for replicating stream values", "O(1)")
                .history("7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments."), this::xsetid);
        t.add(spec("XREAD", -4, READONLY, BLOCKING).keys(after("STREAMS", 1, RO, ACCESS).range(-1, 1, 2))
                .doc("5.0.0", "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
                        "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data."),
                c -> StreamReads.xread(c, false));
        t.add(spec("XREADGROUP", -7, WRITE, BLOCKING).keys(after("STREAMS", 4, RO, ACCESS).range(-1, 1, 2))
                .doc("5.0.0", "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
                        "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data."),
                c -> StreamReads.xread(c, true));
        t.add(spec("XACK", -4, WRITE, FAST).keys(at(1, RW, UPDATE))
                .doc("5.0.0", "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
                        "O(1) for each message ID processed."), StreamGroupCommands::xack);
        t.add(spec("XPENDING", -3, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("5.0.0", "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
                        "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.")
                .history("6.2.0", "Added the `IDLE` option and exclusive range intervals."), StreamGroupCommands::xpending);
        t.add(spec("XCLAIM", -6, WRITE, FAST).keys(at(1, RW, UPDATE)).tips("nondeterministic_output")
                .doc("5.0.0", "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
                        "O(log N) with N being the number of messages in the PEL of the consumer group."), StreamGroupCommands::xclaim);
        t.add(spec("XAUTOCLAIM", -6, WRITE, FAST).keys(at(1, RW, DELETE)).tips("nondeterministic_output")
                .doc("6.2.0", "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
                        "O(1) if COUNT is small.")
                .history("7.0.0", "Added an element to the reply array, containing deleted entries the command cleared from the PEL"),
                StreamGroupCommands::xautoclaim);
        t.add(spec("XGROUP", -2).doc("5.0.0", "A container for consumer groups commands", "Depends on subcommand.")
                .sub(spec("CREATE", -5, WRITE, DENYOOM).keys(at(2, RW, INSERT))
                        .doc("5.0.0", "Create a consumer group.", "O(1)")
                        .history("7.0.0", "Added the `entries_read` named argument."), StreamGroupCommands::create)
                .sub(spec("SETID", -5, WRITE).keys(at(2, RW, UPDATE))
                        .doc("5.0.0", "Set a consumer group to an arbitrary last delivered ID value.", "O(1)")
                        .history("7.0.0", "Added the optional `entries_read` argument."), StreamGroupCommands::setid)
                .sub(spec("DESTROY", 4, WRITE).keys(at(2, RW, DELETE))
                        .doc("5.0.0", "Destroy a consumer group.", "O(N) where N is the number of entries in the group's pending entries list (PEL)."),
                        StreamGroupCommands::destroy)
                .sub(spec("CREATECONSUMER", 5, WRITE, DENYOOM).keys(at(2, RW, INSERT))
                        .doc("6.2.0", "Create a consumer in a consumer group.", "O(1)"), StreamGroupCommands::createConsumer)
                .sub(spec("DELCONSUMER", 5, WRITE).keys(at(2, RW, DELETE))
                        .doc("5.0.0", "Delete a consumer from a consumer group.", "O(1)"), StreamGroupCommands::delConsumer)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"),
                        StreamGroupCommands::help), null);
        t.add(spec("XINFO", -2).doc("5.0.0", "A container for stream introspection commands", "Depends on subcommand.")
                .sub(spec("STREAM", -3, READONLY).keys(at(2, RO, ACCESS))
                        .doc("5.0.0", "Get information about a stream", "O(1)")
                        .history("6.0.0", "Added the `FULL` modifier.",
                                "7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"),
                        StreamInfo::stream)
                .sub(spec("GROUPS", 3, READONLY).keys(at(2, RO, ACCESS))
                        .doc("5.0.0", "List the consumer groups of a stream", "O(1)")
                        .history("7.0.0", "Added the `entries-read` and `lag` fields"), StreamInfo::groups)
                .sub(spec("CONSUMERS", 4, READONLY).keys(at(2, RO, ACCESS)).tips("nondeterministic_output")
                        .doc("5.0.0", "List the consumers in a consumer group", "O(1)"), StreamInfo::consumers)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"),
                        StreamInfo::help), null);
    }

    // ---- XADD / XTRIM ----

    /** XADD/XTRIM's options (streamParseAddOrTrimArgsOrReply); idPos is XADD's ID argument. */
    private static final class AddArgs {
        StreamId id;
        boolean idGiven, seqGiven, noMkStream, approx, byLength, hasStrategy;
        int strategyArgIdx, idPos;
        long limit, maxLen;
        StreamId minId;

        StreamValue.Trim trim() {
            return new StreamValue.Trim(byLength, maxLen, minId, approx, limit);
        }
    }

    private static AddArgs parseAddOrTrim(Call c, boolean xadd) {
        AddArgs a = new AddArgs();
        int i = 2;
        boolean limitGiven = false;
        for (; i < c.argCount(); i++) {
            int more = c.argCount() - 1 - i;
            byte[] opt = c.arg(i);
            // Redis tests opt[0] and opt[1] of C strings: "*\0x" is "*", so are "~\0" and "=\0".
            if (xadd && BinaryText.cLength(opt) == 1 && opt[0] == '*') {
                break;
            } else if ((c.argIs(i, "MAXLEN") || c.argIs(i, "MINID")) && more > 0) {
                boolean byLength = c.argIs(i, "MAXLEN");
                if (a.hasStrategy) {
                    throw new CommandError("ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                }
                a.approx = false;
                byte[] next = c.arg(i + 1);
                if (more >= 2 && BinaryText.cLength(next) == 1 && (next[0] == '~' || next[0] == '=')) {
                    a.approx = next[0] == '~';
                    i++;
                }
                if (byLength) {
                    a.maxLen = c.longArg(i + 1);
                    if (a.maxLen < 0) throw new CommandError("ERR The MAXLEN argument must be >= 0.");
                } else {
                    a.minId = Streams.strictId(c, i + 1);
                }
                i++;
                a.hasStrategy = true;
                a.byLength = byLength;
                a.strategyArgIdx = i;
            } else if (c.argIs(i, "LIMIT") && more > 0) {
                a.limit = c.longArg(i + 1);
                if (a.limit < 0) throw new CommandError("ERR The LIMIT argument must be >= 0.");
                limitGiven = true;
                i++;
            } else if (xadd && c.argIs(i, "NOMKSTREAM")) {
                a.noMkStream = true;
            } else if (xadd) {
                boolean[] autoSeq = new boolean[1];
                a.id = StreamId.parse(opt, 0, true, autoSeq);
                if (a.id == null) throw new CommandError(Streams.INVALID_ID);
                a.idGiven = true;
                a.seqGiven = !autoSeq[0];
                break;
            } else {
                throw CommandError.syntax();
            }
        }
        a.idPos = i;
        if (a.limit != 0 && !a.hasStrategy) {
            throw new CommandError("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        }
        if (!xadd && !a.hasStrategy) throw new CommandError("ERR syntax error, XTRIM must be called with a trimming strategy");
        if (c.keyspace().isLoading()) {
            // Commands from the AOF (and a master) trim exactly as propagated.
            a.limit = 0;
        } else if (limitGiven) {
            if (!a.approx) throw new CommandError("ERR syntax error, LIMIT cannot be used without the special ~ option");
        } else if (a.approx) {
            long nodeEntries = c.config().getLong(ConfigOptions.STREAM_NODE_MAX_ENTRIES);
            a.limit = nodeEntries > Long.MAX_VALUE / 100 ? 1000000 : 100 * nodeEntries;
            if (a.limit <= 0) a.limit = 10000;
            if (a.limit > 1000000) a.limit = 1000000;
        } else {
            a.limit = 0;
        }
        return a;
    }

    /** XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...] */
    private void xadd(Call c) {
        AddArgs a = parseAddOrTrim(c, true);
        int fieldPos = a.idPos + 1;
        int rest = c.argCount() - fieldPos;
        if (rest < 2 || rest % 2 == 1) {
            throw new CommandError("ERR wrong number of arguments for '" + c.spec().fullName() + "' command");
        }
        if (a.idGiven && a.seqGiven && a.id.isZero()) throw new CommandError("ERR The ID specified in XADD must be greater than 0-0");
        byte[] key = c.arg(1);
        StreamValue s = Streams.write(c, key);
        boolean created = false;
        if (s == null) {
            if (a.noMkStream) {
                c.reply().nullBulk();
                return;
            }
            s = new StreamValue();
            created = true;
        }
        if (s.lastId.isMax()) {
            c.db().unchanged(key);
            throw new CommandError("ERR The stream has exhausted the last possible ID, unable to add more items");
        }
        long total = 0;
        for (int i = fieldPos; i < c.argCount(); i++) total += c.arg(i).length;
        if (total > StreamValue.LISTPACK_MAX_SIZE) throw new CommandError("ERR Elements are too large to be stored");
        StreamId id = s.append(c.args(), fieldPos, rest / 2, a.idGiven ? a.id : null, a.seqGiven, c.now(),
                c.config().getLong(ConfigOptions.STREAM_NODE_MAX_BYTES), c.config().getLong(ConfigOptions.STREAM_NODE_MAX_ENTRIES));
        if (id == null) {
            c.db().unchanged(key);
            throw new CommandError("ERR The ID specified in XADD is equal or smaller than the target stream top item");
        }
        if (created) c.db().set(key, s);
        byte[] idBytes = id.toBytes();
        c.reply().bulk(idBytes);
        c.notify(KeyspaceEvents.STREAM, "xadd", key);
        byte[][] propagated = c.args();
        if (a.hasStrategy) {
            if (s.trim(a.trim()) > 0) c.notify(KeyspaceEvents.STREAM, "xtrim", key);
            if (a.approx) propagated = rewriteTrim(propagated, s, a);
        }
        if (!a.idGiven || !a.seqGiven) {
            if (propagated == c.args()) propagated = propagated.clone();
            propagated[a.idPos] = idBytes;
        }
        if (propagated != c.args()) c.propagateAs(propagated);
        if (!created) c.signalReady(key);
    }

    /** "~ n" becomes "= <what is left>" so that replaying trims exactly (streamRewriteTrimArgument). */
    private static byte[][] rewriteTrim(byte[][] args, StreamValue s, AddArgs a) {
        byte[][] out = args.clone();
        out[a.strategyArgIdx - 1] = Streams.EQUALS;
        out[a.strategyArgIdx] = a.byLength ? Streams.number(s.length) : s.edgeId(true, false).toBytes();
        return out;
    }

    /** XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] */
    private void xtrim(Call c) {
        AddArgs a = parseAddOrTrim(c, false);
        byte[] key = c.arg(1);
        StreamValue s = Streams.write(c, key);
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        long deleted = s.trim(a.trim());
        if (deleted > 0) {
            c.notify(KeyspaceEvents.STREAM, "xtrim", key);
            if (a.approx) c.propagateAs(rewriteTrim(c.args(), s, a));
        } else {
            c.db().unchanged(key);
        }
        c.reply().integer(deleted);
    }

    // ---- reading and deleting entries ----

    /** XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count] */
    private void range(Call c, boolean rev) {
        StreamId start = Streams.bound(c, rev ? 3 : 2, true);
        StreamId end = Streams.bound(c, rev ? 2 : 3, false);
        long count = -1;
        for (int j = 4; j < c.argCount(); j++) {
            if (c.argIs(j, "COUNT") && j + 1 < c.argCount()) {
                count = Math.max(0, c.longArg(++j));
            } else {
                throw io.cinnabar.command.CommandError.syntax();
            }
        }
        StreamValue s = Streams.read(c, c.arg(1));
        if (s == null) {
            c.reply().emptyArray();
        } else if (count == 0) {
            c.reply().nullArray();
        } else {
            Streams.entries(c.reply(), s, start, end, count == -1 ? 0 : count, rev);
        }
    }

    /** XLEN key */
    private void xlen(Call c) {
        StreamValue s = Streams.read(c, c.arg(1));
        c.reply().integer(s == null ? 0 : s.length);
    }

    /** XDEL key id [id ...] */
    private void xdel(Call c) {
        byte[] key = c.arg(1);
        StreamValue s = Streams.write(c, key);
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        StreamId[] ids = new StreamId[c.argCount() - 2];
        for (int j = 2; j < c.argCount(); j++) ids[j - 2] = Streams.strictId(c, j);
        int deleted = 0;
        boolean firstEntry = false;
        for (StreamId id : ids) {
            if (!s.delete(id)) continue;
            if (id.equals(s.firstId)) firstEntry = true;
            if (id.compareTo(s.maxDeletedId) > 0) s.maxDeletedId = id;
            deleted++;
        }
        if (deleted > 0) {
            if (s.length == 0) s.firstId = StreamId.MIN;
            else if (firstEntry) s.firstId = s.edgeId(true, true);
            c.notify(KeyspaceEvents.STREAM, "xdel", key);
        } else {
            c.db().unchanged(key);
        }
        c.reply().integer(deleted);
    }

    /** XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id] */
    private void xsetid(Call c) {
        StreamId id = Streams.strictId(c, 2);
        long entriesAdded = -1;
        StreamId maxDeleted = StreamId.MIN;
        for (int i = 3; i < c.argCount(); i += 2) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "ENTRIESADDED") && more) {
                entriesAdded = c.longArg(i + 1);
                if (entriesAdded < 0) throw new CommandError("ERR entries_added must be positive");
            } else if (c.argIs(i, "MAXDELETEDID") && more) {
                maxDeleted = Streams.strictId(c, i + 1);
                if (id.compareTo(maxDeleted) < 0) {
                    throw new CommandError("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                }
            } else {
                throw CommandError.syntax();
            }
        }
        // As Redis: a change (dirty) that does not touch WATCH (no signalModifiedKey).
        StreamValue s = Streams.writeGroups(c, c.arg(1));
        if (s == null) throw new CommandError("ERR no such key");
        if (s.length > 0) {
            if (id.compareTo(s.lastValidId()) < 0) {
                throw new CommandError("ERR The ID specified in XSETID is smaller than the target stream top item");
            }
            if (entriesAdded != -1 && s.length > entriesAdded) {
                throw new CommandError("ERR The entries_added specified in XSETID is smaller than the target stream length");
            }
        }
        s.lastId = id;
        if (entriesAdded != -1) s.entriesAdded = entriesAdded;
        if (!maxDeleted.isZero()) s.maxDeletedId = maxDeleted;
        Streams.changed(c, 1);
        c.reply().ok();
        c.notify(KeyspaceEvents.STREAM, "xsetid", c.arg(1));
    }
}
