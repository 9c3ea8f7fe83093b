package io.cinnabar.config;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** The "latency-tracking-info-percentiles" option: percentiles 0..100, or "" for none. */
final class LatencyPercentiles {
    private LatencyPercentiles() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length == 1 && words[0].isEmpty()) return "";
        StringBuilder out = new StringBuilder();
        for (String w : words) {
            double p;
            try {
                p = Double.parseDouble(w);
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid latency-tracking-info-percentiles parameters");
            }
            if (Double.isNaN(p) || p > 100.0 || p < 0.0) {
                throw new ConfigException("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
            if (out.length() > 0) out.append(' ');
            // Redis prints "%f" with trailing zeros trimmed: 99.9, 50. Rounded as Java's "%f" rounds,
            // without a Formatter: the default value is parsed at every start, and the first
            // Formatter in a JVM loads the locale data (~20 ms).
            out.append(BigDecimal.valueOf(p).setScale(6, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString());
        }
        return out.toString();
    }
}
