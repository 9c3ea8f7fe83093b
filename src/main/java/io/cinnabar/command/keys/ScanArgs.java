package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.util.BinaryText;

import java.util.Arrays;

/** The arguments SCAN, HSCAN, SSCAN and ZSCAN share (Redis's scanGenericCommand). */
public final class ScanArgs {
    public final long cursor;
    public final long count;
    /** null when every element matches. */
    private final GlobMatcher.Compiled pattern;
    /** SCAN's TYPE filter, or null. */
    public final byte[] typeName;

    private ScanArgs(long cursor, long count, GlobMatcher.Compiled pattern, byte[] typeName) {
        this.cursor = cursor;
        this.count = count;
        this.pattern = pattern;
        this.typeName = typeName;
    }

    /** Parses "cursor [MATCH pattern] [COUNT count] [TYPE type]" starting at cursorIndex. */
    public static ScanArgs parse(Call c, int cursorIndex, boolean allowType) {
        long cursor = parseCursor(c.arg(cursorIndex));
        long count = 10;
        GlobMatcher.Compiled pattern = null;
        byte[] typeName = null;
        for (int i = cursorIndex + 1; i < c.argCount(); i += 2) {
            boolean hasValue = c.argCount() - i >= 2;
            if (hasValue && c.argIs(i, "COUNT")) {
                count = c.longArg(i + 1);
                if (count < 1) throw CommandError.syntax();
            } else if (hasValue && c.argIs(i, "MATCH")) {
                pattern = GlobMatcher.matchesAll(c.arg(i + 1)) ? null : GlobMatcher.compile(c.arg(i + 1), false);
            } else if (hasValue && allowType && c.argIs(i, "TYPE")) {
                byte[] t = c.arg(i + 1);
                typeName = Arrays.copyOf(t, BinaryText.cLength(t)); // compared with strcasecmp
            } else {
                throw CommandError.syntax();
            }
        }
        return new ScanArgs(cursor, count, pattern, typeName);
    }

    public boolean matches(byte[] element) {
        return pattern == null || pattern.matches(element);
    }

    /** Whether the key of e matches (read in place). */
    public boolean matches(Entry e) {
        return pattern == null || e.keyMatches(pattern);
    }

    /** Redis parses the cursor with strtoul: optional sign, digits, no leading space, 64-bit wrap. */
    public static long parseCursor(byte[] b) {
        int i = 0;
        boolean negative = false;
        if (b.length > 0 && (b[0] == '+' || b[0] == '-')) {
            negative = b[0] == '-';
            i++;
        }
        if (i == b.length) {
            if (b.length == 0) return 0; // strtoul("") consumes nothing and leaves "" behind: cursor 0
            throw invalidCursor();
        }
        long v = 0;
        for (; i < b.length; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) throw invalidCursor();
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) throw invalidCursor();
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    private static CommandError invalidCursor() {
        return new CommandError("ERR invalid cursor");
    }
}
