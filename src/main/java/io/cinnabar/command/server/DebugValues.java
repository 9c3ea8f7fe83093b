package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.TypedValue;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.persistence.rdb.DumpPayload;
import io.cinnabar.persistence.rdb.RdbValues;
import io.cinnabar.util.DoubleFormat;
import io.cinnabar.util.Numbers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The DEBUG subcommands that describe how a value is held: OBJECT, HTSTATS, HTSTATS-KEY, LISTPACK
 * and QUICKLIST, in Redis's words, of Cinnabar's own tables and of the listpacks Redis would build.
 */
final class DebugValues {
    private DebugValues() {
    }

    /** DEBUG OBJECT key: Redis's one-line description of the stored object. */
    static void object(Call c) {
        c.keyspace().touchEnabled(false);
        Entry e = c.db().stored(c.arg(2)); // an expired key is shown, not reclaimed, as Redis's dictFind
        if (e == null) throw new CommandError(CommandError.NO_SUCH_KEY);
        Object v = e.value();
        String encoding = v instanceof byte[] ? e.stringEncoding() : ((TypedValue) v).encoding();
        // Redis prints its object's address, which INCR keeps (it changes the number in place):
        // a string's is its entry's here, as value() may hand out a copy of a packed string.
        Object holder = v instanceof byte[] ? e : v;
        StringBuilder text = new StringBuilder("Value at:0x")
                .append(Long.toHexString(0x7f0000000000L | (System.identityHashCode(holder) & 0xffffffffL)))
                .append(" refcount:").append(e.privateCopy() ? 1 : refcount(v, encoding))
                .append(" encoding:").append(encoding)
                .append(" serializedlength:").append(serializedLength(c, v))
                .append(" lru:").append(e.lru() & ((1 << 24) - 1))
                .append(" lru_seconds_idle:").append(c.keyspace().idleSeconds(e));
        if (v instanceof ListValue list) quicklistFields(c, list, text);
        c.reply().simple(text.toString());
    }

    /** The quicklist fields Redis adds for a list: nodes, average fill, fill limit, compression, listpack bytes. */
    private static void quicklistFields(Call c, ListValue list, StringBuilder text) {
        List<byte[]> nodes = RdbValues.quicklistNodes(list);
        long bytes = 0;
        for (byte[] node : nodes) bytes += node.length;
        text.append(" ql_nodes:").append(nodes.size())
                .append(" ql_avg_node:").append(DoubleFormat.fixed((double) list.size() / nodes.size(), 2))
                .append(" ql_listpack_max:").append(list.fill())
                .append(" ql_compressed:").append(list.compressDepth() != 0 ? 1 : 0)
                .append(" ql_uncompressed_size:").append(bytes);
    }

    /** rdbSavedObjectLen: the value's body as DUMP and the RDB file write it, rdbcompression included. */
    private static long serializedLength(Call c, Object v) {
        try {
            return DumpPayload.bodyLength(v, c.config().getBool(ConfigOptions.RDBCOMPRESSION));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Redis shares the integers 0..9999 (OBJ_SHARED_INTEGERS), reporting them as immortal. */
    private static int refcount(Object v, String encoding) {
        if (!encoding.equals("int")) return 1;
        long n = Numbers.parseLongOr((byte[]) v, -1);
        return n >= 0 && n < 10000 ? Integer.MAX_VALUE : 1;
    }

    /** DEBUG HTSTATS dbid: the database's key table and its volatile keys. */
    static void htstats(Call c) {
        long id = c.longArg(2);
        if (id < 0 || id >= c.keyspace().databaseCount()) throw new CommandError("ERR Out of range database");
        c.reply().verbatim("txt", c.keyspace().db((int) id).tableStats().getBytes(StandardCharsets.US_ASCII));
    }

    /** DEBUG HTSTATS-KEY key: the hash table under a set, hash or sorted set, when it has one. */
    static void htstatsKey(Call c) {
        Object v = inspected(c).value();
        String stats = null;
        if (v instanceof SetValue s) stats = s.tableStats();
        else if (v instanceof HashValue h) stats = h.tableStats();
        else if (v instanceof ZSetValue z) stats = z.tableStats();
        if (stats == null) {
            throw new CommandError("ERR The value stored at the specified key is not represented using an hash table");
        }
        c.reply().verbatim("txt", stats.getBytes(StandardCharsets.US_ASCII));
    }

    /** DEBUG LISTPACK key: a listpack-encoded hash or sorted set, entry by entry, on stdout. */
    static void listpack(Call c) {
        Object v = inspected(c).value();
        byte[] lp = null;
        if (v instanceof HashValue h && h.isCompact()) lp = RdbValues.listpack(h);
        else if (v instanceof ZSetValue z && z.isListpack()) lp = RdbValues.listpack(z);
        if (lp == null) throw new CommandError("ERR Not a listpack encoded object.");
        printOnStdout(StructureRepr.listpack(lp));
        c.reply().simple("Listpack structure printed on stdout");
    }

    /** DEBUG QUICKLIST key [full]: a list node by node on stdout; full (atoi) adds each node's listpack. */
    static void quicklist(Call c) {
        Object v = inspected(c).value();
        if (!(v instanceof ListValue list)) throw new CommandError("ERR Not a quicklist encoded object.");
        boolean full = c.argCount() == 4 && Numbers.parseLongOr(c.arg(3), 0) != 0;
        printOnStdout(StructureRepr.quicklist(list, RdbValues.quicklistNodes(list), list.compressDepth(), full));
        c.reply().simple("Quicklist structure printed on stdout");
    }

    /** objectCommandLookupOrReply: the key as OBJECT sees it (expired keys are gone), or "no such key". */
    private static Entry inspected(Call c) {
        Entry e = c.db().inspect(c.arg(2));
        if (e == null) throw new CommandError(CommandError.NO_SUCH_KEY);
        return e;
    }

    /** Redis prints these with printf, on its standard output rather than its log. */
    private static void printOnStdout(String text) {
        System.out.print(text);
        System.out.flush();
    }
}
