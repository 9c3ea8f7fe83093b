package io.cinnabar.persistence.rdb;

import io.cinnabar.util.Numbers;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks that a listpack read from a file is a well-formed stream node (streamValidateListpackIntegrity
 * with deep=1): master entry, then count+deleted entries each with its lp-count. Always done, as
 * the stream code walks nodes without bounds checks.
 */
final class StreamNodeCheck implements Listpack.EntryVisitor {
    /** Each element: its integer value, or null for a string that is not one. */
    private final List<Long> elements = new ArrayList<>();
    private final long[] parsed = new long[1];
    private int i;

    private StreamNodeCheck() {
    }

    static boolean valid(byte[] lp) {
        StreamNodeCheck c = new StreamNodeCheck();
        if (Listpack.walk(lp, c) < 0) return false;
        return c.check();
    }

    @Override
    public boolean string(byte[] buf, int off, int len) {
        elements.add(len <= 20 && Numbers.parseLong(buf, off, len, parsed) ? parsed[0] : null);
        return true;
    }

    @Override
    public boolean integer(long value) {
        elements.add(value);
        return true;
    }

    /** The next element as an integer, null when missing or not an integer. */
    private Long next() {
        return i < elements.size() ? elements.get(i++) : null;
    }

    private boolean skip(long n) {
        if (n < 0 || i + n > elements.size()) return false;
        i += (int) n;
        return true;
    }

    private boolean check() {
        Long count = next(), deleted = next(), masterFields = next();
        if (count == null || deleted == null || masterFields == null || !skip(masterFields)) return false;
        Long zero = next();
        if (zero == null || zero != 0) return false;
        for (long e = count + deleted; e > 0; e--) {
            Long flags = next();
            if (flags == null || next() == null || next() == null) return false;
            long fields = masterFields, extra = 3;
            if ((flags & 2) == 0) {
                Long n = next();
                if (n == null || !skip(n)) return false;
                fields = n;
                extra += n + 1;
            }
            if (!skip(fields)) return false;
            Long lpCount = next();
            if (lpCount == null || lpCount != fields + extra) return false;
        }
        return i == elements.size();
    }
}
