package io.cinnabar.persistence;

import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/** Ports for servers a test starts as processes, and waiting for one to answer. */
public final class LocalServers {
    private LocalServers() {}

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
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
