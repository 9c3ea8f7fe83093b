package io.cinnabar.config;

/**
 * The "notify-keyspace-events" option: event class characters, stored in Redis's canonical order
 * ("KEA" reads back as "AKE", "g$lshzxetd" as "A"), as CONFIG GET shows them.
 */
final class KeyspaceEventFlags {
    /** Type and event classes in print order; together (without m and n) they are "A". */
    private static final String CLASSES = "g$lshzxetd";
    private static final String NOT_IN_ALL = "n";

    private KeyspaceEventFlags() {}

    static Object parse(String[] words) throws ConfigException {
        String given = ConfigOption.single(words);
        StringBuilder classes = new StringBuilder();
        boolean keyspace = false, keyevent = false, miss = false;
        for (char ch : given.toCharArray()) {
            if (ch == 'A') classes.append(CLASSES);
            else if (ch == 'K') keyspace = true;
            else if (ch == 'E') keyevent = true;
            else if (ch == 'm') miss = true;
            else if (CLASSES.indexOf(ch) >= 0 || NOT_IN_ALL.indexOf(ch) >= 0) classes.append(ch);
            else throw new ConfigException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        }
        StringBuilder out = new StringBuilder();
        boolean all = CLASSES.chars().allMatch(ch -> classes.indexOf(String.valueOf((char) ch)) >= 0);
        if (all) {
            out.append('A');
        } else {
            for (char ch : CLASSES.toCharArray()) if (classes.indexOf(String.valueOf(ch)) >= 0) out.append(ch);
        }
        if (!all && classes.indexOf(NOT_IN_ALL) >= 0) out.append(NOT_IN_ALL);
        if (keyspace) out.append('K');
        if (keyevent) out.append('E');
        if (miss) out.append('m');
        return out.toString();
    }
}
