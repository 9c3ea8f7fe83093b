package io.cinnabar.network;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

/**
 * An io event loop with nothing to do polls its sockets without blocking for
 * {@value #DEFAULT_SPIN_NANOS} ns before it sleeps in epoll_wait, so that a request arriving
 * within that time is read at once instead of after the wake-up of a sleeping thread. On 2
 * (virtual) cores beside redis-benchmark -c 50, Cinnabar used less CPU per LRANGE than Redis
 * but was slower: the machine sat ~25% idle (7% with Redis, which is too busy to sleep), both
 * sides waiting on each other's wake-ups. With this, LRANGE_100-600 went from 0.89-0.96x
 * Redis's throughput to 1.01-1.05x, PING and GET stayed at 1.01-1.08x (50 us: no better, more
 * CPU). A task another thread queues meanwhile (a registration, an fsync's held replies) waits
 * at most that long: the loop checks for tasks again before it blocks.
 * {@code -Dcinnabar.spinNanos=0} turns it off.
 */
final class SpinBeforeSleep implements SelectStrategy {
    private static final long DEFAULT_SPIN_NANOS = 20_000;
    private static final long SPIN_NANOS = Long.getLong("cinnabar.spinNanos", DEFAULT_SPIN_NANOS);

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (hasTasks) return selectNow.get();
        if (SPIN_NANOS <= 0) return SelectStrategy.SELECT;
        long deadline = System.nanoTime() + SPIN_NANOS;
        do {
            int ready = selectNow.get();
            if (ready > 0) return ready;
        } while (System.nanoTime() - deadline < 0);
        return SelectStrategy.SELECT;
    }
}
