package io.cinnabar.network;

import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.List;

/**
 * Gathers the reply deliveries the keyspace thread produces in one round of work and hands them
 * to each event loop as a single task, so a busy server wakes an event loop once per round
 * instead of once per client batch. Keyspace thread only. Allocates nothing per round where
 * commands run on the event loop itself (io-threads 1): a round there is one or a few requests
 * of each client, and the router runs once per round.
 */
final class ReplyRouter {
    /** Event loops seen so far (io-threads of them at most), and the deliveries due on each. */
    private final List<EventLoop> loops = new ArrayList<>();
    private final List<List<Runnable>> pending = new ArrayList<>();

    void post(EventLoop loop, Runnable delivery) {
        int i = loops.indexOf(loop);
        if (i < 0) {
            loops.add(loop);
            pending.add(new ArrayList<>());
            i = loops.size() - 1;
        }
        pending.get(i).add(delivery);
    }

    /** Called by the keyspace thread after each round of work. */
    void flush() {
        for (int l = 0, loopCount = loops.size(); l < loopCount; l++) {
            List<Runnable> deliveries = pending.get(l);
            if (deliveries.isEmpty()) continue;
            EventLoop loop = loops.get(l);
            if (loop.inEventLoop()) {
                // Commands run on this very loop (io-threads 1): deliver now, no extra task. A
                // delivery may start the client's next batch, whose replies come in a later round.
                for (int i = 0; i < deliveries.size(); i++) deliveries.get(i).run();
                deliveries.clear();
            } else {
                pending.set(l, new ArrayList<>());
                loop.execute(() -> {
                    for (int i = 0, n = deliveries.size(); i < n; i++) deliveries.get(i).run();
                });
            }
        }
    }
}
