package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.List;

import static io.cinnabar.command.ManualClockIT.waitBlocked;
import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which data a blocked client gets when another connection serves it (Redis's
 * handleClientsBlockedOnKeys): keys are served in the order they became ready, each woken client
 * from the key that got data, found by diff-fuzz's multi family.
 */
@CinnabarTest
class BlockedServingIT {
    @Test
    void listClientIsServedFromTheKeyThatGotDataFirstNotItsFirstKey(CinnabarServer server, Jedis jedis) throws Exception {
        try (RespSocket b = new RespSocket(server.port())) {
            b.send("BLMPOP", "0", "2", "first", "second", "LEFT");
            waitBlocked(jedis, 1);
            // second gets data before first: Redis serves the client from second.
            cmd(jedis, "EVAL", "redis.call('rpush', KEYS[1], 's'); redis.call('rpush', KEYS[2], 'f')", "2", "second", "first");
            assertEquals(List.of("second", List.of("s")), b.read());
            assertEquals(List.of("f"), jedis.lrange("first", 0, -1));
        }
    }

    @Test
    void zsetClientIsServedFromTheKeyThatGotDataFirst(CinnabarServer server, Jedis jedis) throws Exception {
        try (RespSocket b = new RespSocket(server.port())) {
            b.send("BZPOPMAX", "first", "second", "0");
            waitBlocked(jedis, 1);
            cmd(jedis, "MULTI");
            cmd(jedis, "ZADD", "second", "2", "s");
            cmd(jedis, "ZADD", "first", "1", "f");
            cmd(jedis, "EXEC");
            assertEquals(List.of("second", "s", "2"), b.read());
            assertEquals(1L, jedis.zcard("first"));
        }
    }

    @Test
    void streamReadIsWokenByAnEntryTrimmedAtOnceWithAnEmptyBatch(CinnabarServer server, Jedis jedis) throws Exception {
        cmd(jedis, "XGROUP", "CREATE", "g", "grp", "$", "MKSTREAM");
        try (RespSocket read = new RespSocket(server.port()); RespSocket group = new RespSocket(server.port())) {
            read.send("XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            waitBlocked(jedis, 1);
            group.send("XREADGROUP", "GROUP", "grp", "c", "BLOCK", "0", "STREAMS", "g", ">");
            waitBlocked(jedis, 2);
            // The stream's last ID moves past the one waited for, but no entry is left to read:
            // serveClientsBlockedOnStreamKey answers all the same, with no entries.
            cmd(jedis, "XADD", "s", "MAXLEN", "0", "1-1", "f", "v");
            assertEquals(List.of(List.of("s", List.of())), read.read());
            cmd(jedis, "XADD", "g", "MAXLEN", "0", "1-1", "f", "v");
            assertEquals(List.of(List.of("g", List.of())), group.read());
        }
    }

    @Test
    void swapdbTellsAGroupReaderItsStreamIsGoneBeforeServingItsOtherKey(CinnabarServer server, Jedis jedis) throws Exception {
        cmd(jedis, "XGROUP", "CREATE", "bk0", "g", "$", "MKSTREAM");
        cmd(jedis, "XGROUP", "CREATE", "bk1", "g", "$", "MKSTREAM");
        try (RespSocket b = new RespSocket(server.port()); Jedis other = new Jedis(server.host(), server.port())) {
            b.send("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "bk0", "bk1", ">", ">");
            waitBlocked(jedis, 1);
            other.select(1);
            other.xadd("bk1", new redis.clients.jedis.StreamEntryID(1, 1), java.util.Map.of("f", "v"));
            // After the swap bk0 is no more and bk1 is a stream without the group: Redis signals
            // the deleted stream first (scanDatabaseForDeletedStreams, then scanDatabaseForReadyKeys).
            cmd(jedis, "SWAPDB", "0", "1");
            assertEquals(new RespSocket.Error("UNBLOCKED the stream key no longer exists"), b.read());
        }
    }
}
