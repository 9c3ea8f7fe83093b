package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.Slowlog;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SLOWLOG through Jedis; the expected shapes and texts are Redis 7.0.15's. */
@CinnabarTest
class SlowlogIT {
    @Test
    void logsCommandsAtOrAboveTheThresholdNewestFirstAndTrimsLongArguments(Jedis jedis) {
        jedis.configSet("slowlog-log-slower-than", "0");
        jedis.slowlogReset();
        jedis.clientSetname("logger");
        jedis.set("k", "x".repeat(200));
        jedis.sadd("many", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
                "17", "18", "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33");
        List<Slowlog> log = jedis.slowlogGet();
        Slowlog sadd = log.get(0);
        assertEquals(32, sadd.getArgs().size());
        assertEquals("... (4 more arguments)", sadd.getArgs().get(31)); // 35 arguments: 31 kept, the 32nd says how many more
        assertEquals("logger", sadd.getClientName());
        assertTrue(sadd.getClientIpPort().toString().startsWith("127.0.0.1:"), sadd.getClientIpPort().toString());
        Slowlog set = log.get(1);
        assertEquals("x".repeat(128) + "... (72 more bytes)", set.getArgs().get(2));
        assertEquals(sadd.getId() - 1, set.getId());
        assertEquals(log.size() + 1, jedis.slowlogLen(), "SLOWLOG GET is logged too");
    }

    @Test
    void thresholdMaxLenAndErrors(Jedis jedis) {
        jedis.configSet("slowlog-log-slower-than", "100000000");
        jedis.slowlogReset();
        jedis.ping();
        assertEquals(0, jedis.slowlogLen());
        jedis.configSet("slowlog-log-slower-than", "0", "slowlog-max-len", "3");
        for (int i = 0; i < 10; i++) jedis.ping();
        assertEquals(3, jedis.slowlogLen());
        assertEquals(1, jedis.slowlogGet(1).size());
        assertEquals(3, jedis.slowlogGet(-1).size());
        JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.slowlogGet(-2));
        assertEquals("ERR count should be greater than or equal to -1", e.getMessage());
        e = assertThrows(JedisDataException.class, () -> jedis.sendCommand(redis.clients.jedis.Protocol.Command.SLOWLOG, "GET", "1", "2"));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP.", e.getMessage());
        jedis.configSet("slowlog-log-slower-than", "-1");
        jedis.slowlogReset();
        jedis.ping();
        assertEquals(0, jedis.slowlogLen());
    }
}
