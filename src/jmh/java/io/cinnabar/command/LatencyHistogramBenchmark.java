package io.cinnabar.command;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * What latency-tracking adds to every command: one histogram recording (the Dispatcher already
 * reads System.nanoTime for commandstats). The durations cycle over 64 values from 300 ns to
 * 5 ms, so the counts touched move around as real command latencies do.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LatencyHistogramBenchmark {
    private final LatencyHistogram histogram = new LatencyHistogram();
    private final long[] durations = new long[64];
    private int next;

    {
        for (int i = 0; i < durations.length; i++) durations[i] = 300L << (i % 15) | i;
    }

    @Benchmark
    public void record() {
        histogram.record(durations[next++ & 63]);
    }

    /** The same loop without the recording, to subtract. */
    @Benchmark
    public long baseline() {
        return durations[next++ & 63];
    }
}
