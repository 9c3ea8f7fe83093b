package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class HashCommandsIT {
    private static String encoding(Jedis jedis, String key) {
        return jedis.objectEncoding(key);
    }

    @Test
    void setGetAndCounts(Jedis jedis) {
        assertEquals(3, jedis.hset("h", Map.of("a", "1", "b", "2", "c", "3")));
        assertEquals(0L, Raw.cmd(jedis, "HSET", "h", "a", "10"));
        assertEquals(1L, Raw.cmd(jedis, "HSET", "h", "a", "12", "d", "4"));
        assertEquals("12", jedis.hget("h", "a"));
        assertNull(jedis.hget("h", "zz"));
        assertNull(jedis.hget("nokey", "a"));
        assertEquals(4, jedis.hlen("h"));
        assertEquals(0, jedis.hlen("nokey"));
        assertEquals("OK", jedis.hmset("h", Map.of("e", "5")));
        assertEquals(Arrays.asList("12", null, "5"), jedis.hmget("h", "a", "zz", "e"));
        assertEquals(Arrays.asList(null, null), jedis.hmget("nokey", "a", "b"));
        assertEquals(2, jedis.hstrlen("h", "a"));
        assertEquals(0, jedis.hstrlen("h", "zz"));
        assertEquals(0, jedis.hstrlen("nokey", "zz"));
        assertTrue(jedis.hexists("h", "a"));
        assertFalse(jedis.hexists("h", "zz"));
        assertFalse(jedis.hexists("nokey", "zz"));
        assertEquals(Set.of("a", "b", "c", "d", "e"), jedis.hkeys("h"));
        assertEquals(new TreeSet<>(List.of("12", "2", "3", "4", "5")), new TreeSet<>(jedis.hvals("h")));
        assertEquals(Map.of("a", "12", "b", "2", "c", "3", "d", "4", "e", "5"), jedis.hgetAll("h"));
        assertEquals(Map.of(), jedis.hgetAll("nokey"));
        assertEquals(Set.of(), jedis.hkeys("nokey"));
    }

    @Test
    void compactHashKeepsInsertionOrder(Jedis jedis) {
        Raw.cmd(jedis, "HSET", "h", "z", "1", "y", "2", "x", "3");
        Raw.cmd(jedis, "HSET", "h", "y", "22", "w", "4");
        jedis.hdel("h", "z");
        assertEquals(List.of("y", "22", "x", "3", "w", "4"), Raw.cmd(jedis, "HGETALL", "h"));
    }

    @Test
    void hsetnx(Jedis jedis) {
        assertEquals(1, jedis.hsetnx("h", "a", "1"));
        assertEquals(0, jedis.hsetnx("h", "a", "2"));
        assertEquals("1", jedis.hget("h", "a"));
    }

    @Test
    void hdelDeletesEmptyHashes(Jedis jedis) {
        jedis.hset("h", Map.of("a", "1", "b", "2", "c", "3"));
        assertEquals(2, jedis.hdel("h", "a", "b", "zz", "a"));
        assertEquals(0, jedis.hdel("nokey", "a"));
        assertEquals(1, jedis.hdel("h", "c", "c"));
        assertFalse(jedis.exists("h"));
    }

    @Test
    void errors(Jedis jedis) {
        jedis.set("str", "x");
        String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
        assertEquals(wrongType, error(() -> jedis.hget("str", "a")));
        assertEquals(wrongType, error(() -> jedis.hset("str", "a", "1")));
        assertEquals(wrongType, error(() -> jedis.hmget("str", "a")));
        assertEquals(wrongType, error(() -> jedis.hgetAll("str")));
        assertEquals(wrongType, error(() -> jedis.hlen("str")));
        assertEquals(wrongType, error(() -> Raw.cmd(jedis, "HSCAN", "str", "0", "COUNT", "0")));
        assertEquals("ERR wrong number of arguments for 'hset' command", error(() -> Raw.cmd(jedis, "HSET", "h", "a", "1", "b")));
        assertEquals("ERR wrong number of arguments for 'hmset' command", error(() -> Raw.cmd(jedis, "HMSET", "h", "a")));
        assertEquals("ERR wrong number of arguments for 'hget' command", error(() -> Raw.cmd(jedis, "HGET", "h")));
        assertFalse(jedis.exists("h"));
    }

    @Test
    void hincrby(Jedis jedis) {
        assertEquals(5, jedis.hincrBy("h", "n", 5));
        assertEquals(-5, jedis.hincrBy("h", "n", -10));
        jedis.hset("h", "s", " 1");
        assertEquals("ERR hash value is not an integer", error(() -> jedis.hincrBy("h", "s", 1)));
        assertEquals("ERR value is not an integer or out of range", error(() -> Raw.cmd(jedis, "HINCRBY", "h", "n", "x")));
        jedis.hset("h", "big", "9223372036854775800");
        assertEquals("ERR increment or decrement would overflow", error(() -> jedis.hincrBy("h", "big", 10)));
        jedis.hset("h", "small", "-9223372036854775800");
        assertEquals("ERR increment or decrement would overflow", error(() -> jedis.hincrBy("h", "small", -10)));
        assertEquals("ERR value is not an integer or out of range", error(() -> Raw.cmd(jedis, "HINCRBY", "other", "n", "x")));
        assertFalse(jedis.exists("other"));
    }

    @Test
    void hincrbyfloat(Jedis jedis) {
        assertEquals("1.23", Raw.str(jedis, "HINCRBYFLOAT", "h", "f", "1.23"));
        assertEquals("2", Raw.str(jedis, "HINCRBYFLOAT", "h", "f", "0.77"));
        assertEquals("1.9", Raw.str(jedis, "HINCRBYFLOAT", "h", "f", "-0.1"));
        assertEquals("10.5", Raw.str(jedis, "HINCRBYFLOAT", "h", "n", "10.5"));
        jedis.hset("h", "s", "1 ");
        assertEquals("ERR hash value is not a float", error(() -> Raw.cmd(jedis, "HINCRBYFLOAT", "h", "s", "1")));
        assertEquals("ERR value is not a valid float", error(() -> Raw.cmd(jedis, "HINCRBYFLOAT", "h", "f", "abc")));
        assertEquals("ERR value is NaN or Infinity", error(() -> Raw.cmd(jedis, "HINCRBYFLOAT", "x", "f", "+inf")));
        assertFalse(jedis.exists("x"));
        jedis.hset("h", "huge", "1e5000");
        assertEquals("ERR hash value is not a float", error(() -> Raw.cmd(jedis, "HINCRBYFLOAT", "h", "huge", "1")));
    }

    @Test
    void encodingConversion(Jedis jedis) {
        jedis.hset("small", "a", "1");
        assertEquals("listpack", encoding(jedis, "small"));
        jedis.hset("long", "a", "x".repeat(65));
        assertEquals("hashtable", encoding(jedis, "long"));
        jedis.hset("longfield", "f".repeat(65), "1");
        assertEquals("hashtable", encoding(jedis, "longfield"));
        // Redis 7.0's built-in hash-max-listpack-entries is 512 (redis.conf sets 128).
        for (int i = 0; i < 512; i++) jedis.hset("many", "f" + i, "v");
        assertEquals("listpack", encoding(jedis, "many"));
        jedis.hset("many", "f512", "v");
        assertEquals("hashtable", encoding(jedis, "many"));
        // One-way: shrinking does not convert back.
        for (int i = 0; i < 504; i++) jedis.hdel("many", "f" + i);
        assertEquals("hashtable", encoding(jedis, "many"));
        assertEquals(9, jedis.hlen("many"));
        assertEquals("v", jedis.hget("many", "f512"));
    }

    @Test
    void multiFieldHsetConvertsOnce(Jedis jedis) {
        String[] args = new String[1 + 2 * 900];
        args[0] = "h";
        for (int i = 0; i < 900; i++) {
            args[1 + 2 * i] = "f" + (i % 600);
            args[2 + 2 * i] = "v" + i;
        }
        assertEquals(600L, Raw.cmd(jedis, "HSET", args));
        assertEquals("hashtable", encoding(jedis, "h"));
        assertEquals("v699", jedis.hget("h", "f99"));
        assertEquals("v550", jedis.hget("h", "f550"));
        String[] small = Arrays.copyOf(args, 1 + 2 * 100);
        small[0] = "s";
        for (int i = 0; i < 100; i++) small[1 + 2 * i] = "f" + (i % 40);
        assertEquals(40L, Raw.cmd(jedis, "HSET", small));
        assertEquals("listpack", encoding(jedis, "s"));
        assertEquals("v99", jedis.hget("s", "f19"));
    }

    @Test
    void configSetThresholdsApplyToLaterWrites(Jedis jedis) {
        for (int i = 0; i < 10; i++) jedis.hset("h", "f" + i, "v");
        jedis.configSet("hash-max-listpack-entries", "4");
        assertEquals("listpack", encoding(jedis, "h"));
        jedis.hset("h", "f0", "again");
        assertEquals("hashtable", encoding(jedis, "h"));
        jedis.configSet("hash-max-listpack-entries", "512");
        jedis.configSet("hash-max-ziplist-value", "3");
        jedis.hset("v", "a", "123");
        assertEquals("listpack", encoding(jedis, "v"));
        assertEquals("1234", Raw.str(jedis, "HINCRBYFLOAT", "v", "a", "1111"));
        assertEquals("hashtable", encoding(jedis, "v"));
        jedis.configSet("hash-max-ziplist-value", "64");
        jedis.configSet("hash-max-listpack-entries", "0");
        jedis.hset("z", "a", "1");
        assertEquals("hashtable", encoding(jedis, "z"));
        jedis.configSet("hash-max-listpack-entries", "512");
    }

    @Test
    void copyIsIndependent(Jedis jedis) {
        jedis.hset("src", Map.of("a", "1", "b", "2"));
        jedis.configSet("hash-max-listpack-entries", "0");
        jedis.hset("big", Map.of("a", "1", "b", "2"));
        jedis.configSet("hash-max-listpack-entries", "512");
        for (String key : List.of("src", "big")) {
            assertTrue(jedis.copy(key, key + "2", false));
            assertEquals(encoding(jedis, key), encoding(jedis, key + "2"));
            jedis.hset(key, "a", "changed");
            jedis.hdel(key, "b");
            assertEquals(Map.of("a", "1", "b", "2"), jedis.hgetAll(key + "2"));
        }
    }

    @Test
    void hrandfield(Jedis jedis) {
        assertNull(jedis.hrandfield("nokey"));
        assertEquals(List.of(), jedis.hrandfield("nokey", 5));
        jedis.hset("h", Map.of("a", "1", "b", "2", "c", "3"));
        assertTrue(Set.of("a", "b", "c").contains(jedis.hrandfield("h")));
        assertEquals(List.of(), jedis.hrandfield("h", 0));
        assertEquals(Set.of("a", "b", "c"), new HashSet<>(jedis.hrandfield("h", 10)));
        assertEquals(2, new HashSet<>(jedis.hrandfield("h", 2)).size());
        List<String> repeated = jedis.hrandfield("h", -20);
        assertEquals(20, repeated.size());
        assertTrue(Set.of("a", "b", "c").containsAll(repeated));
        @SuppressWarnings("unchecked")
        List<String> flat = (List<String>) Raw.cmd(jedis, "HRANDFIELD", "h", "-5", "WITHVALUES");
        assertEquals(10, flat.size());
        for (int i = 0; i < flat.size(); i += 2) assertEquals(jedis.hget("h", flat.get(i)), flat.get(i + 1));
        assertEquals("ERR syntax error", error(() -> Raw.cmd(jedis, "HRANDFIELD", "h", "1", "foo")));
        assertEquals("ERR value is out of range",
                error(() -> Raw.cmd(jedis, "HRANDFIELD", "h", "-9223372036854770000", "WITHVALUES")));
        assertEquals("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
                error(() -> Raw.cmd(jedis, "HRANDFIELD", "h", "-9223372036854775808")));
        assertEquals("ERR value is not an integer or out of range", error(() -> Raw.cmd(jedis, "HRANDFIELD", "h", "x")));
    }

    @Test
    void hrandfieldIsUniformOverHashtable(Jedis jedis) {
        jedis.configSet("hash-max-listpack-entries", "0");
        for (int i = 0; i < 10; i++) jedis.hset("h", "f" + i, "v");
        jedis.configSet("hash-max-listpack-entries", "512");
        assertEquals("hashtable", encoding(jedis, "h"));
        Map<String, Integer> seen = new HashMap<>();
        for (String f : jedis.hrandfield("h", -10000)) seen.merge(f, 1, Integer::sum);
        double chi = 0;
        for (int n : seen.values()) chi += (n - 1000.0) * (n - 1000.0) / 1000.0;
        assertEquals(10, seen.size());
        assertTrue(chi < 40, "chi-square " + chi);
        // Positive counts are distinct and cover big hashes too.
        assertEquals(3, new HashSet<>(jedis.hrandfield("h", 3)).size());
    }

    /** Redis's lpRandomPairsUnique: distinct pairs in storage order, every field as likely as the others. */
    @Test
    void hrandfieldOfAListpackPicksDistinctPairsInOrderAndUniformly(Jedis jedis) {
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            jedis.hset("h", "f" + i, "v" + i);
            order.add("f" + i);
        }
        assertEquals("listpack", encoding(jedis, "h"));
        Map<String, Integer> seen = new HashMap<>();
        for (int round = 0; round < 3000; round++) {
            int count = round % 2 == 0 ? 3 : 15; // below and above a third of the hash: both strategies
            @SuppressWarnings("unchecked")
            List<String> flat = (List<String>) Raw.cmd(jedis, "HRANDFIELD", "h", String.valueOf(count), "WITHVALUES");
            assertEquals(2 * count, flat.size());
            Set<String> fields = new HashSet<>();
            int last = -1;
            for (int i = 0; i < flat.size(); i += 2) {
                String field = flat.get(i);
                assertEquals("v" + field.substring(1), flat.get(i + 1));
                assertTrue(fields.add(field), "distinct: " + flat);
                if (count == 3) {
                    assertTrue(order.indexOf(field) > last, "storage order: " + flat);
                    last = order.indexOf(field);
                    seen.merge(field, 1, Integer::sum);
                }
            }
        }
        double expected = 1500 * 3 / 30.0, chi = 0;
        for (String f : order) {
            double n = seen.getOrDefault(f, 0);
            chi += (n - expected) * (n - expected) / expected;
        }
        assertTrue(chi < 80, "chi-square over 29 degrees of freedom: " + chi);
    }

    @Test
    void resp3Shapes(CinnabarServer server) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            exchange(out, in, "HELLO", "3");
            exchange(out, in, "HSET", "h", "a", "1");
            assertEquals("%1\r\n$1\r\na\r\n$1\r\n1\r\n", exchange(out, in, "HGETALL", "h"));
            assertEquals("%0\r\n", exchange(out, in, "HGETALL", "nokey"));
            assertEquals("*1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n", exchange(out, in, "HRANDFIELD", "h", "1", "WITHVALUES"));
            assertEquals("*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n",
                    exchange(out, in, "HRANDFIELD", "h", "-2", "WITHVALUES"));
            assertEquals("*1\r\n$1\r\na\r\n", exchange(out, in, "HRANDFIELD", "h", "5"));
            assertEquals("_\r\n", exchange(out, in, "HRANDFIELD", "nokey"));
            assertEquals("*0\r\n", exchange(out, in, "HRANDFIELD", "nokey", "3"));
            assertEquals("*1\r\n_\r\n", exchange(out, in, "HMGET", "nokey", "a"));
            assertEquals("*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n", exchange(out, in, "HSCAN", "h", "0"));
            assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", exchange(out, in, "HSCAN", "nokey", "0", "COUNT", "0"));
        }
    }

    @Test
    void hscanCompactReturnsEverything(Jedis jedis) {
        for (int i = 0; i < 20; i++) jedis.hset("h", "f" + i, "v" + i);
        ScanResult<Map.Entry<String, String>> r = jedis.hscan("h", "0", new ScanParams().count(1));
        assertEquals("0", r.getCursor());
        assertEquals(20, r.getResult().size());
        r = jedis.hscan("h", "0", new ScanParams().match("f1*"));
        assertEquals(11, r.getResult().size());
        for (Map.Entry<String, String> e : r.getResult()) assertEquals("v" + e.getKey().substring(1), e.getValue());
        assertEquals("ERR syntax error", error(() -> Raw.cmd(jedis, "HSCAN", "h", "0", "COUNT", "0")));
        assertEquals("ERR syntax error", error(() -> Raw.cmd(jedis, "HSCAN", "h", "0", "TYPE", "hash")));
        assertEquals("ERR invalid cursor", error(() -> Raw.cmd(jedis, "HSCAN", "nokey", "x")));
    }

    @Test
    void hscanIteratesLargeHashCompletely(Jedis jedis) {
        int n = 5000;
        Map<String, String> all = new HashMap<>();
        for (int i = 0; i < n; i++) all.put("field:" + i, "value:" + i);
        jedis.hset("h", all);
        assertEquals("hashtable", encoding(jedis, "h"));
        Map<String, String> seen = new HashMap<>();
        String cursor = "0";
        int calls = 0;
        do {
            ScanResult<Map.Entry<String, String>> r = jedis.hscan("h", cursor, new ScanParams().count(100));
            for (Map.Entry<String, String> e : r.getResult()) seen.put(e.getKey(), e.getValue());
            cursor = r.getCursor();
            calls++;
            // Fields deleted and added mid-scan must not hide the ones present throughout.
            if (calls == 5) {
                for (int i = 0; i < 2000; i++) jedis.hset("h", "extra:" + i, "x");
            }
        } while (!cursor.equals("0"));
        assertTrue(calls > 10, "calls " + calls);
        for (Map.Entry<String, String> e : all.entrySet()) assertEquals(e.getValue(), seen.get(e.getKey()));
    }

    /** Sends one command and returns the raw reply (one complete RESP value). */
    private static String exchange(OutputStream out, InputStream in, String... args) throws IOException {
        out.write(RespSocket.encode(args));
        out.flush();
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        readValue(in, reply);
        return reply.toString(StandardCharsets.UTF_8);
    }

    private static void readValue(InputStream in, ByteArrayOutputStream sink) throws IOException {
        String line = readLine(in, sink);
        char type = line.charAt(0);
        switch (type) {
            case '$', '=' -> {
                int len = Integer.parseInt(line.substring(1));
                if (len >= 0) sink.write(in.readNBytes(len + 2));
            }
            case '*', '~', '>' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) readValue(in, sink);
            }
            case '%', '|' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < 2 * n; i++) readValue(in, sink);
            }
            default -> { }
        }
    }

    private static String readLine(InputStream in, ByteArrayOutputStream sink) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new IOException("closed");
            sb.append((char) c);
        }
        sink.write((sb + "\n").getBytes(StandardCharsets.ISO_8859_1));
        return sb.substring(0, sb.length() - 1);
    }
}
