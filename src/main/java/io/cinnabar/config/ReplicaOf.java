package io.cinnabar.config;

/** The "replicaof" option: "host port", or "no one" (stored as "", as CONFIG GET shows it). */
final class ReplicaOf {
    private ReplicaOf() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length == 1 && words[0].isEmpty()) return "";
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
}
