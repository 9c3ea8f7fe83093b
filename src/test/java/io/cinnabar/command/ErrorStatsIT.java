package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** INFO errorstats codes as redis-server 7.0.15 files them (same script run against both). */
@CinnabarTest
class ErrorStatsIT {
    @Test
    void theCodeIsTheFirstWordWhenASpaceComesWithin32BytesAndIsMadeSafe(Jedis jedis) {
        jedis.configResetStat();
        for (String reply : new String[] {"MYCODE x", "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ x", "NOSPACE", "A:B#C x"}) {
            assertThrows(Exception.class, () -> jedis.eval("return redis.error_reply(ARGV[1])", 0, reply));
        }
        assertEquals("# Errorstats\r\nerrorstat_A_B_C:count=1\r\nerrorstat_ERR:count=2\r\nerrorstat_MYCODE:count=1\r\n",
                jedis.info("errorstats"));
    }
}
