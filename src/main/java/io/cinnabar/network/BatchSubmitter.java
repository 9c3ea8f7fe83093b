package io.cinnabar.network;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Collects the client batches one event-loop iteration decodes and hands them to the keyspace
 * thread as one task, after the iteration's I/O (Netty runs queued tasks after processing ready
 * sockets). Fifty clients read in one iteration cost one cross-thread hand-off, not fifty.
 * Event-loop confined: one instance per event-loop thread.
 */
final class BatchSubmitter {
    private static final Logger log = LoggerFactory.getLogger(BatchSubmitter.class);
    private static final FastThreadLocal<BatchSubmitter> PER_LOOP = new FastThreadLocal<>() {
        @Override
        protected BatchSubmitter initialValue() {
            return new BatchSubmitter();
        }
    };

    private List<Runnable> pending = new ArrayList<>();

    /** The submitter of the calling event loop. */
    static BatchSubmitter current() {
        return PER_LOOP.get();
    }

    void submit(Runnable work, EventLoop loop, Executor keyspace) {
        pending.add(work);
        if (pending.size() > 1) return;
        loop.execute(() -> {
            List<Runnable> round = pending;
            pending = new ArrayList<>(Math.max(16, round.size()));
            // Batches run even while a script is busy: the Dispatcher answers them BUSY then.
            keyspace.execute((io.cinnabar.command.KeyspaceThread.BusySafe) () -> runAll(round));
        });
    }

    private static void runAll(List<Runnable> round) {
        for (int i = 0, n = round.size(); i < n; i++) {
            try {
                round.get(i).run();
            } catch (RuntimeException e) {
                log.error("Unexpected error running a client batch", e);
            }
        }
    }
}
