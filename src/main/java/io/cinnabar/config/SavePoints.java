package io.cinnabar.config;

/** The "save" option: pairs of seconds and changes, or "" for no snapshots. */
final class SavePoints {
    private SavePoints() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length == 1 && words[0].isEmpty()) return "";
        if (words.length == 1 && words[0].contains(" ")) words = words[0].trim().split("\\s+");
        if (words.length % 2 != 0) throw new ConfigException("Invalid save parameters");
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            try {
                if (Long.parseLong(w) < 0) throw new ConfigException("Invalid save parameters");
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid save parameters");
            }
            if (sb.length() > 0) sb.append(' ');
            sb.append(Long.parseLong(w));
        }
        return sb.toString();
    }
}
