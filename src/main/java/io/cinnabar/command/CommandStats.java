package io.cinnabar.command;

/** Per-command counters for INFO commandstats; keyspace thread only. */
public final class CommandStats {
    public long calls;
    public long micros;
    public long rejectedCalls;
    public long failedCalls;

    public void resetCounters() {
        calls = micros = rejectedCalls = failedCalls = 0;
    }
}
