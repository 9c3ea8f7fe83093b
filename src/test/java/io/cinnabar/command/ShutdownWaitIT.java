package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SHUTDOWN with a replica behind the stream, as Redis 7.0: writes are held and the replica asked
 * for its offset (REPLCONF GETACK); the shutdown goes ahead once it acknowledged everything, or
 * SHUTDOWN ABORT lets the waiting SHUTDOWN go with an error and the held writes run.
 */
class ShutdownWaitIT {
    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void shutdownWaitsForALaggingReplicaToAcknowledgeTheStream() throws Exception {
        CinnabarServer server = CinnabarServer.builder().port(0).option("repl-diskless-sync-delay", "0").build().start();
        try (Jedis c = new Jedis("127.0.0.1", server.port()); Jedis writer = new Jedis("127.0.0.1", server.port());
             RespSocket replica = replicaOf(server.port())) {
            long end = lagBehind(c, replica);
            CompletableFuture<Object> shutdown = OwnThread.supply(() -> cmd(c, "SHUTDOWN"));
            awaitWaiting(writer);
            // Writes wait meanwhile; the replica is asked where it is.
            CompletableFuture<Object> held = OwnThread.supply(() -> cmd(writer, "SET", "later", "x"));
            assertEquals(new String(GETACK, StandardCharsets.US_ASCII),
                    new String(replica.readBytes(GETACK.length), StandardCharsets.US_ASCII));
            assertFalse(held.isDone());
            replica.send("REPLCONF", "ACK", Long.toString(end + GETACK.length));
            // Caught up: the server goes, closing the SHUTDOWN client's connection without a reply.
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), server::awaitTermination);
            assertTrue(assertThrows(java.util.concurrent.ExecutionException.class, () -> shutdown.get(10, TimeUnit.SECONDS)).getCause()
                    instanceof redis.clients.jedis.exceptions.JedisConnectionException);
        } finally {
            server.close();
        }
    }

    @Test
    void shutdownAbortLetsTheWaitingShutdownGoAndWritesResume() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("repl-diskless-sync-delay", "0").build().start();
             Jedis c = new Jedis("127.0.0.1", server.port()); Jedis other = new Jedis("127.0.0.1", server.port());
             Jedis writer = new Jedis("127.0.0.1", server.port()); RespSocket replica = replicaOf(server.port())) {
            lagBehind(c, replica);
            CompletableFuture<Object> shutdown = OwnThread.supply(() -> cmd(c, "SHUTDOWN"));
            awaitWaiting(other);
            CompletableFuture<Object> held = OwnThread.supply(() -> cmd(writer, "SET", "later", "x"));
            assertEquals("OK", cmd(other, "SHUTDOWN", "ABORT"));
            assertEquals("ERR Errors trying to SHUTDOWN. Check logs.",
                    assertThrows(java.util.concurrent.ExecutionException.class, () -> shutdown.get(10, TimeUnit.SECONDS))
                            .getCause().getMessage());
            assertEquals("OK", held.get(10, TimeUnit.SECONDS));
            assertFalse(other.info("server").contains("shutdown_in_milliseconds"));
            assertEquals("ERR No shutdown in progress.",
                    assertThrows(redis.clients.jedis.exceptions.JedisDataException.class, () -> cmd(other, "SHUTDOWN", "ABORT")).getMessage());
        }
    }

    /** A replica by hand: synced, then a write it does not acknowledge. The stream's end offset. */
    private static long lagBehind(Jedis c, RespSocket replica) throws Exception {
        assertEquals("OK", replica.call("REPLCONF", "listening-port", "6390"));
        String fullResync = replica.fullSync();
        long start = Long.parseLong(fullResync.substring(fullResync.lastIndexOf(' ') + 1));
        replica.send("REPLCONF", "ACK", Long.toString(start));
        c.set("k", "v");
        String info = c.info("replication");
        long end = Long.parseLong(info.split("master_repl_offset:")[1].split("\r\n")[0]);
        replica.readBytes((int) (end - start)); // received, not acknowledged
        return end;
    }

    private static RespSocket replicaOf(int port) throws Exception {
        return new RespSocket(port);
    }

    /** Until INFO says the shutdown waits: SHUTDOWN runs on the test's other thread. */
    private static void awaitWaiting(Jedis j) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (j.info("server").contains("shutdown_in_milliseconds:")) return;
            Thread.sleep(10);
        }
        throw new AssertionError("the shutdown does not wait: " + j.info("server"));
    }
}
