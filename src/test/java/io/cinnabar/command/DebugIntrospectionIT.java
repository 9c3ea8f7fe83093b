package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DEBUG's views of how values are held; expected texts are redis-server 7.0.15's for the same commands. */
@CinnabarTest(options = {"enable-debug-command", "yes"})
class DebugIntrospectionIT {
    /** DEBUG OBJECT's line after the address and the LRU fields, which differ from run to run. */
    private static String objectLine(Jedis jedis, String key) {
        String line = Raw.str(jedis, "DEBUG", "OBJECT", key);
        return line.replaceFirst("^Value at:0x[0-9a-f]+ ", "").replaceFirst(" lru:\\d+ lru_seconds_idle:\\d+", "");
    }

    /** Redis's address is its object's: reading it again or INCR (which works in place) keeps it. */
    @Test
    void debugObjectsAddressStaysAcrossReadsAndIncr(Jedis jedis) {
        jedis.set("counter", "20000");
        String first = Raw.str(jedis, "DEBUG", "OBJECT", "counter").split(" ")[1];
        assertTrue(first.startsWith("at:0x"), first);
        assertEquals(first, Raw.str(jedis, "DEBUG", "OBJECT", "counter").split(" ")[1]);
        jedis.incr("counter");
        assertEquals(first, Raw.str(jedis, "DEBUG", "OBJECT", "counter").split(" ")[1]);
        jedis.del("counter");
    }

    @Test
    void debugObjectGivesEveryTypeItsSerializedLengthAndListsTheirQuicklistFields(Jedis jedis) {
        jedis.rpush("l", "a", "b", "c", "1", "2", "300");
        jedis.sadd("st", "1", "2", "a");
        jedis.set("x", "a".repeat(100));
        jedis.set("y", "12345678901");
        jedis.hset("h", java.util.Map.of("f", "v"));
        jedis.hset("h", "g", "12");
        jedis.zadd("z", 1, "a");
        jedis.zadd("z", 2.5, "b");
        String[] numbers = new String[1000];
        for (int i = 0; i < numbers.length; i++) numbers[i] = Integer.toString(i + 1);
        jedis.rpush("big", numbers);

        assertEquals("refcount:1 encoding:quicklist serializedlength:26 ql_nodes:1 ql_avg_node:6.00 ql_listpack_max:-2"
                + " ql_compressed:0 ql_uncompressed_size:23", objectLine(jedis, "l"));
        assertEquals("refcount:1 encoding:quicklist serializedlength:2884 ql_nodes:1 ql_avg_node:1000.00"
                + " ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:2880", objectLine(jedis, "big"));
        assertEquals("refcount:1 encoding:hashtable serializedlength:7", objectLine(jedis, "st"));
        assertEquals("refcount:1 encoding:raw serializedlength:13", objectLine(jedis, "x"), "LZF-compressed as Redis");
        assertEquals("refcount:1 encoding:int serializedlength:12", objectLine(jedis, "y"));
        assertEquals("refcount:1 encoding:listpack serializedlength:19", objectLine(jedis, "h"));
        assertEquals("refcount:1 encoding:listpack serializedlength:21", objectLine(jedis, "z"));

        jedis.configSet("rdbcompression", "no");
        assertEquals("refcount:1 encoding:raw serializedlength:102", objectLine(jedis, "x"));
    }

