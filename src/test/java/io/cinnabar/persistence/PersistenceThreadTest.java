package io.cinnabar.persistence;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

class PersistenceThreadTest {
    private final PersistenceThread thread = new PersistenceThread("persistence-test");
    /** Each run of the duty, with the deadline it asked for. */
    private final LinkedBlockingQueue<Long> runs = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        thread.shutdown(5_000);
    }

    private void startWithDutyAsking(long delayNanos) throws InterruptedException {
        thread.addDuty(now -> {
            long next = delayNanos == Long.MAX_VALUE ? Long.MAX_VALUE : now + delayNanos;
            runs.add(next);
            return next;
        });
        thread.start();
        assertNotNull(runs.poll(5, TimeUnit.SECONDS), "the duty runs once at start");
        runs.clear();
    }

    @Test
    void aLazyWakeReachesAThreadSleepingWithNoDeadline() throws Exception {
        startWithDutyAsking(Long.MAX_VALUE);
        thread.wakeLazily();
        assertNotNull(runs.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void aLazyWakeReachesAThreadSleepingLongerThanTheLazyBound() throws Exception {
        // Like the everysec fsync deadline, a second away: work handed lazily must not wait for it.
        startWithDutyAsking(TimeUnit.MINUTES.toNanos(10));
        thread.wakeLazily();
        assertNotNull(runs.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void aLazyWakeArrivingWhileTheDutiesRunIsNotLost() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        thread.addDuty(now -> {
            // The first run is handed work while it runs, after it looked for some.
            if (calls.incrementAndGet() == 1) thread.wakeLazily();
            runs.add(now);
            return Long.MAX_VALUE;
        });
        thread.start();
        assertNotNull(runs.poll(5, TimeUnit.SECONDS));
        assertNotNull(runs.poll(5, TimeUnit.SECONDS), "the thread ran its duties again instead of sleeping");
    }
}
