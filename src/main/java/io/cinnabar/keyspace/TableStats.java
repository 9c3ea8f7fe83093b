package io.cinnabar.keyspace;

import io.cinnabar.util.DoubleFormat;

/**
 * One hash table's shape in the words of Redis's _dictGetStatsHt (DEBUG HTSTATS, HTSTATS-KEY):
 * buckets, elements, how many buckets hold any, and how long their chains are. Fed one bucket at
 * a time, so a table of links and the plain array of volatile keys describe themselves alike.
 */
final class TableStats {
    /** Redis's DICT_STATS_VECTLEN: chains this long or longer share the last, unprinted, count. */
    private static final int VECTLEN = 50;

    private final long buckets;
    private final long[] chainsOfLength = new long[VECTLEN];
    private long elements, slots, maxChain;

    TableStats(long buckets) {
        this.buckets = buckets;
    }

    /** Counts one bucket holding a chain of length elements. */
    void bucket(long length) {
        chainsOfLength[(int) Math.min(length, VECTLEN - 1)]++;
        if (length == 0) return;
        slots++;
        elements += length;
        maxChain = Math.max(maxChain, length);
    }

    /** The text for table number index: 0 the main one, 1 a resize's target. */
    String describe(int index) {
        StringBuilder out = new StringBuilder("Hash table ").append(index).append(" stats (")
                .append(index == 0 ? "main hash table" : "rehashing target").append("):\n");
        if (elements == 0) return out.append("No stats available for empty dictionaries\n").toString();
        // Redis divides in float and prints with %.02f: the same float, rounded as glibc rounds.
        String average = DoubleFormat.fixed((float) elements / slots, 2);
        out.append(" table size: ").append(buckets).append('\n')
                .append(" number of elements: ").append(elements).append('\n')
                .append(" different slots: ").append(slots).append('\n')
                .append(" max chain length: ").append(maxChain).append('\n')
                .append(" avg chain length (counted): ").append(average).append('\n')
                .append(" avg chain length (computed): ").append(average).append('\n')
                .append(" Chain length distribution:\n");
        for (int i = 0; i < VECTLEN - 1; i++) {
            if (chainsOfLength[i] == 0) continue;
            float percent = (float) chainsOfLength[i] / buckets * 100;
            out.append("   ").append(i).append(": ").append(chainsOfLength[i])
                    .append(" (").append(DoubleFormat.fixed(percent, 2)).append("%)\n");
        }
        return out.toString();
    }
}