    @Test
    void htstatsDescribesTheKeyTableAndTheVolatileKeys(Jedis jedis) {
        jedis.select(3);
        assertEquals("[Dictionary HT]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n"
                + "[Expires HT]\nHash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n",
                Raw.str(jedis, "DEBUG", "HTSTATS", "3"));
        for (int i = 0; i < 100; i++) jedis.set("k" + i, "v");
        jedis.expire("k1", 100);
        String stats = Raw.str(jedis, "DEBUG", "HTSTATS", "3");
        assertTrue(stats.startsWith("[Dictionary HT]\nHash table 0 stats (main hash table):\n table size: 128\n"
                + " number of elements: 100\n"), stats);
        assertTrue(stats.contains("[Expires HT]\nHash table 0 stats (main hash table):\n"), stats);
        assertTrue(stats.endsWith(" number of elements: 1\n different slots: 1\n max chain length: 1\n"
                + " avg chain length (counted): 1.00\n avg chain length (computed): 1.00\n Chain length distribution:\n"
                + "   0: 15 (93.75%)\n   1: 1 (6.25%)\n"), stats);

        assertEquals("ERR Out of range database", Raw.error(() -> cmd(jedis, "DEBUG", "HTSTATS", "16")));
        assertEquals("ERR value is not an integer or out of range", Raw.error(() -> cmd(jedis, "DEBUG", "HTSTATS", "x")));
    }

    @Test
    void htstatsKeyCountsTheChainsOfAHashtableValue(Jedis jedis) {
        for (int i = 0; i < 200; i++) jedis.sadd("set", "m" + i);
        // Growing from 128 to 256 buckets moves them a step per lookup: both arrays may show.
        String stats = Raw.str(jedis, "DEBUG", "HTSTATS-KEY", "set");
        assertTrue(stats.startsWith("Hash table 0 stats (main hash table):\n table size: "), stats);
        java.util.regex.Matcher elements = java.util.regex.Pattern.compile(" number of elements: (\\d+)\n").matcher(stats);
        long total = 0;
        while (elements.find()) total += Long.parseLong(elements.group(1));
        assertEquals(200, total, stats);

        jedis.zadd("zs", 1, "a".repeat(100));
        assertTrue(Raw.str(jedis, "DEBUG", "HTSTATS-KEY", "zs").contains(" number of elements: 1\n"));
        jedis.hset("small", "f", "v");
        assertEquals("ERR The value stored at the specified key is not represented using an hash table",
                Raw.error(() -> cmd(jedis, "DEBUG", "HTSTATS-KEY", "small")));
        assertEquals("ERR no such key", Raw.error(() -> cmd(jedis, "DEBUG", "HTSTATS-KEY", "none")));
    }

    @Test
    void listpackAndQuicklistPrintOnStdoutForTheirEncodingsOnly(Jedis jedis) {
        jedis.hset("h", "f", "v");
        jedis.rpush("l", "a", "1");
        assertEquals("Listpack structure printed on stdout", Raw.str(jedis, "DEBUG", "LISTPACK", "h"));
        assertEquals("ERR Not a listpack encoded object.", Raw.error(() -> cmd(jedis, "DEBUG", "LISTPACK", "l")));
        assertEquals("Quicklist structure printed on stdout", Raw.str(jedis, "DEBUG", "QUICKLIST", "l", "1"));
        assertEquals("ERR Not a quicklist encoded object.", Raw.error(() -> cmd(jedis, "DEBUG", "QUICKLIST", "h")));
        assertEquals("ERR no such key", Raw.error(() -> cmd(jedis, "DEBUG", "QUICKLIST", "none")));
    }

    @Test
    void leakChangeReplIdAndStringmatchTestAnswerAsRedis(CinnabarServer server, Jedis jedis) {
        assertEquals("OK", Raw.str(jedis, "DEBUG", "LEAK", "x"));
        String id = jedis.info("replication").replaceFirst("(?s).*master_replid:(\\w+).*", "$1");
        assertEquals("OK", Raw.str(jedis, "DEBUG", "CHANGE-REPL-ID"));
        assertNotEquals(id, jedis.info("replication").replaceFirst("(?s).*master_replid:(\\w+).*", "$1"));
        // Ten million matches: about a second, as in Redis, longer on a busy machine than Jedis's 2 s wait.
        try (Jedis patient = new Jedis("127.0.0.1", server.port(), 120_000)) {
            assertEquals("Apparently Redis did not crash: test passed", Raw.str(patient, "DEBUG", "STRINGMATCH-TEST"));
        }
    }
}
