package io.cinnabar;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A clock that stands still until a test moves it. Give it to a server
 * ({@code CinnabarServer.builder().clock(clock)}, or {@code @CinnabarTest(clock = ClockMode.MANUAL)})
 * and everything time-based there follows it: TTLs and active expiry, blocking-command timeouts,
 * CLIENT PAUSE, stream IDs, OBJECT IDLETIME, SLOWLOG and CLIENT LIST times.
 * <pre>{@code
 * jedis.setex("session", 3600, "x");
 * server.clock().advance(Duration.ofHours(1));   // PTTL 0: as in Redis, it lives through that ms
 * server.clock().advanceMillis(1);              // the key is gone and "expired" was published
 * }</pre>
 * {@link #advance} and {@link #set} return once each server driven by this clock has done what
 * became due (expired keys deleted with their keyspace events sent, timed-out blocked clients
 * answered). The clock may be moved from any thread.
 */
public final class ManualClock implements LongSupplier {
    private final AtomicLong millis;
    /** What the servers it drives run when it moves; each returns once that server caught up. */
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Starts at the current system time. */
    public ManualClock() {
        this(System.currentTimeMillis());
    }

    /** Starts at unixMillis. */
    public ManualClock(long unixMillis) {
        millis = new AtomicLong(unixMillis);
    }

    public ManualClock(Instant start) {
        this(start.toEpochMilli());
    }

    /** The clock's time. */
    public Instant now() {
        return Instant.ofEpochMilli(millis.get());
    }

    /** The clock's time in unix milliseconds. */
    public long millis() {
        return millis.get();
    }

    @Override
    public long getAsLong() {
        return millis.get();
    }

    /** Moves the clock forward by by (zero or more), then lets the servers catch up. */
    public ManualClock advance(Duration by) {
        return advanceMillis(by.toMillis());
    }

    /** Moves the clock forward by ms milliseconds (zero or more), then lets the servers catch up. */
    public ManualClock advanceMillis(long ms) {
        if (ms < 0) throw new IllegalArgumentException("a clock advances by zero or more, not " + ms + " ms");
        millis.addAndGet(ms);
        moved();
        return this;
    }

    /** Sets the time (also backwards: keys already expired stay gone), then lets the servers catch up. */
    public ManualClock set(Instant time) {
        return set(time.toEpochMilli());
    }

    /** Sets the time in unix milliseconds, then lets the servers catch up. */
    public ManualClock set(long unixMillis) {
        millis.set(unixMillis);
        moved();
        return this;
    }

    /** A server this clock drives: catchUp runs after each move and returns once it is done. */
    void drive(Runnable catchUp) {
        listeners.add(catchUp);
    }

    void release(Runnable catchUp) {
        listeners.remove(catchUp);
    }

    private void moved() {
        for (Runnable r : listeners) r.run();
    }

    @Override
    public String toString() {
        return "ManualClock[" + now() + "]";
    }
}
