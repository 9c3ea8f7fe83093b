package io.cinnabar.command.sort;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeySpec;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.TypedValue;
import io.cinnabar.keyspace.ValueType;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;
import io.cinnabar.util.PartialQuickSort;

import java.util.Arrays;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;
import static io.cinnabar.command.KeySpec.unknown;

/**
 * SORT and SORT_RO (sort.c): sort a list, set or sorted set numerically or byte-wise, by the
 * element itself or by external keys / hash fields named by a pattern, and reply or STORE the
 * result (optionally replaced by GET lookups) as a list.
 */
public final class SortCommands implements CommandFamily {
    /** quicklistCreate()'s fill (Redis's default list-max-listpack-size). */
    private static final int QUICKLIST_CREATE_FILL = -2;
    private static final String NOT_DOUBLE = "ERR One or more scores can't be converted into double";

    private static final KeySpec BY_GET_KEYS = unknown(RO, ACCESS).notes("For the optional BY/GET keyword. It is marked "
            + "'unknown' because the key names derive from the content of the key we sort");
    private static final KeySpec STORE_KEY = unknown(OW, UPDATE).notes("For the optional STORE keyword. It is marked "
            + "'unknown' because the keyword can appear anywhere in the argument array");

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SORT", -2, WRITE, DENYOOM).keys(at(1, RO, ACCESS), BY_GET_KEYS, STORE_KEY)
                .keyFinder(KeyProcs::sort).withoutGroupCategory()
                .acl("@set", "@sortedset", "@list", "@dangerous")
                .doc("1.0.0", "Sort the elements in a list, set or sorted set",
                        "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N)."), c -> sort(c, false));
        t.add(spec("SORT_RO", -2, READONLY).keys(at(1, RO, ACCESS), BY_GET_KEYS)
                .keyFinder(KeyProcs::sortRo).withoutGroupCategory()
                .acl("@set", "@sortedset", "@list", "@dangerous")
                .doc("7.0.0", "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
                        "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N)."),
                c -> sort(c, true));
    }

    /** One element being sorted with its sort weight: a score, or the BY value for ALPHA. */
    private static final class Item {
        final byte[] element;
        double score;
        byte[] by;

        Item(byte[] element) {
            this.element = element;
        }
    }

    /**
     * SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA] [STORE destination]
     * SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA]
     */
    private void sort(Call c, boolean readonly) {
        boolean desc = false, alpha = false, dontSort = false;
        long limitStart = 0, limitCount = -1;
        byte[] sortBy = null, store = null;
        byte[][] gets = new byte[c.argCount()][];
        int getCount = 0;
        boolean readsAnyKey = c.server().acl().readsAnyKey(c.client(), c.spec(), c.args());
        // A pattern names keys of other slots: Redis refuses BY (with a '*') and GET in cluster mode.
        boolean cluster = c.server().config().getBool(ConfigOptions.CLUSTER_ENABLED);
        for (int j = 2; j < c.argCount(); j++) {
            int left = c.argCount() - j - 1;
            if (c.argIs(j, "ASC")) {
                desc = false;
            } else if (c.argIs(j, "DESC")) {
                desc = true;
            } else if (c.argIs(j, "ALPHA")) {
                alpha = true;
            } else if (c.argIs(j, "LIMIT") && left >= 2) {
                limitStart = c.longArg(j + 1);
                limitCount = c.longArg(j + 2);
                j += 2;
            } else if (!readonly && c.argIs(j, "STORE") && left >= 1) {
                store = c.arg(++j);
            } else if (c.argIs(j, "BY") && left >= 1) {
                sortBy = c.arg(++j);
                if (indexOf(sortBy, (byte) '*', 0, BinaryText.cLength(sortBy)) < 0) {
                    // A constant BY pattern weighs every element the same: nothing to sort, even
                    // when a later BY names a real pattern (Redis never clears dontsort).
                    dontSort = true;
                } else if (cluster) {
                    throw new CommandError("ERR BY option of SORT denied in Cluster mode.");
                } else if (!readsAnyKey) {
                    // A real pattern may read any key: only for users who may (Redis's user_has_full_key_access).
                    throw new CommandError("ERR BY option of SORT denied due to insufficient ACL permissions.");
                }
            } else if (c.argIs(j, "GET") && left >= 1) {
                if (cluster) throw new CommandError("ERR GET option of SORT denied in Cluster mode.");
                if (!readsAnyKey) throw new CommandError("ERR GET option of SORT denied due to insufficient ACL permissions.");
                gets[getCount++] = c.arg(++j);
            } else {
                throw CommandError.syntax();
            }
        }

        Object value = c.db().read(c.arg(1));
        ValueType type = value == null ? ValueType.LIST : ValueType.of(value);
        if (type != ValueType.LIST && type != ValueType.SET && type != ValueType.ZSET) throw WrongTypeException.INSTANCE;
        if (type == ValueType.ZSET && ((ZSetValue) value).isListpack()) {
            // sortCommandGeneric converts a listpack sorted set to skiplist for good, even for SORT_RO
            // (OBJECT ENCODING shows it); an encoding change is no change of the value.
            value = c.db().write(c.arg(1));
            ((ZSetValue) value).useSkiplist();
            c.db().unchanged(c.arg(1));
        }

        // An unsorted set would come out in hash order, which replicas and the AOF could not
        // reproduce: Redis sorts it byte-wise when storing and in scripts.
        if (dontSort && type == ValueType.SET && (store != null || c.client().isScript())) {
            dontSort = false;
            alpha = true;
            sortBy = null;
        }

        long length = value == null ? 0 : type == ValueType.LIST ? ((ListValue) value).size()
                : type == ValueType.SET ? ((SetValue) value).size() : zsetSize((TypedValue) value);
        // Redis's LIMIT clamping, kept exactly: it decides the reply length in every corner.
        long start = Math.min(Math.max(limitStart, 0), length);
        limitCount = Math.min(Math.max(limitCount, -1), length);
        long end = limitCount < 0 ? length - 1 : start + limitCount - 1;
        if (start >= length) {
            start = length - 1;
            end = length - 2;
        }
        if (end >= length) end = length - 1;

        Item[] items;
        if (dontSort && type != ValueType.SET) {
            // Lists and sorted sets keep their own order (reversed by DESC): load just the range.
            int n = (int) Math.max(0, end - start + 1);
            items = type == ValueType.LIST ? listRange((ListValue) value, start, n, desc)
                    : zsetRange((TypedValue) value, start, n, desc);
            end -= start;
            start = 0;
        } else {
            items = loadAll(value, type, (int) length);
        }

        if (!dontSort) {
            boolean bad = false;
            for (Item it : items) {
                byte[] weight = it.element;
                if (sortBy != null) {
                    weight = lookupByPattern(c.db(), sortBy, it.element);
                    if (weight == null) continue;
                }
                if (alpha) {
                    if (sortBy != null) it.by = weight;
                } else {
                    it.score = sortScore(weight);
                    if (Double.isNaN(it.score)) bad = true;
                }
            }
            if (bad) throw new CommandError(NOT_DOUBLE);
            java.util.Comparator<Item> cmp = comparator(alpha, sortBy != null, desc);
            // As sortCommandGeneric: BY with a LIMIT short of everything sorts partially (pqsort, not
            // stable); otherwise libc's qsort, which glibc implements as a stable merge sort. Without
            // BY the order is total (equal scores fall back to the elements' bytes, equal bytes are
            // the same element), so the LIMIT's range is the same however it is found: partially
            // here too. SORT of 10k numbers LIMIT 0 10 sorted all of them, at 0.71x Redis's rate.
            if (start != 0 || end != items.length - 1) PartialQuickSort.sort(items, cmp, (int) start, (int) end);
            else Arrays.sort(items, cmp);
        }

        int count = (int) (end - start + 1);
        long outputLength = getCount > 0 ? (long) getCount * count : count;
        if (store == null) {
            Reply r = c.reply();
            r.array((int) outputLength);
            for (int j = (int) start; j <= end; j++) {
                if (getCount == 0) r.bulk(items[j].element);
                for (int g = 0; g < getCount; g++) {
                    byte[] v = lookupByPattern(c.db(), gets[g], items[j].element);
                    if (v == null) r.nullBulk(); else r.bulk(v);
                }
            }
            return;
        }
        // sort.c stores into createQuicklistObject() without quicklistSetOptions: quicklistCreate's
        // fill of -2 (8 KB nodes), whatever list-max-listpack-size says, for the list's whole life.
        ListValue result = new ListValue(QUICKLIST_CREATE_FILL);
        for (int j = (int) start; j <= end; j++) {
            if (getCount == 0) result.push(items[j].element, false);
            for (int g = 0; g < getCount; g++) {
                byte[] v = lookupByPattern(c.db(), gets[g], items[j].element);
                result.push(v == null ? EMPTY : v, false);
            }
        }
        // Like every write that creates a list, storing one wakes clients blocked on the key.
        if (outputLength > 0) {
            c.db().set(store, result);
            c.notify(KeyspaceEvents.LIST, "sortstore", store);
        } else if (c.db().delete(store)) {
            c.notify(KeyspaceEvents.GENERIC, "del", store);
        }
        c.reply().integer(outputLength);
    }

    private static final byte[] EMPTY = new byte[0];

    private static java.util.Comparator<Item> comparator(boolean alpha, boolean byPattern, boolean desc) {
        java.util.Comparator<Item> cmp;
        if (!alpha) {
            // Equal scores fall back to the elements' bytes so the order is deterministic.
            cmp = (a, b) -> a.score > b.score ? 1 : a.score < b.score ? -1 : Arrays.compareUnsigned(a.element, b.element);
        } else if (byPattern) {
            // Elements whose BY key is missing come first.
            cmp = (a, b) -> a.by == null || b.by == null
                    ? (a.by == b.by ? 0 : a.by == null ? -1 : 1)
                    : Arrays.compareUnsigned(a.by, b.by);
        } else {
            // Redis uses strcoll here; byte order is what it gives in the C locale.
            cmp = (a, b) -> Arrays.compareUnsigned(a.element, b.element);
        }
        return desc ? cmp.reversed() : cmp;
    }

    // ---- loading the elements ----

    private static Item[] loadAll(Object value, ValueType type, int length) {
        Item[] items = new Item[length];
        if (value == null) return items;
        if (type == ValueType.LIST) return listRange((ListValue) value, 0, length, false);
        if (type == ValueType.ZSET) return zsetAll((TypedValue) value);
        int[] i = {0};
        ((SetValue) value).forEach(m -> items[i[0]++] = new Item(m));
        return items;
    }

    /** count elements from index start, counted from the tail (and walking towards the head) when reverse. */
    private static Item[] listRange(ListValue list, long start, int count, boolean reverse) {
        Item[] items = new Item[count];
        if (count == 0) return items;
        ListValue.Cursor cur = list.cursor(reverse ? list.size() - start - 1 : start);
        for (int i = 0; i < count; i++) {
            items[i] = new Item(cur.toArray());
            if (reverse) cur.prev(); else cur.next();
        }
        return items;
    }

    // ---- sorted sets ----
    // Not sorting ("BY nosort"): score order, ranks as ZRANGE/ZREVRANGE. Sorting: every member once.

    private static long zsetSize(TypedValue zset) {
        return ((ZSetValue) zset).size();
    }

    private static Item[] zsetRange(TypedValue zset, long start, int count, boolean reverse) {
        ZSetValue z = (ZSetValue) zset;
        Item[] items = new Item[count];
        if (count == 0) return items;
        ZSetValue.Cursor cur = z.at(reverse ? z.size() - 1 - start : start);
        for (int i = 0; i < count; i++) {
            items[i] = new Item(cur.member());
            if (reverse) cur.previous(); else cur.next();
        }
        return items;
    }

    private static Item[] zsetAll(TypedValue zset) {
        ZSetValue z = (ZSetValue) zset;
        Item[] items = new Item[z.size()];
        int[] i = {0};
        z.forEach((member, score) -> items[i[0]++] = new Item(member));
        return items;
    }

    // ---- patterns ----

    /**
     * Redis's lookupKeyByPattern: "#" is the element itself; otherwise the first '*' is replaced by
     * the element and the key read as a string, or, when "->field" follows the '*', as a hash field.
     * Null for no '*', a missing key or field, or a key of another type.
     */
    static byte[] lookupByPattern(Database db, byte[] pattern, byte[] element) {
        // spat[0] == '#' && spat[1] == '\0': "#\0x" is "#" too.
        if (pattern.length > 0 && pattern[0] == '#' && (pattern.length == 1 || pattern[1] == 0)) return element;
        // Redis finds the '*' with strchr and the "->" with strstr: neither looks past a NUL byte.
        int cLength = BinaryText.cLength(pattern);
        int star = indexOf(pattern, (byte) '*', 0, cLength);
        if (star < 0) return null;
        int arrow = indexOfArrow(pattern, star + 1, cLength);
        boolean hasField = arrow >= 0 && arrow + 2 < pattern.length && pattern[arrow + 2] != 0;
        int suffixEnd = hasField ? arrow : pattern.length;
        byte[] key = new byte[star + element.length + suffixEnd - star - 1];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, suffixEnd - star - 1);
        Object o = db.read(key);
        if (hasField) {
            return o instanceof HashValue ? ((HashValue) o).get(Arrays.copyOfRange(pattern, arrow + 2, pattern.length)) : null;
        }
        return o instanceof byte[] ? (byte[]) o : null;
    }

    private static int indexOf(byte[] b, byte x, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] == x) return i;
        return -1;
    }

    private static int indexOfArrow(byte[] b, int from, int to) {
        for (int i = from; i + 1 < to; i++) if (b[i] == '-' && b[i + 1] == '>') return i;
        return -1;
    }

    /**
     * The weight of a numeric sort, as Redis reads it with plain strtod: leading blanks are
     * skipped, the empty string is 0, and trailing junk, NaN or a value out of double range
     * (overflow or underflow, ERANGE) make it unusable (NaN here).
     */
    static double sortScore(byte[] b) {
        int n = b.length;
        // strtod stops at a NUL byte and Redis then sees the end of the string.
        for (int i = 0; i < n; i++) {
            if (b[i] == 0) {
                n = i;
                break;
            }
        }
        if (n == 0) return 0;
        int from = 0;
        while (from < n && isSpace(b[from])) from++;
        if (from == n) return Double.NaN;
        byte[] text = from == 0 && n == b.length ? b : Arrays.copyOfRange(b, from, n);
        double d = Numbers.parseDouble(text);
        if (Double.isNaN(d)) return d;
        if (Double.isInfinite(d)) return isInfinityWord(text) ? d : Double.NaN;
        if (Math.abs(d) < Double.MIN_NORMAL) {
            // glibc flags an inexact subnormal result (every decimal one in practice) and a
            // non-zero number that rounded to zero; exact hex subnormals pass.
            boolean hex = isHex(text);
            if (d == 0 ? hasNonZeroMantissa(text, hex) : !hex) return Double.NaN;
        }
        return d;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isInfinityWord(byte[] t) {
        for (byte x : t) if (x == 'i' || x == 'I') return true;
        return false;
    }

    private static boolean isHex(byte[] t) {
        int i = t[0] == '+' || t[0] == '-' ? 1 : 0;
        return t.length > i + 1 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
    }

    /** True when the digits before the exponent are not all zero (so a zero result underflowed). */
    private static boolean hasNonZeroMantissa(byte[] t, boolean hex) {
        int i = t[0] == '+' || t[0] == '-' ? 1 : 0;
        if (hex) i += 2;
        for (; i < t.length; i++) {
            byte x = t[i];
            if (hex ? (x == 'p' || x == 'P') : (x == 'e' || x == 'E')) break;
            if (x >= '1' && x <= '9') return true;
            if (hex && ((x >= 'a' && x <= 'f') || (x >= 'A' && x <= 'F'))) return true;
        }
        return false;
    }
}
