package io.cinnabar.command;

import io.cinnabar.keyspace.Keyspace;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Deadlines on a clock moved by hand: they run in time order once reached, and cancelled ones never. */
class ClockTimersTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final ClockTimers timers = timers(now);

    private static ClockTimers timers(AtomicLong now) {
        Keyspace keyspace = new Keyspace(1);
        keyspace.clock(now::get);
        ClockTimers t = new ClockTimers(keyspace, new KeyspaceThread("unused"));
        t.manual(true);
        return t;
    }

    @Test
    void deadlinesRunInOrderOnceTheClockReachesThem() {
        List<String> ran = new ArrayList<>();
        timers.at(1_300, () -> ran.add("c"));
        timers.at(1_100, () -> ran.add("a"));
        timers.at(1_200, () -> ran.add("b"));
        timers.at(1_200, () -> ran.add("b2"));
        timers.runDue();
        assertEquals(List.of(), ran);
        now.set(1_199);
        timers.runDue();
        assertEquals(List.of("a"), ran);
        now.set(5_000);
        timers.runDue();
        assertEquals(List.of("a", "b", "b2", "c"), ran);
    }

    @Test
    void pastDeadlinesRunOnlyOnceTheClockHasPassedThem() {
        // Redis times a blocked client out when timeout < now: at its deadline's millisecond it still waits.
        List<String> ran = new ArrayList<>();
        timers.past(1_200, () -> ran.add("timeout"));
        timers.past(Long.MAX_VALUE, () -> ran.add("never"));
        now.set(1_200);
        timers.runDue();
        assertEquals(List.of(), ran);
        now.set(1_201);
        timers.runDue();
        assertEquals(List.of("timeout"), ran);
    }

    @Test
    void cancelledDeadlinesNeverRunEvenAfterTheQueueIsPurged() {
        List<Integer> ran = new ArrayList<>();
        List<ClockTimers.Deadline> all = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            int n = i;
            all.add(timers.at(2_000 + i, () -> ran.add(n)));
        }
        for (int i = 0; i < 1000; i++) if (i % 10 != 0) all.get(i).cancel();
        // A deadline that ran may be cancelled afterwards (a client released by its own timeout).
        now.set(2_000);
        timers.runDue();
        all.get(0).cancel();
        now.set(10_000);
        timers.runDue();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 1000; i += 10) expected.add(i);
        assertEquals(expected, ran);
    }
}
