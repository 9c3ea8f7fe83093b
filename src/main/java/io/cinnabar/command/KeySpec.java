package io.cinnabar.command;

import java.util.List;

/**
 * One of Redis 7.0's key specs, declared where the legacy (first, last, step) triple cannot say
 * which argument is which key or how it is accessed (GEORADIUS ... STORE dst): the search begins
 * at an argument index or right after a keyword, and finds one key there. COMMAND INFO prints
 * these; COMMAND GETKEYS and the key finder read them as Redis's getKeysUsingKeySpecs does.
 */
public final class KeySpec {
    final List<String> flags;
    final int index;
    /** As Redis declares it ("STORE"); null when the search begins at {@link #index}. */
    final String keyword;
    private final String lowerKeyword;
    final int startFrom;

    private KeySpec(List<String> flags, int index, String keyword, int startFrom) {
        this.flags = flags;
        this.index = index;
        this.keyword = keyword;
        this.lowerKeyword = keyword == null ? null : keyword.toLowerCase(java.util.Locale.ROOT);
        this.startFrom = startFrom;
    }

    /** The key at argument pos; flags as COMMAND INFO prints them ("RO", "access"). */
    public static KeySpec index(int pos, String... flags) {
        return new KeySpec(List.of(flags), pos, null, 0);
    }

    /** The argument after the first keyword found from argument startFrom on (startFrom > 0). */
    public static KeySpec keyword(String keyword, int startFrom, String... flags) {
        return new KeySpec(List.of(flags), 0, keyword, startFrom);
    }

    public List<String> flags() { return flags; }
    public int index() { return index; }
    public String keyword() { return keyword; }
    public int startFrom() { return startFrom; }

    /** The argv position of this spec's key, -1 if the call has none (no keyword, or nothing after it). */
    public int find(byte[][] argv) {
        if (keyword == null) return index < argv.length ? index : -1;
        // The keyword in the last argument has no key after it, so Redis stops before it.
        for (int i = startFrom; i < argv.length - 1; i++) {
            if (CommandTable.equalsIgnoreCase(lowerKeyword, argv[i])) return i + 1;
        }
        return -1;
    }
}
