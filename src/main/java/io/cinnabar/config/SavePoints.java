package io.cinnabar.config;

import java.util.OptionalLong;

/** The "save" option: pairs of seconds and changes, or "" for no snapshots. */
final class SavePoints {
    private SavePoints() {}

    static Object parse(String[] words) throws ConfigException {
        // Redis reads each word as a C string, up to a NUL: strcasecmp(argv[0], "") and strtoll.
        words = words.clone();
        for (int i = 0; i < words.length; i++) words[i] = ConfigOption.cString(new String[] {words[i]});
        if (words.length == 1 && words[0].isEmpty()) return "";
        if (words.length == 1 && words[0].contains(" ")) words = words[0].trim().split("\\s+");
        if (words.length % 2 != 0) throw new ConfigException("Invalid save parameters");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            // As strtoll reads them: seconds at least 1, changes at least 0 ("" reads as 0).
            OptionalLong v = Strtoll.parse(words[i], 10);
            if (v.isEmpty() || v.getAsLong() < (i % 2 == 0 ? 1 : 0)) throw new ConfigException("Invalid save parameters");
            if (sb.length() > 0) sb.append(' ');
            sb.append(v.getAsLong());
        }
        return sb.toString();
    }

    /**
     * A line a save point, or save "" for none: always, since a file without save lines would
     * bring the default points back.
     */
    static void rewrite(ConfigOption o, Object value, Object defaultValue, ConfigRewriter out) {
        String points = (String) value;
        if (points.isEmpty()) {
            out.line(o.name, o.name + " \"\"", true);
            return;
        }
        String[] words = points.split(" ");
        for (int i = 0; i < words.length; i += 2) out.line(o.name, o.name + " " + words[i] + " " + words[i + 1], true);
    }
}
