package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListPosition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Lists' quicklist nodes, as DUMP shows them (one listpack per node), where Redis 7.0.15 puts
 * them: every expected layout here is what redis-server 7.0.15 gave for the same commands.
 */
@CinnabarTest(options = {"enable-debug-command", "yes"})
class ListNodeLayoutIT {
    @BeforeEach
    void uncompressedDumps(Jedis jedis) {
        jedis.configSet("rdbcompression", "no");
    }

    @AfterEach
    void defaults(Jedis jedis) {
        jedis.configSet("rdbcompression", "yes");
        jedis.configSet("list-max-listpack-size", "-2");
        jedis.configSet("list-compress-depth", "0");
    }

    @Test
    void compressDepthIsTheListsOwnFromItsCreation(Jedis jedis) {
        // quicklistSetOptions at creation; SORT STORE's list gets none (compress 0), COPY keeps the original's.
        jedis.rpush("before", "1", "2", "3");
        jedis.configSet("list-compress-depth", "1");
        jedis.rpush("after", "1", "2", "3");
        jedis.sort("after", "sorted");
        jedis.copy("after", "copied", false);
        assertEquals(List.of("0", "1", "0", "1"), Stream.of("before", "after", "sorted", "copied")
                .map(k -> Raw.str(jedis, "DEBUG", "OBJECT", k).replaceFirst(".* ql_compressed:(\\d+).*", "$1")).toList());
    }

    @Test
    void nodeTakesAnElementByRedisEstimateOfItsListpack(Jedis jedis) {
        // 41 small integers (2 bytes each in a listpack) and 8 strings of 1,000 bytes fill 8,121 of
        // -2's 8,192 bytes: the ninth string's estimate (+1,000 +8) does not fit. Was 48 here.
        for (int i = 10; i <= 50; i++) jedis.rpush("l", String.valueOf(i));
        byte[] big = "a".repeat(1000).getBytes();
        for (int i = 0; i < 41; i++) jedis.rpush("l".getBytes(), big);
        assertEquals(List.of(49, 8, 8, 8, 8, 1), nodes(jedis, "l"));
    }

    @Test
    void linsertIntoAFullNodeSplitsItAndMerges(Jedis jedis) {
        jedis.configSet("list-max-listpack-size", "5");
        for (int i = 1; i <= 15; i++) jedis.rpush("l", String.valueOf(i));
        jedis.linsert("l", ListPosition.BEFORE, "8", "x");
        assertEquals(List.of(5, 3, 3, 5), nodes(jedis, "l"));
        jedis.linsert("l", ListPosition.AFTER, "2", "y");
        assertEquals(List.of(2, 4, 3, 3, 5), nodes(jedis, "l"));
        jedis.lpop("l", 4);
        jedis.linsert("l", ListPosition.AFTER, "12", "z");
        assertEquals(List.of(2, 3, 5, 4), nodes(jedis, "l"));
        // At a full node's tail: the next node takes it if it can.
        jedis.linsert("l", ListPosition.AFTER, "15", "w");
        assertEquals(List.of(2, 3, 5, 5), nodes(jedis, "l"));
    }

    @Test
    void lsetReplacesInPlaceAndRestoreKeepsThePayloadsNodes(Jedis jedis) {
        byte[] mid = "b".repeat(500).getBytes();
        for (int i = 0; i < 45; i++) jedis.rpush("l".getBytes(), mid);
        assertEquals(List.of(16, 16, 13), nodes(jedis, "l"));
        jedis.lset("l", 0, "z".repeat(9000));
        assertEquals(List.of(16, 16, 13), nodes(jedis, "l"));
        jedis.configSet("list-max-listpack-size", "1");
        jedis.restore("r".getBytes(), 0, jedis.dump("l"));
        jedis.rpush("r", "tail");
        assertEquals(List.of(16, 16, 13, 1), nodes(jedis, "r"));
    }

    @Test
    void nodesAndCompressedPayloadsSurviveSaveAndLoad(Jedis jedis) {
        jedis.configSet("list-max-listpack-size", "5");
        for (int i = 1; i <= 15; i++) jedis.rpush("l", String.valueOf(i));
        jedis.linsert("l", ListPosition.BEFORE, "8", "x");
        jedis.configSet("rdbcompression", "yes");
        jedis.set("s", "abcdefghij".repeat(10));
        byte[] list = jedis.dump("l"), string = jedis.dump("s");
        assertEquals("OK", Raw.str(jedis, "DEBUG", "RELOAD"));
        assertArrayEquals(list, jedis.dump("l"));
        assertArrayEquals(string, jedis.dump("s"));
        assertEquals("abcdefghij".repeat(10), jedis.get("s"));
        jedis.configSet("rdbcompression", "no");
        assertEquals(List.of(5, 3, 3, 5), nodes(jedis, "l"));
    }

    /** The element count of each node in key's DUMP payload (uncompressed: rdbcompression no). */
    private static List<Integer> nodes(Jedis jedis, String key) {
        byte[] d = jedis.dump(key);
        assertEquals(0x12, d[0], "RDB_TYPE_LIST_QUICKLIST_2");
        int[] at = {1};
        long n = length(d, at);
        List<Integer> counts = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            length(d, at); // container
            int size = (int) length(d, at);
            byte[] lp = Arrays.copyOfRange(d, at[0], at[0] + size);
            at[0] += size;
            counts.add((lp[4] & 0xff) | (lp[5] & 0xff) << 8);
        }
        return counts;
    }

    /** An RDB length at at[0] (6, 14 or 32 bits), moving at[0] past it. */
    private static long length(byte[] d, int[] at) {
        int b = d[at[0]] & 0xff;
        switch (b >> 6) {
            case 0 -> {
                at[0] += 1;
                return b & 63;
            }
            case 1 -> {
                at[0] += 2;
                return (b & 63) << 8 | (d[at[0] - 1] & 0xff);
            }
            default -> {
                long v = 0;
                for (int i = 1; i <= 4; i++) v = v << 8 | (d[at[0] + i] & 0xff);
                at[0] += 5;
                return v;
            }
        }
    }
}
