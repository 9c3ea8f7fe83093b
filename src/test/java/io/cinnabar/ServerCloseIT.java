package io.cinnabar;

import io.cinnabar.util.OpenFiles;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An embedded server that is closed gives everything back: a test suite starts hundreds of them
 * in one JVM, and the standalone server starts two of its own for the JIT warm-up.
 */
class ServerCloseIT {
    /** Netty's own, shared by every server in the JVM, ending by itself once idle. */
    private static final Set<String> SHARED_THREADS = Set.of("globalEventExecutor");

    @Test
    void aClosedServerLeavesNoThreadOrFileOfItsOwnOpen() throws Exception {
        // What the first server in a JVM opens for the whole JVM (the class path's jars, /dev/random, a socket of Netty's) stays.
        CinnabarServer.builder().port(0).build().start().close();
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        Set<String> filesBefore = openFiles();
        CinnabarServer server = CinnabarServer.builder().port(0).option("appendonly", "yes").build().start();
        try (Jedis subscriber = new Jedis("127.0.0.1", server.port());
             Jedis blocked = new Jedis("127.0.0.1", server.port())) {
            use(server);
            // Clients still connected at close, one subscribed and one blocked.
            subscriber.getClient().sendCommand(Protocol.Command.SUBSCRIBE, "channel");
            assertEquals("subscribe", new String((byte[]) ((List<?>) subscriber.getClient().getOne()).get(0)));
            // A thread of its own, which ends with the connection (a pool's would outlive the test).
            CompletableFuture<Void> pop = OwnThread.run(() -> {
                try {
                    blocked.blpop(0, "nothing");
                } catch (RuntimeException closed) {
                    // the server closed the connection
                }
            });
            try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
                while (!jedis.clientList().contains("cmd=blpop")) Thread.onSpinWait();
            }
            server.close();
            pop.get(10, TimeUnit.SECONDS);
        }

        List<String> running = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (before.contains(t) || SHARED_THREADS.contains(t.getName())) continue;
            t.join(10_000);
            if (t.isAlive()) running.add(t.getName());
        }
        assertEquals(List.of(), running);
        if (filesBefore != null) {
            Set<String> left = openFiles();
            left.removeAll(filesBefore);
            assertEquals(Set.of(), left);
        }
    }

    @Test
    void aClosedServerCanBeCollectedWithItsData() {
        WeakReference<CinnabarServer> closed = startUseAndClose();
        for (int i = 0; i < 50 && closed.get() != null; i++) System.gc();
        assertNull(closed.get(), "the closed server is still reachable");
    }

    private static WeakReference<CinnabarServer> startUseAndClose() {
        CinnabarServer server = CinnabarServer.builder().port(0).build().start();
        use(server);
        server.close();
        return new WeakReference<>(server);
    }

    /** What starts a server's helper threads and opens its files: a script (its helper), keys, snapshots. */
    private static void use(CinnabarServer server) {
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            for (int i = 0; i < 1000; i++) jedis.set("key:" + i, "value");
            assertEquals(1000L, jedis.eval("return #redis.call('keys', 'key:*')"));
            assertEquals("OK", jedis.save());
            jedis.bgsave();
            jedis.bgrewriteaof();
            while (jedis.info("persistence").matches("(?s).*(rdb_bgsave_in_progress:1|aof_rewrite_in_progress:1).*")) {
                Thread.onSpinWait();
            }
            assertTrue(jedis.info("persistence").contains("rdb_last_bgsave_status:ok"));
        }
    }

    /**
     * What this process has open, or null where /proc does not tell; the class path's jars, which
     * are opened as their classes are first loaded, left out.
     */
    private static Set<String> openFiles() throws IOException {
        if (!OpenFiles.listed()) return null;
        return OpenFiles.list().stream().filter(f -> !f.endsWith(".jar")).collect(Collectors.toSet());
    }
}
