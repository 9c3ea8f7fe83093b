package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Redis's latency monitor (latency.c): per event ("command", "fast-command", "expire-cycle",
 * "aof-fsync-always"...), the worst latency of each second in which one reached
 * latency-monitor-threshold milliseconds, the last 160 such seconds, plus the all-time maximum.
 * Dated by the keyspace clock, as SLOWLOG is. Keyspace thread only.
 */
public final class LatencyMonitor {
    /** Redis's LATENCY_TS_LEN: samples kept per event. */
    public static final int HISTORY = 160;

    /** One event's ring of samples; time 0 marks an empty slot. */
    public static final class Series {
        final long[] times = new long[HISTORY];
        final long[] latencies = new long[HISTORY];
        int next;
        long max;

        /** Index of the i-th oldest slot (0 = the slot next to be overwritten). */
        public int slot(int i) {
            return (next + i) % HISTORY;
        }

        public long time(int slot) { return times[slot]; }
        public long latency(int slot) { return latencies[slot]; }
        public long max() { return max; }

        /** The most recent slot. */
        public int last() {
            return (next + HISTORY - 1) % HISTORY;
        }
    }

    private final Map<String, Series> events = new LinkedHashMap<>();
    private final Config config;
    private final Keyspace keyspace;

    LatencyMonitor(Config config, Keyspace keyspace) {
        this.config = config;
        this.keyspace = keyspace;
    }

    /** Redis's latencyAddSampleIfNeeded: records when the monitor is on and ms reaches its threshold. */
    public void addSampleIfNeeded(String event, long ms) {
        long threshold = config.getLong(ConfigOptions.LATENCY_MONITOR_THRESHOLD);
        if (threshold != 0 && ms >= threshold) addSample(event, ms);
    }

    /** Redis's latencyAddSample: one sample per second and event, the worst of that second. */
    public void addSample(String event, long ms) {
        Series s = events.computeIfAbsent(event, e -> new Series());
        long now = keyspace.mstime() / 1000;
        if (ms > s.max) s.max = ms;
        int prev = s.last();
        if (s.times[prev] == now) {
            if (ms > s.latencies[prev]) s.latencies[prev] = ms;
            return;
        }
        s.times[s.next] = now;
        s.latencies[s.next] = ms;
        s.next = (s.next + 1) % HISTORY;
    }

    /** The series of an event (exact name, as Redis's dict lookup), or null. */
    public Series series(String event) {
        return events.get(event);
    }

    public Map<String, Series> events() {
        return events;
    }

    /** Forgets one event (any case, as Redis's strcasecmp) or all when event is null; how many went. */
    public int reset(String event) {
        int resets = 0;
        for (Iterator<String> it = events.keySet().iterator(); it.hasNext(); ) {
            String name = it.next();
            if (event == null || name.equalsIgnoreCase(event)) {
                it.remove();
                resets++;
            }
        }
        return resets;
    }

    /** Seconds now, by the clock samples are dated with. */
    public long nowSeconds() {
        return keyspace.mstime() / 1000;
    }
}
