package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest(options = {"enable-debug-command", "yes"})
class SetCommandsIT {
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static String error(Jedis jedis, String name, String... args) {
        return assertThrows(JedisDataException.class, () -> cmd(jedis, name, args)).getMessage();
    }

    private static String encoding(Jedis jedis, String key) {
        return jedis.objectEncoding(key);
    }

    private static Set<String> set(String... members) {
        return new HashSet<>(Arrays.asList(members));
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Object reply) {
        return (List<String>) reply;
    }

    /**
     * Sends one command on a fresh socket (after HELLO 3 when resp3) and returns its raw reply:
     * a PING is pipelined behind it and the bytes are read up to its +PONG.
     */
    private static String raw(CinnabarServer server, boolean resp3, String... command) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            if (resp3) {
                out.write(encode("HELLO", "3"));
                out.write(encode("PING"));
                readUntilPong(in);
            }
            out.write(encode(command));
            out.write(encode("PING"));
            String all = readUntilPong(in);
            return all.substring(0, all.length() - "+PONG\r\n".length());
        }
    }

    private static byte[] encode(String... parts) {
        StringBuilder b = new StringBuilder("*").append(parts.length).append("\r\n");
        for (String p : parts) b.append('$').append(p.length()).append("\r\n").append(p).append("\r\n");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String readUntilPong(InputStream in) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        while (!buf.toString(StandardCharsets.UTF_8).endsWith("+PONG\r\n")) {
            int b = in.read();
            if (b < 0) throw new IllegalStateException("closed after " + buf);
            buf.write(b);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    // ---- basics and encodings ----

    @Test
    void basicsHashtable(Jedis jedis) {
        assertEquals(1, jedis.sadd("s", "foo"));
        assertEquals("hashtable", encoding(jedis, "s"));
        assertEquals(1, jedis.sadd("s", "bar"));
        assertEquals(0, jedis.sadd("s", "bar"));
        assertEquals(2, jedis.scard("s"));
        assertTrue(jedis.sismember("s", "foo"));
        assertFalse(jedis.sismember("s", "bla"));
        assertEquals(List.of(true, false, true), jedis.smismember("s", "foo", "bla", "bar"));
        assertEquals(set("foo", "bar"), jedis.smembers("s"));
        assertEquals("set", jedis.type("s"));
    }

    @Test
    void basicsIntsetSortedAscending(Jedis jedis) {
        assertEquals(5, jedis.sadd("s", "17", "-3", "100000", "5", "9223372036854775807"));
        assertEquals("intset", encoding(jedis, "s"));
        assertEquals(List.of("-3", "5", "17", "100000", "9223372036854775807"), list(cmd(jedis, "SMEMBERS", "s")));
        assertTrue(jedis.sismember("s", "17"));
        assertFalse(jedis.sismember("s", "18"));
        assertFalse(jedis.sismember("s", "017"));
        assertFalse(jedis.sismember("s", "abc"));
        assertEquals(List.of(true, false), jedis.smismember("s", "-3", "x"));
    }

    @Test
    void missingKeys(Jedis jedis) {
        assertEquals(0, jedis.scard("nokey"));
        assertFalse(jedis.sismember("nokey", "a"));
        assertEquals(List.of(false, false), jedis.smismember("nokey", "a", "b"));
        assertEquals(Set.of(), jedis.smembers("nokey"));
        assertEquals(0, jedis.srem("nokey", "a"));
        assertNull(jedis.spop("nokey"));
        assertNull(jedis.srandmember("nokey"));
        assertEquals(List.of(), cmd(jedis, "SPOP", "nokey", "3"));
        assertEquals(List.of(), cmd(jedis, "SRANDMEMBER", "nokey", "3"));
        assertEquals(List.of("0", List.of()), cmd(jedis, "SSCAN", "nokey", "0", "COUNT", "0"));
    }

    @Test
    void wrongTypeEverywhere(Jedis jedis) {
        jedis.set("str", "x");
        jedis.sadd("s", "a");
        String[][] calls = {
            {"SADD", "str", "a"}, {"SREM", "str", "a"}, {"SISMEMBER", "str", "a"}, {"SMISMEMBER", "str", "a"},
            {"SCARD", "str"}, {"SMEMBERS", "str"}, {"SPOP", "str"}, {"SPOP", "str", "2"}, {"SRANDMEMBER", "str"},
            {"SRANDMEMBER", "str", "2"}, {"SMOVE", "str", "s", "a"}, {"SMOVE", "s", "str", "a"},
            {"SINTER", "nokey", "str"}, {"SINTERCARD", "2", "nokey", "str"}, {"SINTERSTORE", "d", "str", "s"},
            {"SUNION", "s", "str"}, {"SUNIONSTORE", "d", "nokey", "str"}, {"SDIFF", "str", "s"},
            {"SDIFFSTORE", "d", "s", "str"}, {"SSCAN", "str", "0"},
        };
        for (String[] call : calls) {
            assertEquals(WRONGTYPE, error(jedis, call[0], Arrays.copyOfRange(call, 1, call.length)), String.join(" ", call));
        }
        assertFalse(jedis.exists("d"));
    }

    @Test
    void arityErrors(Jedis jedis) {
        assertEquals("ERR wrong number of arguments for 'sadd' command", error(jedis, "SADD", "s"));
        assertEquals("ERR wrong number of arguments for 'smismember' command", error(jedis, "SMISMEMBER", "s"));
        assertEquals("ERR wrong number of arguments for 'sintercard' command", error(jedis, "SINTERCARD", "1"));
        assertEquals("ERR wrong number of arguments for 'smove' command", error(jedis, "SMOVE", "a", "b"));
        assertEquals("ERR syntax error", error(jedis, "SPOP", "s", "1", "2"));
        assertEquals("ERR syntax error", error(jedis, "SRANDMEMBER", "s", "1", "2"));
    }

    @Test
    void nonIntegerConvertsForGood(Jedis jedis) {
        jedis.sadd("s", "1", "2", "3");
        assertEquals("intset", encoding(jedis, "s"));
        assertEquals(1, jedis.sadd("s", "a"));
        assertEquals("hashtable", encoding(jedis, "s"));
        jedis.srem("s", "a");
        assertEquals("hashtable", encoding(jedis, "s"));
        assertEquals(set("1", "2", "3"), jedis.smembers("s"));
        // Not string2ll-canonical: leading zero, plus sign, spaces, beyond 64 bits.
        for (String m : new String[] {"01", "+1", " 1", "-0", "213244124402402314402033402"}) {
            jedis.del("t");
            jedis.sadd("t", m);
            assertEquals("hashtable", encoding(jedis, "t"), m);
            assertTrue(jedis.sismember("t", m));
        }
    }

    @Test
    void intsetEntriesLimit(Jedis jedis) {
        for (int i = 0; i < 512; i++) jedis.sadd("s", Integer.toString(i));
        assertEquals("intset", encoding(jedis, "s"));
        jedis.sadd("s", "512");
        assertEquals("hashtable", encoding(jedis, "s"));
        assertEquals(513, jedis.scard("s"));

        jedis.configSet("set-max-intset-entries", "3");
        jedis.sadd("small", "1", "2", "3");
        assertEquals("intset", encoding(jedis, "small"));
        jedis.sadd("small", "4");
        assertEquals("hashtable", encoding(jedis, "small"));
        jedis.configSet("set-max-intset-entries", "0");
        jedis.sadd("zero", "1");
        assertEquals("hashtable", encoding(jedis, "zero"));
        jedis.configSet("set-max-intset-entries", "512");
    }

    /** Redis 7.0.15's answers: its second DIFF algorithm fills the result with the whole first set. */
    @Test
    void sdiffstoreKeepsTheEncodingRedisDiffAlgorithmGivesIt(Jedis jedis) {
        String[] first = new String[520];
        for (int i = 0; i < first.length; i++) first[i] = Integer.toString(i + 1);
        jedis.sadd("a", first);
        jedis.sadd("b", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
        jedis.sadd("c", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20");
        jedis.sadd("d", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30");
        // 520 / 2 per set given > the sets' 550 members: all 520 added (a hash table), 30 removed.
        assertEquals(490, jedis.sdiffstore("many", "a", "b", "c", "d"));
        assertEquals("hashtable", encoding(jedis, "many"));
        // 520 x 2 / 2 <= 530: only the 510 kept are added, an intset.
        assertEquals(510, jedis.sdiffstore("two", "a", "b"));
        assertEquals("intset", encoding(jedis, "two"));
        assertEquals(jedis.smembers("many"), jedis.sdiff("a", "b", "c", "d"));
    }

    @Test
    void sremDeletesEmptySet(Jedis jedis) {
        jedis.sadd("s", "a", "b", "c", "d");
        assertEquals(0, jedis.srem("s", "k", "k"));
        assertEquals(2, jedis.srem("s", "b", "d", "x"));
        assertEquals(set("a", "c"), jedis.smembers("s"));
        jedis.sadd("i", "1", "2", "3");
        assertEquals(3, jedis.srem("i", "1", "2", "3", "4", "5"));
        assertFalse(jedis.exists("i"));
    }

    // ---- SMOVE ----

    @Test
    void smove(Jedis jedis) {
        jedis.sadd("h", "1", "a", "b");
        jedis.sadd("i", "2", "3", "4");
        assertEquals(1, jedis.smove("h", "i", "1"));
        assertEquals("intset", encoding(jedis, "i"));
        assertEquals(1, jedis.smove("h", "i", "a"));
        assertEquals("hashtable", encoding(jedis, "i"));
        assertEquals(set("b"), jedis.smembers("h"));
        assertEquals(0, jedis.smove("h", "i", "zzz"));
        assertEquals(0, jedis.smove("nokey", "i", "b"));
        assertEquals(1, jedis.smove("h", "new", "b"));
        assertFalse(jedis.exists("h"));
        assertEquals(set("b"), jedis.smembers("new"));
        assertEquals(1, jedis.smove("new", "new", "b"));
        assertEquals(0, jedis.smove("new", "new", "c"));
        jedis.sadd("ints", "7");
        jedis.smove("ints", "fresh", "7");
        assertEquals("intset", encoding(jedis, "fresh"));
        // A missing source answers 0 before the destination's type is looked at.
        jedis.set("str", "x");
        assertEquals(0, jedis.smove("nokey", "str", "a"));
    }

    @Test
    void smoveOnlyTouchesDestinationWhenAdded(Jedis jedis, CinnabarServer server) {
        jedis.sadd("src", "a", "b");
        jedis.sadd("dst", "a");
        jedis.watch("dst");
        Transaction tx = jedis.multi();
        tx.sadd("dst", "c");
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            assertEquals(1, other.smove("src", "dst", "a"));
        }
        assertNotNull(tx.exec());
        assertEquals(2, jedis.scard("dst"));
    }

    // ---- SPOP / SRANDMEMBER ----

    @Test
    void spop(Jedis jedis) {
        for (String[] contents : new String[][] {{"a", "b", "c"}, {"1", "2", "3"}}) {
            jedis.del("s");
            jedis.sadd("s", contents);
            Set<String> popped = new HashSet<>();
            for (int i = 0; i < 3; i++) popped.add(jedis.spop("s"));
            assertEquals(set(contents), popped);
            assertFalse(jedis.exists("s"));
        }
    }

    @Test
    void spopWithCountAllPaths(Jedis jedis) {
        for (int count : new int[] {30, 20, 2, 18, 17, 0}) {
            jedis.del("s");
            List<String> all = new ArrayList<>();
            for (int i = 1; i <= 20; i++) all.add(i % 2 == 0 || count != 17 ? Integer.toString(i) : "m" + i);
            jedis.sadd("s", all.toArray(new String[0]));
            List<String> res = list(cmd(jedis, "SPOP", "s", Integer.toString(count)));
            assertEquals(Math.min(count, 20), res.size());
            assertEquals(res.size(), new HashSet<>(res).size());
            Set<String> union = new HashSet<>(res);
            union.addAll(jedis.smembers("s"));
            assertEquals(new HashSet<>(all), union);
            assertEquals(20 - res.size(), jedis.scard("s"));
            assertEquals(count >= 20 ? 0 : 1, jedis.exists("s") ? 1 : 0);
        }
        assertEquals("ERR value is out of range, must be positive", error(jedis, "SPOP", "s", "-1"));
        // Redis reads the count with getPositiveLongFromObjectOrReply: one message for both (missing key too).
        assertEquals("ERR value is out of range, must be positive", error(jedis, "SPOP", "s", "x"));
        assertEquals("ERR value is out of range, must be positive", error(jedis, "SPOP", "nokey", "1.5"));
    }

    @Test
    void spopRebuildKeepsTtl(Jedis jedis) {
        for (int i = 0; i < 20; i++) jedis.sadd("s", "m" + i);
        jedis.expire("s", 100);
        assertEquals(18, list(cmd(jedis, "SPOP", "s", "18")).size());
        assertEquals(2, jedis.scard("s"));
        assertTrue(jedis.ttl("s") > 0);
    }

    @Test
    void srandmemberWithCount(Jedis jedis) {
        for (String prefix : new String[] {"", "m"}) {
            jedis.del("s");
            Set<String> contents = new HashSet<>();
            for (int i = 0; i < 50; i++) contents.add(prefix + i);
            jedis.sadd("s", contents.toArray(new String[0]));
            assertEquals(List.of(), cmd(jedis, "SRANDMEMBER", "s", "0"));
            List<String> rep = list(cmd(jedis, "SRANDMEMBER", "s", "-100"));
            assertEquals(100, rep.size());
            assertTrue(contents.containsAll(rep));
            for (int size : new int[] {50, 100}) {
                assertEquals(contents, new HashSet<>(list(cmd(jedis, "SRANDMEMBER", "s", Integer.toString(size)))));
            }
            for (int size : new int[] {45, 5, 1}) {
                List<String> res = list(cmd(jedis, "SRANDMEMBER", "s", Integer.toString(size)));
                assertEquals(size, res.size());
                assertEquals(size, new HashSet<>(res).size());
                assertTrue(contents.containsAll(res));
            }
            assertEquals(50, jedis.scard("s"));
        }
        assertEquals("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807",
                error(jedis, "SRANDMEMBER", "s", "-9223372036854775808"));
        assertEquals("ERR value is not an integer or out of range", error(jedis, "SRANDMEMBER", "s", "1.5"));
    }

    /**
     * A set stored as a hash table (300 members) picks each member with the same chance, whatever
     * the length of its bucket's chain: chi-square over 300,000 picks, 299 degrees of freedom
     * (mean 299, deviation 24.5). A random bucket, then a member of its chain, scores over 1,000.
     */
    @Test
    void hashTableSetMembersComeUpEquallyOften(Jedis jedis) {
        jedis.del("big");
        for (int i = 0; i < 300; i++) jedis.sadd("big", "member:" + i);
        assertEquals("hashtable", jedis.objectEncoding("big"));
        Map<String, Integer> hist = new HashMap<>();
        for (int round = 0; round < 3; round++) {
            for (String m : list(cmd(jedis, "SRANDMEMBER", "big", "-100000"))) hist.merge(m, 1, Integer::sum);
        }
        assertEquals(300, hist.size());
        double chi = 0;
        for (int n : hist.values()) chi += (n - 1000.0) * (n - 1000.0) / 1000.0;
        assertTrue(chi < 420, "chi-square " + chi);
        jedis.del("big");
    }

    /** Each of 10 members should come up about 1/10 of the time (a lax bound; chi-square is the suite's job). */
    @Test
    void randomDistribution(Jedis jedis) {
        String[][] kinds = {{"1", "5", "10", "50", "125", "MARY", "PATRICIA", "LINDA", "BARBARA", "ELIZABETH"},
            {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}};
        for (String[] contents : kinds) {
            jedis.del("s");
            jedis.sadd("s", contents);
            Map<String, Integer> hist = new HashMap<>();
            for (String m : list(cmd(jedis, "SRANDMEMBER", "s", "-10000"))) hist.merge(m, 1, Integer::sum);
            for (int i = 0; i < 2500; i++) {
                for (String m : list(cmd(jedis, "SRANDMEMBER", "s", "4"))) hist.merge(m, 1, Integer::sum);
            }
            assertEquals(set(contents), hist.keySet());
            for (int n : hist.values()) assertTrue(n > 1500 && n < 2500, hist.toString());

            jedis.del("p");
            Map<String, Integer> pops = new HashMap<>();
            for (int i = 0; i < 3000; i++) {
                jedis.sadd("p", contents);
                pops.merge(jedis.spop("p"), 1, Integer::sum);
            }
            for (int n : pops.values()) assertTrue(n > 180 && n < 420, pops.toString());
        }
    }

    // ---- SINTER family ----

    private void fixtures(Jedis jedis, boolean hashtable) {
        for (int i = 0; i < 200; i++) {
            jedis.sadd("set1", Integer.toString(i));
            jedis.sadd("set2", Integer.toString(i + 195));
        }
        jedis.sadd("set3", "199", "195", "1000", "2000");
        String large = hashtable ? "foo" : "200";
        for (String k : new String[] {"set1", "set2", "set3"}) jedis.sadd(k, large);
    }

    @Test
    void sinterAndSintercard(Jedis jedis) {
        for (boolean hashtable : new boolean[] {false, true}) {
            jedis.flushDB();
            fixtures(jedis, hashtable);
            String large = hashtable ? "foo" : "200";
            assertEquals(set("195", "196", "197", "198", "199", large), jedis.sinter("set1", "set2"));
            assertEquals(set("195", "199", large), jedis.sinter("set1", "set2", "set3"));
            assertEquals(6, jedis.sintercard("set1", "set2"));
            assertEquals(3, jedis.sintercard(3, "set1", "set2"));
            assertEquals(6L, cmd(jedis, "SINTERCARD", "2", "set1", "set2", "LIMIT", "0"));
            assertEquals(2L, cmd(jedis, "SINTERCARD", "3", "set1", "set2", "set3", "limit", "2"));
            assertEquals(201, jedis.sinter("set1", "set1", "set1").size());
            assertEquals(Set.of(), jedis.sinter("set1", "nokey"));
            assertEquals(0, jedis.sintercard("set1", "nokey"));
            assertEquals(6, jedis.sinterstore("res", "set1", "set2"));
            assertEquals(hashtable ? "hashtable" : "intset", encoding(jedis, "res"));
        }
    }

    @Test
    void sintercardErrors(Jedis jedis) {
        assertEquals("ERR numkeys should be greater than 0", error(jedis, "SINTERCARD", "0", "s"));
        assertEquals("ERR numkeys should be greater than 0", error(jedis, "SINTERCARD", "a", "s"));
        assertEquals("ERR Number of keys can't be greater than number of args", error(jedis, "SINTERCARD", "2", "s"));
        assertEquals("ERR syntax error", error(jedis, "SINTERCARD", "1", "s", "t"));
        assertEquals("ERR syntax error", error(jedis, "SINTERCARD", "1", "s", "LIMIT"));
        assertEquals("ERR LIMIT can't be negative", error(jedis, "SINTERCARD", "1", "s", "LIMIT", "-1"));
        assertEquals("ERR LIMIT can't be negative", error(jedis, "SINTERCARD", "1", "s", "LIMIT", "a"));
    }

    @Test
    void sinterMixedEncodings(Jedis jedis) {
        jedis.sadd("a", "1", "2", "3");
        jedis.sadd("b", "1", "2", "3", "x");
        jedis.srem("b", "x");
        assertEquals(set("1", "2", "3"), jedis.sinter("a", "b"));
        assertEquals(set("1", "2", "3"), jedis.sinter("b", "a"));
    }

    @Test
    void storeCommandsReplaceOrDeleteDestination(Jedis jedis) {
        jedis.sadd("a", "1", "2", "3");
        jedis.sadd("b", "3", "4");
        jedis.set("dst", "old");
        jedis.expire("dst", 100);
        assertEquals(4, jedis.sunionstore("dst", "a", "b"));
        assertEquals(-1, jedis.ttl("dst"));
        assertEquals("intset", encoding(jedis, "dst"));
        assertEquals(1, jedis.sinterstore("dst", "a", "b"));
        assertEquals(set("3"), jedis.smembers("dst"));
        assertEquals(2, jedis.sdiffstore("dst", "a", "b"));
        assertEquals(set("1", "2"), jedis.smembers("dst"));
        assertEquals(0, jedis.sinterstore("dst", "a", "nokey"));
        assertFalse(jedis.exists("dst"));
        jedis.set("dst", "x");
        assertEquals(0, jedis.sunionstore("dst", "n1", "n2"));
        assertFalse(jedis.exists("dst"));
        jedis.set("dst", "x");
        assertEquals(0, jedis.sdiffstore("dst", "a", "a"));
        assertFalse(jedis.exists("dst"));
        // A wrong type among the sources leaves the destination alone.
        jedis.sadd("dst", "e");
        jedis.set("str", "x");
        assertEquals(WRONGTYPE, error(jedis, "SINTERSTORE", "dst", "nokey", "str"));
        assertEquals(WRONGTYPE, error(jedis, "SDIFFSTORE", "dst", "a", "str"));
        assertEquals(set("e"), jedis.smembers("dst"));
    }

    @Test
    void sunionAndSdiff(Jedis jedis) {
        jedis.sadd("a", "a", "b", "c", "1");
        jedis.sadd("b", "b", "c", "d");
        jedis.sadd("c", "1", "2");
        assertEquals(set("a", "b", "c", "d", "1"), jedis.sunion("nokey", "a", "b"));
        assertEquals(set("a"), jedis.sdiff("a", "b", "c", "nokey"));
        assertEquals(Set.of(), jedis.sdiff("nokey", "a"));
        assertEquals(Set.of(), jedis.sdiff("a", "a"));
        assertEquals(set("a", "1"), jedis.sdiff("a", "b"));
        // Intset results come out sorted, as Redis's intset iteration.
        jedis.sadd("i", "30", "10", "20");
        jedis.sadd("j", "5", "25");
        assertEquals(List.of("5", "10", "20", "25", "30"), list(cmd(jedis, "SUNION", "i", "j")));
        assertEquals(List.of("10", "20", "30"), list(cmd(jedis, "SDIFF", "i", "j")));
        jedis.sdiffstore("k", "i", "j");
        assertEquals("intset", encoding(jedis, "k"));
    }

    // ---- SSCAN ----

    @Test
    void sscanIntsetReturnsEverything(Jedis jedis) {
        for (int i = 0; i < 100; i++) jedis.sadd("s", Integer.toString(i));
        ScanResult<String> r = jedis.sscan("s", "0", new ScanParams().count(5));
        assertEquals("0", r.getCursor());
        assertEquals(100, r.getResult().size());
        r = jedis.sscan("s", "0", new ScanParams().match("*1*"));
        assertEquals(19, r.getResult().size());
    }

    @Test
    void sscanFullIteration(Jedis jedis) {
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < 20000; i++) expected.add("m:" + i);
        List<String> all = new ArrayList<>(expected);
        for (int i = 0; i < all.size(); i += 1000) {
            jedis.sadd("s", all.subList(i, i + 1000).toArray(new String[0]));
        }
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            ScanResult<String> r = jedis.sscan("s", cursor, new ScanParams().count(100));
            seen.addAll(r.getResult());
            cursor = r.getCursor();
            // Deleting half along the way shrinks the table; the survivors must all still show up.
            if (++calls == 20) {
                List<String> doomed = new ArrayList<>();
                for (int i = 10000; i < 20000; i++) doomed.add("m:" + i);
                jedis.srem("s", doomed.toArray(new String[0]));
            }
        } while (!cursor.equals("0"));
        for (int i = 0; i < 10000; i++) assertTrue(seen.contains("m:" + i), "missing m:" + i);
    }

    @Test
    void sscanOptions(Jedis jedis) {
        jedis.sadd("s", "foo", "fab", "fiz", "bar");
        ScanResult<String> r = jedis.sscan("s", "0", new ScanParams().match("f*").count(1000));
        assertEquals("0", r.getCursor());
        assertEquals(new TreeSet<>(List.of("fab", "fiz", "foo")), new TreeSet<>(r.getResult()));
        assertEquals("ERR invalid cursor", error(jedis, "SSCAN", "s", "abc"));
        assertEquals("ERR syntax error", error(jedis, "SSCAN", "s", "0", "COUNT", "0"));
        assertEquals("ERR syntax error", error(jedis, "SSCAN", "s", "0", "TYPE", "set"));
        assertEquals("ERR value is not an integer or out of range", error(jedis, "SSCAN", "s", "0", "COUNT", "x"));
    }

    // ---- wire shapes ----

    @Test
    void resp2Shapes(CinnabarServer server) throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            jedis.sadd("i", "1", "2");
        }
        assertEquals("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", raw(server, false, "SMEMBERS", "i"));
        assertEquals("*0\r\n", raw(server, false, "SMEMBERS", "nokey"));
        assertEquals("$-1\r\n", raw(server, false, "SPOP", "nokey"));
        assertEquals("*0\r\n", raw(server, false, "SRANDMEMBER", "nokey", "5"));
        assertEquals("*0\r\n", raw(server, false, "SRANDMEMBER", "i", "0"));
        assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", raw(server, false, "SSCAN", "nokey", "0"));
    }

    @Test
    void resp3Shapes(CinnabarServer server) throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            jedis.sadd("i", "1", "2");
        }
        assertEquals("~2\r\n$1\r\n1\r\n$1\r\n2\r\n", raw(server, true, "SMEMBERS", "i"));
        assertEquals("~2\r\n$1\r\n1\r\n$1\r\n2\r\n", raw(server, true, "SINTER", "i", "i"));
        assertEquals("~2\r\n$1\r\n1\r\n$1\r\n2\r\n", raw(server, true, "SUNION", "i", "nokey"));
        assertEquals("~0\r\n", raw(server, true, "SDIFF", "i", "i"));
        assertEquals("~0\r\n", raw(server, true, "SINTER", "i", "nokey"));
        assertEquals("~0\r\n", raw(server, true, "SMEMBERS", "nokey"));
        assertEquals("_\r\n", raw(server, true, "SPOP", "nokey"));
        assertEquals("_\r\n", raw(server, true, "SRANDMEMBER", "nokey"));
        assertEquals("~0\r\n", raw(server, true, "SPOP", "nokey", "2"));
        assertEquals("*0\r\n", raw(server, true, "SRANDMEMBER", "nokey", "2"));
        assertEquals(2, raw(server, true, "SRANDMEMBER", "i", "-2").chars().filter(ch -> ch == '$').count());
        assertTrue(raw(server, true, "SRANDMEMBER", "i", "-2").startsWith("*2\r\n"));
        assertTrue(raw(server, true, "SPOP", "i", "1").startsWith("~1\r\n"));
        assertTrue(raw(server, true, "SPOP", "i", "5").startsWith("~1\r\n"));
    }

    // ---- introspection ----

    @Test
    void copyKeepsEncodingAndIsIndependent(Jedis jedis) {
        jedis.sadd("i", "1", "2", "3");
        jedis.sadd("h", "1", "2", "3", "a");
        jedis.copy("i", "i2", false);
        jedis.copy("h", "h2", false);
        assertEquals("intset", encoding(jedis, "i2"));
        assertEquals("hashtable", encoding(jedis, "h2"));
        jedis.sadd("i", "4");
        jedis.srem("h", "a");
        assertEquals(set("1", "2", "3"), jedis.smembers("i2"));
        assertEquals(set("1", "2", "3", "a"), jedis.smembers("h2"));
        assertEquals(1L, jedis.objectRefcount("h2"));
    }

    /** Digests taken from Redis 7.0.15 for the same contents; encoding-independent. */
    @Test
    void debugDigestValue(Jedis jedis) {
        jedis.sadd("i", "1", "2", "3");
        jedis.sadd("h", "1", "2", "3", "x");
        jedis.srem("h", "x");
        jedis.sadd("x", "1", "2", "3", "x");
        assertEquals(List.of("2a462a3f51a1db89738ebbeef0c47ce1bbc85246", "2a462a3f51a1db89738ebbeef0c47ce1bbc85246",
                "3bb087b1948bf20dd8244692cb9519e2c3947234", "0000000000000000000000000000000000000000"),
                cmd(jedis, "DEBUG", "DIGEST-VALUE", "i", "h", "x", "nokey"));
    }

    @Test
    void commandInfo(Jedis jedis) {
        List<?> info = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "sintercard", "smove")).get(0);
        assertEquals("sintercard", info.get(0));
        assertEquals(-3L, info.get(1));
        assertTrue(((List<?>) info.get(2)).contains("movablekeys"));
        assertEquals(List.of(0L, 0L, 0L), info.subList(3, 6));
        List<?> smove = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "smove")).get(0);
        assertEquals(List.of(1L, 2L, 1L), smove.subList(3, 6));
    }
}
