package io.cinnabar.config;

/** The "oom-score-adj-values" option: three scores (master, replica, background child), -2000..2000. */
final class OomScoreAdjValues {
    private OomScoreAdjValues() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length != 3) throw new ConfigException("wrong number of arguments");
        StringBuilder out = new StringBuilder();
        for (String w : words) {
            // Not a number (or past the range) reads as out of range, as Redis's unchecked strtoll does.
            long v = Strtoll.parse(w, 10).orElse(Long.MAX_VALUE);
            if (v < -2000 || v > 2000) {
                throw new ConfigException("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            if (out.length() > 0) out.append(' ');
            out.append(v);
        }
        return out.toString();
    }

}
