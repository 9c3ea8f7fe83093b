package io.cinnabar.config;

/** The "oom-score-adj-values" option: three scores (master, replica, background child), -2000..2000. */
final class OomScoreAdjValues {
    private OomScoreAdjValues() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length != 3) throw new ConfigException("wrong number of arguments");
        StringBuilder out = new StringBuilder();
        for (String w : words) {
            long v;
            try {
                v = Long.parseLong(w);
            } catch (NumberFormatException e) {
                v = Long.MAX_VALUE;
            }
            if (v < -2000 || v > 2000) {
                throw new ConfigException("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            if (out.length() > 0) out.append(' ');
            out.append(v);
        }
        return out.toString();
    }
}
