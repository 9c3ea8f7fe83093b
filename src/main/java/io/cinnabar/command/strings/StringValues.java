package io.cinnabar.command.strings;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.GrowableString;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.util.Numbers;

/** Lookups and limits shared by the string and bitmap families. */
public final class StringValues {
    /** Java arrays stop just short of 2 GiB, whatever proto-max-bulk-len says. */
    private static final long ARRAY_LIMIT = Integer.MAX_VALUE - 8;
    private static final byte[][] SMALL_INTS = new byte[10_000][];

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) SMALL_INTS[i] = Integer.toString(i).getBytes();
    }

    private StringValues() {}

    /** The string at key for a write command (no hit/miss stats), null if absent; WRONGTYPE otherwise. */
    public static byte[] forWrite(Database db, byte[] key) {
        Object v = db.write(key);
        if (v == null || v instanceof byte[]) return (byte[]) v;
        throw WrongTypeException.INSTANCE;
    }

    /**
     * Redis's checkStringLength: a string may not grow past proto-max-bulk-len (nor overflow).
     * {@code size + append} is computed so that a wrap-around also fails.
     */
    public static void checkLength(Call c, long size, long append) {
        long total = size + append;
        long max = Math.min(c.config().getLong(ConfigOptions.PROTO_MAX_BULK_LEN), ARRAY_LIMIT);
        if (total > max || total < size || total < append) {
            throw new CommandError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        }
    }

    /**
     * The length of the string at key, -1 if absent, WRONGTYPE if another type, for the checks of a
     * command that edits it in place (APPEND, SETRANGE): Redis checks the type and the new length
     * before it unshares the string, so a command that fails leaves a shared integer shared (OBJECT
     * REFCOUNT) and its encoding alone. Changes nothing: {@link Database#growable} comes after.
     */
    public static long lengthBeforeEdit(Database db, byte[] key) {
        Object s = db.stringBeforeEdit(key);
        return s == null ? -1 : length(s);
    }

    /** Length of a string from {@link Database#getStringInPlace}. */
    public static int length(Object s) {
        return s instanceof byte[] b ? b.length : ((GrowableString) s).length();
    }

    /** Bytes of a string from {@link Database#getStringInPlace}: valid up to {@link #length}, zeros after; read only. */
    public static byte[] bytes(Object s) {
        return s instanceof byte[] b ? b : ((GrowableString) s).array();
    }

    /** Decimal bytes of v; 0..9999 share one array each, as Redis shares small integer objects. */
    public static byte[] decimal(long v) {
        return v >= 0 && v < SMALL_INTS.length ? SMALL_INTS[(int) v] : Numbers.toBytes(v);
    }
}
