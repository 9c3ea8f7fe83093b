package io.cinnabar.command;

/**
 * One of Redis 7.0's key specs: where a command's keys are and how it uses them. The search
 * begins at an argument index ({@link #at}) or after a keyword ({@link #after}); from there the
 * keys are a range ({@link #range}; one key unless said otherwise) or counted by a numkeys
 * argument ({@link #keynum}). Declared beside the command, in Redis's order:
 * <pre>{@code spec("ZUNIONSTORE", -4, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1))}</pre>
 * COMMAND INFO prints them, the legacy (first, last, step) triple is derived from them, and
 * {@link #find} locates the keys of a call as Redis's getKeysUsingKeySpecs does.
 */
public final class KeySpec {
    private enum Begin { INDEX, KEYWORD, UNKNOWN }

    private enum Find { RANGE, KEYNUM, UNKNOWN }

    final int flags;
    final String notes;
    private final Begin begin;
    /** INDEX: the argument index; KEYWORD: where the search starts (negative: from the end, backwards). */
    private final int index;
    private final String keyword, lowerKeyword;
    private final Find find;
    /** RANGE: lastkey (relative to the first key; negative counts from the end) and limit. */
    private final int lastKey, limit;
    /** KEYNUM: the numkeys argument and the first key, both relative to where the search began. */
    private final int keyNumIdx, firstKey;
    private final int keyStep;

    private KeySpec(int flags, String notes, Begin begin, int index, String keyword, Find find,
                    int lastKey, int limit, int keyNumIdx, int firstKey, int keyStep) {
        this.flags = flags;
        this.notes = notes;
        this.begin = begin;
        this.index = index;
        this.keyword = keyword;
        this.lowerKeyword = keyword == null ? null : keyword.toLowerCase(java.util.Locale.ROOT);
        this.find = find;
        this.lastKey = lastKey;
        this.limit = limit;
        this.keyNumIdx = keyNumIdx;
        this.firstKey = firstKey;
        this.keyStep = keyStep;
    }

    /** The key at argument index (argv[0] is the command name). */
    public static KeySpec at(int index, KeyFlag... flags) {
        return new KeySpec(KeyFlag.bits(flags), null, Begin.INDEX, index, null, Find.RANGE, 0, 0, 0, 0, 1);
    }

    /** The argument after keyword, searched from startFrom on (backwards from the end when negative). */
    public static KeySpec after(String keyword, int startFrom, KeyFlag... flags) {
        return new KeySpec(KeyFlag.bits(flags), null, Begin.KEYWORD, startFrom, keyword, Find.RANGE, 0, 0, 0, 0, 1);
    }

    /** Keys no spec can locate (SORT's BY/GET patterns): a getkeys procedure finds them. */
    public static KeySpec unknown(KeyFlag... flags) {
        return new KeySpec(KeyFlag.bits(flags), null, Begin.UNKNOWN, 0, null, Find.UNKNOWN, 0, 0, 0, 0, 0);
    }

    /** Keys from the first through lastKey (relative; negative counts from the end), every keyStep. */
    public KeySpec range(int lastKey, int keyStep) {
        return range(lastKey, keyStep, 0);
    }

    /** As {@link #range(int, int)}; limit > 0 with lastKey -1 takes only 1/limit of the rest. */
    public KeySpec range(int lastKey, int keyStep, int limit) {
        return new KeySpec(flags, notes, begin, index, keyword, Find.RANGE, lastKey, limit, 0, 0, keyStep);
    }

    /** As many keys as argument keyNumIdx says, from firstKey on (both relative to the search's start). */
    public KeySpec keynum(int keyNumIdx, int firstKey, int keyStep) {
        return new KeySpec(flags, notes, begin, index, keyword, Find.KEYNUM, 0, 0, keyNumIdx, firstKey, keyStep);
    }

    /** The spec's notes, as COMMAND INFO prints them. */
    public KeySpec notes(String notes) {
        return new KeySpec(flags, notes, begin, index, keyword, find, lastKey, limit, keyNumIdx, firstKey, keyStep);
    }

