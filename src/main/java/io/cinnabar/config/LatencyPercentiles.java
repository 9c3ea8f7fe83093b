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
            // Redis's string2d: strtod's syntax (hex too), no leading space, nothing left over
            double p = io.cinnabar.util.Numbers.parseDouble(w.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (Double.isNaN(p)) throw new ConfigException("Invalid latency-tracking-info-percentiles parameters");
            if (p > 100.0 || p < 0.0) {
                throw new ConfigException("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
            if (out.length() > 0) out.append(' ');
            // Redis prints "%f" with trailing zeros trimmed: 99.9, 50. Rounded as Java's "%f" rounds,
            // without a Formatter: the default value is parsed at every start, and the first
            // Formatter in a JVM loads the locale data (~20 ms).
            // (-0 passes the range check and "%f" keeps its sign.)
            if (p == 0 && 1 / p < 0) out.append('-');
            out.append(BigDecimal.valueOf(p).setScale(6, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString());
        }
        return out.toString();
    }

    /** Always written, "" too, so that the defaults do not come back. */
    static void rewrite(ConfigOption o, Object value, Object defaultValue, ConfigRewriter out) {
        String percentiles = (String) value;
        out.line(o.name, o.name + " " + (percentiles.isEmpty() ? "\"\"" : percentiles), true);
    }
}
