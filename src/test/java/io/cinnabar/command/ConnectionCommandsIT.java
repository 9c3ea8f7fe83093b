package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@CinnabarTest
class ConnectionCommandsIT {
    @Test
    void pingAndEcho(Jedis jedis) {
        assertEquals("PONG", jedis.ping());
        assertEquals("hello", jedis.echo("hello"));
    }

    @Test
    void selectChangesDatabase(Jedis jedis) {
        jedis.set("k", "db0");
        jedis.select(1);
        assertEquals(null, jedis.get("k"));
        jedis.select(0);
        assertEquals("db0", jedis.get("k"));
        JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.select(16));
        assertEquals("ERR DB index is out of range", e.getMessage());
    }

    @Test
    void unknownCommandNamesItsArguments(Jedis jedis) {
        JedisDataException e = assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(() -> "NOSUCH".getBytes(), "a", "b"));
        assertEquals("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ", e.getMessage());
    }
}
