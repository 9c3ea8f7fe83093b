package io.cinnabar.spring.app;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The commands a server receives, as MONITOR shows them ({@code "hmset" "people:1" ...}), taken
 * between two ECHO markers sent on another connection so that none is missed or left over.
 * Stands in for the server's command recorder until it exists.
 */
final class CommandMonitor implements AutoCloseable {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Jedis monitoring;
    private final Jedis marking;
    private final Thread thread;
    private int markers;

    CommandMonitor(String host, int port) {
        monitoring = new Jedis(host, port);
        marking = new Jedis(host, port);
        thread = new Thread(() -> {
            try {
                monitoring.monitor(new JedisMonitor() {
                    @Override
                    public void onCommand(String line) {
                        lines.add(line);
                    }
                });
            } catch (RuntimeException closed) {
                // close() disconnects the monitoring connection: its read fails, and that ends the thread
            }
        }, "command-monitor");
        thread.setDaemon(true);
        thread.start();
        // The first marker may be sent before MONITOR is in place: send one until one arrives.
        for (int tries = 0; tries < 100 && !takeUntilMarker(50).found; tries++) {
            // retried
        }
    }

    /** Every command received since the last call (or since the start), without the marker. */
    List<String> commands() {
        Taken taken = takeUntilMarker(5000);
        if (!taken.found) throw new AssertionError("MONITOR did not show the marker; saw " + taken.commands);
        return taken.commands;
    }

    private Taken takeUntilMarker(long timeoutMs) {
        String marker = "marker-" + (++markers);
        marking.echo(marker);
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            while (true) {
                String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null) return new Taken(false, seen);
                String command = line.substring(line.indexOf("] ") + 2);
                // Jedis sends ECHO in capitals, and MONITOR shows every command as the client sent it.
                if (command.equals("\"ECHO\" \"" + marker + "\"")) return new Taken(true, seen);
                if (!command.startsWith("\"ECHO\" \"marker-")) seen.add(command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Taken(false, seen);
        }
    }

    private record Taken(boolean found, List<String> commands) {
    }

    @Override
    public void close() {
        monitoring.disconnect();
        marking.close();
    }
}
