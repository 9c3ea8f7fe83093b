package io.cinnabar.network;

import io.cinnabar.command.KeyspaceThread;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the client batches one event-loop iteration decodes and hands them to the keyspace
 * thread as one task, after the iteration's I/O (Netty runs queued tasks after processing ready
 * sockets). Fifty clients read in one iteration cost one cross-thread hand-off, not fifty.
 * Where the keyspace runs on this very event loop (io-threads 1), the round runs right there and
 * its list is reused: nothing is allocated per round.
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
    /** The keyspace of the batches pending (one server per event loop group). */
    private KeyspaceThread keyspace;
    private final Runnable handOver = this::handOver;
    /** io-threads 1: the round being run here, the list to reuse for the next, and the task running it. */
    private List<Runnable> running;
    private List<Runnable> spare = new ArrayList<>();
    private final KeyspaceThread.BusySafe runHere = () -> runAll(running);

    /** The submitter of the calling event loop. */
    static BatchSubmitter current() {
        return PER_LOOP.get();
    }

    void submit(Runnable work, EventLoop loop, KeyspaceThread keyspace) {
        pending.add(work);
        if (pending.size() > 1) return;
        this.keyspace = keyspace;
        loop.execute(handOver);
    }

    private void handOver() {
        List<Runnable> round = pending;
        // Batches run even while a script is busy: the Dispatcher answers them BUSY then.
        if (keyspace.inThread()) {
            pending = spare;
            running = round;
            keyspace.runNow(runHere);
            running = null;
            round.clear();
            spare = round;
        } else {
            pending = new ArrayList<>(Math.max(16, round.size()));
            keyspace.execute((KeyspaceThread.BusySafe) () -> runAll(round));
        }
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
