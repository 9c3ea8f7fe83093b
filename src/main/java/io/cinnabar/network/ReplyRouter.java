package io.cinnabar.network;

import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gathers the reply deliveries the keyspace thread produces in one round of work and hands them
 * to each event loop as a single task, so a busy server wakes an event loop once per round
 * instead of once per client batch. Keyspace thread only.
 */
final class ReplyRouter {
    private final Map<EventLoop, List<Runnable>> pending = new IdentityHashMap<>();

    void post(EventLoop loop, Runnable delivery) {
        pending.computeIfAbsent(loop, l -> new ArrayList<>()).add(delivery);
    }

    /** Called by the keyspace thread after each round of work. */
    void flush() {
        if (pending.isEmpty()) return;
        for (Map.Entry<EventLoop, List<Runnable>> e : pending.entrySet()) {
            List<Runnable> deliveries = e.getValue();
            if (e.getKey().inEventLoop()) {
                // Commands run on this very loop (io-threads 1): deliver now, no extra task.
                for (int i = 0, n = deliveries.size(); i < n; i++) deliveries.get(i).run();
            } else {
                e.getKey().execute(() -> {
                    for (int i = 0, n = deliveries.size(); i < n; i++) deliveries.get(i).run();
                });
            }
        }
        pending.clear();
    }
}
