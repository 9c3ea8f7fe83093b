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
    /** Lines kept back while a script runs that may yet start again elsewhere ({@link #hold}); else null. */
    private List<byte[]> held;

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
        if (held != null) {
            held.add(line);
            return;
        }
        pushToAll(source, line, ownReplies);
    }

    /**
     * Lines fed from now on wait for {@link #release}: a script run on the keyspace thread may stop
     * to run again from its start on the helper thread (Dispatcher#runLong), and monitors must see
     * its run once. Nothing reaches them meanwhile anyway: the thread that would send it is busy.
     * (A monitor runs no script, so no line held is one for a monitor's own replies.)
     */
    void hold() {
        if (!clients.isEmpty()) held = new ArrayList<>();
    }

    /** Shows the lines held since {@link #hold}, or drops them (the run they came from did not count). */
    void release(boolean show) {
        List<byte[]> lines = held;
        held = null;
        if (!show || lines == null) return;
        for (byte[] line : lines) pushToAll(null, line, null);
    }

    private void pushToAll(Client source, byte[] line, RespWriter ownReplies) {
        for (int i = 0, n = clients.size(); i < n; i++) {
            Client m = clients.get(i);
            // CLIENT REPLY OFF silences a monitor too: Redis adds nothing to its output then.
            if (m.closing || m.replyOff) continue;
            if (m == source && ownReplies != null) ownReplies.raw(line); else m.channel().push(line);
        }
    }
}
