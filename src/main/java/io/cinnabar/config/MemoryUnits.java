package io.cinnabar.config;

import java.util.Locale;

/** Redis's memtoll: "1k" is 1000, "1kb" 1024, and so on for m/mb and g/gb. */
public final class MemoryUnits {
    private MemoryUnits() {}

    /** The byte count, or Long.MIN_VALUE when the text is not a memory value. */
    public static long parse(String text) {
        String s = text.toLowerCase(Locale.ROOT);
        long mul = 1;
        String[][] units = {{"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"},
                {"k", "1000"}, {"m", "1000000"}, {"g", "1000000000"}, {"b", "1"}};
        for (String[] u : units) {
            if (s.endsWith(u[0])) {
                mul = Long.parseLong(u[1]);
                s = s.substring(0, s.length() - u[0].length());
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), mul);
        } catch (NumberFormatException | ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }
}
