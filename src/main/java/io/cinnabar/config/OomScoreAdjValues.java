package io.cinnabar.config;

/** The "oom-score-adj-values" option: three scores (master, replica, background child), -2000..2000. */
final class OomScoreAdjValues {
    private OomScoreAdjValues() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length != 3) throw new ConfigException("wrong number of arguments");
        StringBuilder out = new StringBuilder();
        for (String w : words) {
            long v = strtoll(w);
            if (v < -2000 || v > 2000) {
                throw new ConfigException("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            if (out.length() > 0) out.append(' ');
            out.append(v);
        }
        return out.toString();
    }

    /**
     * strtoll with Redis's end check: leading spaces and a sign, then digits to the end; no
     * digits at all read as 0 only when nothing is left (""). Long.MAX_VALUE when not a number.
     */
    private static long strtoll(String w) {
        int i = 0, n = w.length();
        while (i < n && Character.isWhitespace(w.charAt(i))) i++;
        int sign = i;
        if (i < n && (w.charAt(i) == '+' || w.charAt(i) == '-')) i++;
        if (i == n) return n == 0 ? 0 : Long.MAX_VALUE;
        try {
            return Long.parseLong(w.substring(sign));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
