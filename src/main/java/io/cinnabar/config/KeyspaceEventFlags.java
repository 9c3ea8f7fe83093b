package io.cinnabar.config;

/**
 * The "notify-keyspace-events" option: which keyspace notifications fire (Redis's notify.c). The
 * value keeps the class bits commands test and the text CONFIG GET prints, in Redis's canonical
 * order ("KEA" reads back as "AKE", "g$lshzxetd" as "A"). The text alone would not do: "An" prints
 * as "A" in Redis too, yet still fires "new" events.
 */
public record KeyspaceEventFlags(int mask, String text) {
    // Redis's NOTIFY_* bits (server.h), so masks read the same in both code bases.
    public static final int KEYSPACE = 1;          // K
    public static final int KEYEVENT = 1 << 1;     // E
    public static final int GENERIC = 1 << 2;      // g
    public static final int STRING = 1 << 3;       // $
    public static final int LIST = 1 << 4;         // l
    public static final int SET = 1 << 5;          // s
    public static final int HASH = 1 << 6;         // h
    public static final int ZSET = 1 << 7;         // z
    public static final int EXPIRED = 1 << 8;      // x
    public static final int EVICTED = 1 << 9;      // e
    public static final int STREAM = 1 << 10;      // t
    public static final int KEY_MISS = 1 << 11;    // m, left out of A on purpose
    public static final int MODULE = 1 << 13;      // d
    public static final int NEW = 1 << 14;         // n, left out of A too
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    /** The class characters in print order, each with its bit. */
    private static final String PRINTED = "g$lshzxetdn";
    private static final int[] PRINTED_BITS = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};

    static Object parse(String[] words) throws ConfigException {
        int mask = 0;
        for (char ch : ConfigOption.cString(words).toCharArray()) {
            int bit = bit(ch);
            if (bit == 0) throw new ConfigException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            mask |= bit;
        }
        return new KeyspaceEventFlags(mask, print(mask));
    }

    private static int bit(char ch) {
        switch (ch) {
            case 'A': return ALL;
            case 'K': return KEYSPACE;
            case 'E': return KEYEVENT;
            case 'm': return KEY_MISS;
            default:
                int i = PRINTED.indexOf(ch);
                return i < 0 ? 0 : PRINTED_BITS[i];
        }
    }

    /** Redis's keyspaceEventsFlagsToString, including its habit of hiding 'n' behind 'A'. */
    private static String print(int mask) {
        StringBuilder out = new StringBuilder();
        if ((mask & ALL) == ALL) {
            out.append('A');
        } else {
            for (int i = 0; i < PRINTED_BITS.length; i++) if ((mask & PRINTED_BITS[i]) != 0) out.append(PRINTED.charAt(i));
        }
        if ((mask & KEYSPACE) != 0) out.append('K');
        if ((mask & KEYEVENT) != 0) out.append('E');
        if ((mask & KEY_MISS) != 0) out.append('m');
        return out.toString();
    }
}
