package io.cinnabar.command.server;

import io.cinnabar.command.LatencyMonitor;

/** LATENCY GRAPH's text: Redis's latencyCommandGenSparkeline over sparkline.c (fill mode, 4 rows, 80 columns). */
final class LatencyGraph {
    private static final int COLUMNS = 80;
    private static final int ROWS = 4;
    private static final String CHARSET_FILL = "_o#";
    private static final int LABEL_MARGIN_TOP = 1;

    private LatencyGraph() {}

    static String render(String event, LatencyMonitor.Series s, long nowSeconds) {
        int n = 0;
        long[] values = new long[LatencyMonitor.HISTORY];
        String[] labels = new String[LatencyMonitor.HISTORY];
        long min = 0, max = 0;
        for (int i = 0; i < LatencyMonitor.HISTORY; i++) {
            int slot = s.slot(i);
            if (s.time(slot) == 0) continue;
            long latency = s.latency(slot);
            if (n == 0) {
                min = max = latency;
            } else {
                max = Math.max(max, latency);
                min = Math.min(min, latency);
            }
            values[n] = latency;
            labels[n++] = ago(nowSeconds - s.time(slot));
        }
        StringBuilder out = new StringBuilder();
        out.append(event).append(" - high ").append(max).append(" ms, low ").append(min)
                .append(" ms (all time high ").append(s.max()).append(" ms)\n");
        out.append("-".repeat(COLUMNS)).append('\n');
        for (int j = 0; j < n; j += COLUMNS) {
            if (j != 0) out.append('\n');
            renderRange(out, values, labels, min, max, j, Math.min(COLUMNS, n - j), n > 0);
        }
        return out.toString();
    }

    /** "12s", "5m", "3h" or "2d" ago, as Redis labels the columns. */
    private static String ago(long elapsed) {
        if (elapsed < 60) return elapsed + "s";
        if (elapsed < 3600) return elapsed / 60 + "m";
        if (elapsed < 86400) return elapsed / 3600 + "h";
        return elapsed / 86400 + "d";
    }

    /** sparklineRenderRange in fill mode: the bars row by row, then the labels written downwards. */
    private static void renderRange(StringBuilder out, long[] values, String[] labels, long seqMin, long seqMax,
                                    int offset, int len, boolean anyLabels) {
        double relmax = seqMax - seqMin;
        if (relmax == 0) relmax = 1;
        int steps = CHARSET_FILL.length() * ROWS;
        char[] chars = new char[len];
        for (int row = 0; ; row++) {
            boolean loop = false;
            java.util.Arrays.fill(chars, ' ');
            for (int j = 0; j < len; j++) {
                double relval = values[j + offset] - seqMin;
                int step = (int) ((int) (relval * steps) / relmax);
                step = Math.max(0, Math.min(steps - 1, step));
                if (row < ROWS) {
                    int charidx = step - ((ROWS - row - 1) * CHARSET_FILL.length());
                    loop = true;
                    if (charidx >= 0 && charidx < CHARSET_FILL.length()) chars[j] = CHARSET_FILL.charAt(charidx);
                    else if (charidx >= CHARSET_FILL.length()) chars[j] = '|';
                } else {
                    if (anyLabels && row - ROWS < LABEL_MARGIN_TOP) {
                        loop = true;
                        break;
                    }
                    String label = labels[j + offset];
                    int labelChar = row - ROWS - LABEL_MARGIN_TOP;
                    if (label.length() > labelChar) {
                        loop = true;
                        chars[j] = label.charAt(labelChar);
                    }
                }
            }
            if (!loop) return;
            out.append(chars).append('\n');
        }
    }
}
