package io.cinnabar.command;

import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;

/**
 * Redis's getkeys procedures (db.c), for the commands whose keys the key specs cannot always
 * find: COMMAND GETKEYS falls back to them when a spec fails, client tracking uses them first.
 * Where Redis's procedure leaves the flags out (the spec has them), so do these.
 */
public final class KeyProcs {
    private KeyProcs() {}

    /**
     * Redis's genericGetKeys: numkeys at countAt, the keys from firstAt on, then the destination
     * at storeAt (0: none). No keys at all when numkeys is below 1 or more than there are.
     */
    public static CommandSpec.KeyFinder numKeys(int storeAt, int countAt, int firstAt) {
        return (argv, sink) -> {
            long n = atoi(argv[countAt]);
            if (n < 1 || n > argv.length - firstAt) return;
            for (int i = 0; i < n; i++) sink.key(firstAt + i, 0);
            if (storeAt > 0) sink.key(storeAt, 0);
        };
    }

    /** Redis's sortROGetKeys: the sorted key (what BY and GET reach cannot be known). */
    public static void sortRo(byte[][] argv, CommandSpec.KeySink sink) {
        sink.key(1, KeyFlag.bits(RO, ACCESS));
    }

    /**
     * Redis's sortGetKeys: the sorted key, and the destination of the last STORE. Options are
     * skipped by their argument counts; STORE itself skips nothing, as in Redis.
     */
    public static void sort(byte[][] argv, CommandSpec.KeySink sink) {
        sink.key(1, KeyFlag.bits(RO, ACCESS));
        int store = -1;
        for (int i = 2; i < argv.length; i++) {
            if (is(argv[i], "limit")) i += 2;
            else if (is(argv[i], "get") || is(argv[i], "by")) i += 1;
            else if (is(argv[i], "store") && i + 1 < argv.length) store = i + 1;
        }
        if (store > 0) sink.key(store, KeyFlag.bits(OW, UPDATE));
    }

    /** Redis's setGetKeys: with GET the old value is read (RW access), else it is overwritten. */
    public static void set(byte[][] argv, CommandSpec.KeySink sink) {
        for (int i = 3; i < argv.length; i++) {
            if (is(argv[i], "get")) {
                sink.key(1, KeyFlag.bits(RW, ACCESS, UPDATE));
                return;
            }
        }
        sink.key(1, KeyFlag.bits(OW, UPDATE));
    }

    /**
     * Redis's bitfieldGetKeys: the key is only read when every operation is a GET (or OVERFLOW);
     * a SET, INCRBY or anything unparsable makes it read and written.
     */
    public static void bitfield(byte[][] argv, CommandSpec.KeySink sink) {
        boolean readonly = true;
        for (int i = 2; i < argv.length && readonly; i++) {
            int more = argv.length - i - 1;
            if (is(argv[i], "get") && more >= 2) i += 2;
            else if (is(argv[i], "overflow") && more >= 1) i += 1;
            else readonly = false;
        }
        sink.key(1, readonly ? KeyFlag.bits(RO, ACCESS) : KeyFlag.bits(RW, ACCESS, UPDATE));
    }

    /** Redis's georadiusGetKeys: the source, and the last STORE or STOREDIST destination. */
    public static void georadius(byte[][] argv, CommandSpec.KeySink sink) {
        int store = -1;
        for (int i = 5; i < argv.length; i++) {
            if ((is(argv[i], "store") || is(argv[i], "storedist")) && i + 1 < argv.length) store = ++i;
        }
        sink.key(1, 0);
        if (store > 0) sink.key(store, 0);
    }

    private static boolean is(byte[] arg, String lowerWord) {
        return CommandTable.equalsIgnoreCase(lowerWord, arg);
    }

    /** C's atoi, as Redis reads numkeys here: leading blanks, a sign, digits; 0 when none. */
    private static long atoi(byte[] b) {
        int i = 0;
        while (i < b.length && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r'))) i++;
        boolean negative = i < b.length && b[i] == '-';
        if (i < b.length && (b[i] == '-' || b[i] == '+')) i++;
        long v = 0;
        for (; i < b.length && b[i] >= '0' && b[i] <= '9' && v < Integer.MAX_VALUE; i++) v = v * 10 + (b[i] - '0');
        return negative ? -v : v;
    }
}
