package io.cinnabar.command;

import java.util.List;

/** Redis's ACL command categories, in its ACLCommandCategories order (COMMAND INFO and ACL CAT list them so). */
public final class AclCategories {
    private AclCategories() {}

    /** Category names without the '@', bit i of a command's category bits is NAMES[i]. */
    public static final List<String> NAMES = List.of(
            "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
            "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
            "connection", "transaction", "scripting");

    /** The bit of a category name given without '@', case-insensitively; 0 when there is none. */
    public static long bit(String name) {
        for (int i = 0; i < NAMES.size(); i++) {
            if (NAMES.get(i).equalsIgnoreCase(name)) return 1L << i;
        }
        return 0;
    }

    /** The bits of categories written "@name". */
    static long bits(List<String> categories) {
        long b = 0;
        for (String c : categories) b |= bit(c.substring(1));
        return b;
    }
}