    public boolean has(KeyFlag f) {
        return f.in(flags);
    }

    /** A plain index + range spec: what Redis's legacy (first, last, step) triple can express. */
    boolean isIndexRange() {
        return begin == Begin.INDEX && find == Find.RANGE;
    }

    int index() { return index; }
    int lastKey() { return lastKey; }
    int keyStep() { return keyStep; }
    int limit() { return limit; }

    /**
     * Adds this spec's keys in argv to out, as Redis's getKeysUsingKeySpecs; false when the spec
     * cannot be applied to this call (unknown, a bad numkeys, keys out of bounds, or incomplete),
     * in which case the command's getkeys procedure decides. A keyword that is absent adds nothing.
     */
    boolean find(byte[][] argv, KeyRefs out) {
        int argc = argv.length;
        int first = 0;
        switch (begin) {
            case INDEX -> first = index;
            case KEYWORD -> {
                int start = index > 0 ? index : argc + index;
                int end = index > 0 ? argc - 1 : 1;
                for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                    if (i >= argc || i < 1) break;
                    if (CommandTable.equalsIgnoreCase(lowerKeyword, argv[i])) {
                        first = i + 1;
                        break;
                    }
                }
                if (first == 0) return true;
            }
            default -> { return false; }
        }
        int last;
        if (find == Find.RANGE) {
            if (lastKey >= 0) last = first + lastKey;
            else if (limit == 0) last = argc + lastKey;
            else last = first + ((argc - first) / limit + lastKey);
        } else if (find == Find.KEYNUM) {
            if (keyNumIdx >= argc) return false;
            long n = parseStrict(argv[first + keyNumIdx]);
            if (n < 0) return false;
            first += firstKey;
            last = first + (int) n - 1;
        } else {
            return false;
        }
        if (last >= argc || last < first || first >= argc) return false;
        for (int i = first; i <= last; i += keyStep) out.key(i, flags);
        return !has(KeyFlag.INCOMPLETE);
    }

    /** Redis's string2ll for a count: a canonical non-negative integer, else -1. */
    private static long parseStrict(byte[] b) {
        if (b.length == 0 || b.length > 18 || (b[0] == '0' && b.length > 1)) return -1;
        long v = 0;
        for (byte c : b) {
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** Redis's addReplyCommandKeySpecs: one map per spec. */
    public void reply(io.cinnabar.protocol.Reply r) {
        r.map(notes == null ? 3 : 4);
        if (notes != null) {
            r.bulk("notes");
            r.bulk(notes);
        }
        r.bulk("flags");
        java.util.List<String> names = KeyFlag.names(flags);
        r.set(names.size());
        for (String f : names) r.simple(f);
        r.bulk("begin_search");
        r.map(2);
        r.bulk("type");
        switch (begin) {
            case INDEX -> {
                r.bulk("index");
                r.bulk("spec");
                r.map(1);
                r.bulk("index");
                r.integer(index);
            }
            case KEYWORD -> {
                r.bulk("keyword");
                r.bulk("spec");
                r.map(2);
                r.bulk("keyword");
                r.bulk(keyword);
                r.bulk("startfrom");
                r.integer(index);
            }
            default -> {
                r.bulk("unknown");
                r.bulk("spec");
                r.map(0);
            }
        }
        r.bulk("find_keys");
        r.map(2);
        r.bulk("type");
        switch (find) {
            case RANGE -> {
                r.bulk("range");
                r.bulk("spec");
                r.map(3);
                r.bulk("lastkey");
                r.integer(lastKey);
                r.bulk("keystep");
                r.integer(keyStep);
                r.bulk("limit");
                r.integer(limit);
            }
            case KEYNUM -> {
                r.bulk("keynum");
                r.bulk("spec");
                r.map(3);
                r.bulk("keynumidx");
                r.integer(keyNumIdx);
                r.bulk("firstkey");
                r.integer(firstKey);
                r.bulk("keystep");
                r.integer(keyStep);
            }
            default -> {
                r.bulk("unknown");
                r.bulk("spec");
                r.map(0);
            }
        }
    }
}
