package io.cinnabar.config;

/** The "replicaof" option: "host port", or "no one" (stored as "", as CONFIG GET shows it). */
final class ReplicaOf {
    private ReplicaOf() {}

    static Object parse(String[] words) throws ConfigException {
        // No words is the default (no master); one empty word, as in "--replicaof ''", is wrong as in Redis.
        if (words.length == 0) return "";
        if (words.length != 2) throw new ConfigException("wrong number of arguments");
        if (words[0].equalsIgnoreCase("no") && words[1].equalsIgnoreCase("one")) return "";
        long port;
        try {
            port = Long.parseLong(words[1]);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) throw new ConfigException("Invalid master port");
        return words[0] + " " + port;
    }

    /** A master's file names no master: "no one" has no line. */
    static void rewrite(ConfigOption o, Object value, Object defaultValue, ConfigRewriter out) {
        String master = (String) value;
        if (master.isEmpty()) out.noLine(o.name);
        else out.line(o.name, o.name + " " + master, true);
    }
}
