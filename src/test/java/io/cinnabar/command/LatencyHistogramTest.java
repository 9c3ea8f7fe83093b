package io.cinnabar.command;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The HDR layout's numbers, checked against what redis-server 7.0.15 prints for the same durations. */
class LatencyHistogramTest {
    @Test
    void percentilesAreTheHighestValueOfTheirBucketAsHdrReportsThem() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(4_000); // Redis: a 4 us GET shows p50=4.015
        assertEquals(4_015, h.valueAtPercentile(50));
        h = new LatencyHistogram();
        h.record(10_000); // a 10 us SET shows p50=10.047
        assertEquals(10_047, h.valueAtPercentile(99.9));
        h.record(1_000);
        h.record(0); // clamped to 1 ns
        assertEquals(3, h.totalCount());
        assertEquals(1, h.valueAtPercentile(0));
        assertEquals(1_003, h.valueAtPercentile(50));
        assertEquals(10_047, h.valueAtPercentile(100));
    }

    @Test
    void durationsPastOneSecondCountAsOneSecond() {
        LatencyHistogram slow = new LatencyHistogram(), second = new LatencyHistogram();
        slow.record(5_000_000_000L);
        second.record(1_000_000_000L);
        assertEquals(1_002_438_655L, second.valueAtPercentile(50)); // the top bucket is 4 ms wide
        assertEquals(second.valueAtPercentile(50), slow.valueAtPercentile(50));
    }

    @Test
    void cumulativeStepsDoubleFromOneMicrosecondAndSkipStepsThatAddNothing() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(10_000); // Redis: LATENCY HISTOGRAM set -> histogram_usec 16 1
        assertEquals(List.of(List.of(16L, 1L)), steps(h));
        h.record(500);
        h.record(900);
        h.record(3_000);
        h.record(10_500);
        assertEquals(List.of(List.of(1L, 2L), List.of(4L, 3L), List.of(16L, 5L)), steps(h));
    }

    private static List<List<Long>> steps(LatencyHistogram h) {
        List<List<Long>> out = new ArrayList<>();
        h.cumulativeSteps((micros, cumulative) -> out.add(List.of(micros, cumulative)));
        return out;
    }
}
