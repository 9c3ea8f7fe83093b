package io.cinnabar.bench;

import io.cinnabar.CinnabarServer;
import redis.clients.jedis.Jedis;

import java.util.Arrays;

/**
 * Measures how long an embedded server takes from builder to ready (start() returned: the port
 * accepts and the data is loaded) and to answering Jedis's PING (which includes Jedis's own first
 * use in the JVM), and to close, over N starts in one JVM. Run by scripts/embedded-startup.sh;
 * not a test.
 */
public final class EmbeddedStartup {
    private EmbeddedStartup() {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        double firstReady = 0;
        double[] start = new double[runs];
        double[] stop = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            CinnabarServer server = CinnabarServer.builder().port(0).build().start();
            if (i == 0) firstReady = (System.nanoTime() - t0) / 1e6;
            try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                if (!"PONG".equals(j.ping())) throw new IllegalStateException("no PONG");
            }
            long t1 = System.nanoTime();
            server.close();
            long t2 = System.nanoTime();
            start[i] = (t1 - t0) / 1e6;
            stop[i] = (t2 - t1) / 1e6;
        }
        System.out.printf("runs=%d first_ready_ms=%.1f first_start_ms=%.1f%n", runs, firstReady, start[0]);
        Arrays.sort(start);
        Arrays.sort(stop);
        System.out.printf("start_to_pong_ms median=%.1f min=%.1f max=%.1f%n", start[runs / 2], start[0], start[runs - 1]);
        System.out.printf("close_ms         median=%.1f min=%.1f max=%.1f%n", stop[runs / 2], stop[0], stop[runs - 1]);
    }
}
