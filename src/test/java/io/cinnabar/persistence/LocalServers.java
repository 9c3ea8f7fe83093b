package io.cinnabar.persistence;

import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Ports for servers a test starts as processes, and waiting for one to answer. */
public final class LocalServers {
    private LocalServers() {}

    /*
     * Below Linux's ephemeral range (32768-60999): a port from bind(0) is the kind the kernel hands
     * to the next connect or bind(0) too, so a server started a moment later could find it taken
     * (a CI run failed so). Walked from a random start so concurrent JVMs rarely probe the same one.
     */
    private static final int FIRST = 12_000, LAST = 20_999;
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(FIRST, LAST + 1));

    /** A port nothing listens on now, and one the kernel does not give out for ephemeral use. */
    public static int freePort() throws IOException {
        for (int tries = 0; tries <= LAST - FIRST; tries++) {
            int port = NEXT.getAndUpdate(p -> p == LAST ? FIRST : p + 1);
            try (ServerSocket s = new ServerSocket(port)) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // try the next one
            }
        }
        throw new IOException("no free port in " + FIRST + "-" + LAST);
    }

    /** A client of the server on port once it answers PING (the caller closes it); a process starts on its own time. */
    public static Jedis awaitPong(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Jedis j = new Jedis("127.0.0.1", port);
            try {
                if ("PONG".equals(j.ping())) return j;
            } catch (Exception notYet) {
                j.close();
                Thread.sleep(50);
            }
        }
        throw new AssertionError("no server answered on " + port);
    }
}
