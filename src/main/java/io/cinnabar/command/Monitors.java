package io.cinnabar.command;

import io.cinnabar.protocol.RespWriter;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Clients in MONITOR mode, in the order they entered it, and the feed of executed commands to
 * them. A line is encoded once and pushed to each monitor's connection without waiting for it
 * (ClientChannel.push), so a monitor that stops reading is bounded by its output buffer limit and
 * never slows the client whose command is shown. Keyspace thread only.
 */
public final class Monitors {
    private final List<Client> clients = new ArrayList<>();

    /** MONITOR: false when the client already monitors (Redis then replies nothing). */
    public boolean add(Client c) {
        if (c.monitor) return false;
        c.monitor = true;
        clients.add(c);
        return true;
    }

    /** RESET or disconnection: the client stops receiving lines. */
    public void remove(Client c) {
        if (!c.monitor) return;
        c.monitor = false;
        clients.remove(c);
    }

    boolean isEmpty() {
        return clients.isEmpty();
    }

    /** Shows argv to every monitor before source runs it (a monitor may not run scripts anyway). */
    void feed(Client source, int db, byte[][] argv) {
        feed(source, db, argv, null);
    }

    /**
     * Shows argv, just run by source in database db, to every monitor. A monitor that ran the
     * command itself gets the line into ownReplies, after the command's reply, as in Redis where
     * both go to the same output buffer.
     */
    void feed(Client source, int db, byte[][] argv, RespWriter ownReplies) {
        if (clients.isEmpty()) return;
        byte[] line = MonitorLine.format(Instant.now(), db, source.monitorSource(), argv);
        for (int i = 0, n = clients.size(); i < n; i++) {
            Client m = clients.get(i);
            // CLIENT REPLY OFF silences a monitor too: Redis adds nothing to its output then.
            if (m.closing || m.replyOff) continue;
            if (m == source && ownReplies != null) ownReplies.raw(line); else m.channel().push(line);
        }
    }
}
