package io.cinnabar.persistence;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/** Test helpers: fill a server with every type in both encodings, and read back all of it comparably. */
final class DataSet {
    private DataSet() {}

    /**
     * Every key of every database as "db:key" → type, encoding, contents (sorted where the type has
     * no order, since hashtables iterate in insertion order) and absolute expiry. Works the same
     * against real Redis.
     */
    static Map<String, String> of(Jedis j, int databases) {
        Map<String, String> out = new TreeMap<>();
        for (int db = 0; db < databases; db++) {
            j.select(db);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = j.scan(cursor, new ScanParams().count(1000));
                for (String key : page.getResult()) out.put(db + ":" + key, describe(j, key));
                cursor = page.getCursor();
            } while (!cursor.equals("0"));
        }
        j.select(0);
        return out;
    }

    private static String describe(Jedis j, String key) {
        String type = j.type(key);
        String contents = switch (type) {
            case "string" -> j.get(key);
            case "list" -> j.lrange(key, 0, -1).toString();
            case "set" -> new java.util.TreeSet<>(j.smembers(key)).toString();
            case "zset" -> j.zrangeWithScores(key, 0, -1).toString();
            case "hash" -> new TreeMap<>(j.hgetAll(key)).toString();
            default -> "?";
        };
        return type + "/" + j.objectEncoding(key) + "/" + contents + "@" + j.pexpireTime(key);
    }

    /**
     * Strings (int, short, long and compressible), lists of one and several nodes, hashes, sets
     * and sorted sets in their compact and large encodings, keys with TTLs, in databases 0, 1 and 9.
     */
    static void fill(Jedis j) {
        j.select(0);
        j.set("int", "12345");
        j.set("negative", "-9000000000");
        j.set("short", "hello");
        j.set("compressible", "a".repeat(500));
        j.set("binary", new String(new byte[] {0, 1, (byte) 0xff}, StandardCharsets.ISO_8859_1));
        j.rpush("list-small", "a", "b", "1", "2");
        for (int i = 0; i < 2000; i++) j.rpush("list-big", "element-" + i);
        j.hset("hash-small", Map.of("f1", "v1", "f2", "2"));
        for (int i = 0; i < 300; i++) j.hset("hash-big", "field" + i, "value" + i);
        j.sadd("set-ints", "1", "2", "3", "-5");
        j.sadd("set-strings", "a", "b", "c");
        for (int i = 0; i < 600; i++) j.sadd("set-big-ints", Integer.toString(i));
        j.zadd("zset-small", Map.of("a", 1.0, "b", 2.5, "c", -3.0));
        for (int i = 0; i < 200; i++) j.zadd("zset-big", i / 3.0, "member" + i);
        j.set("ttl-string", "x");
        j.pexpire("ttl-string", 500_000);
        j.rpush("ttl-list", "x");
        j.expire("ttl-list", 1000);
        j.select(1);
        j.set("db1-key", "one");
        j.hset("db1-hash", "f", "v");
        j.select(9);
        j.sadd("db9-set", "x", "y");
        j.select(0);
    }

    /** Fails naming the keys that differ, rather than printing both data sets whole. */
    static void assertSame(Map<String, String> expected, Map<String, String> actual, String what) {
        java.util.Set<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        StringBuilder diff = new StringBuilder();
        for (String k : keys) {
            String e = expected.get(k), a = actual.get(k);
            if (java.util.Objects.equals(e, a)) continue;
            diff.append("\n  ").append(k).append(": expected ").append(clip(e)).append(" but was ").append(clip(a));
        }
        if (diff.length() > 0) throw new AssertionError(what + ": data sets differ" + diff);
    }

    private static String clip(String s) {
        return s == null ? "<absent>" : s.length() > 80 ? s.substring(0, 60) + "..." + s.substring(s.length() - 20) : s;
    }

    /**
     * After {@link #fill}: writes of every kind a replica must follow, each propagated its own way
     * (INCRBYFLOAT as SET, SPOP as SREM, EXPIRE as PEXPIREAT, a script's and a function's effects,
     * a transaction, another database, SWAPDB).
     */
    static void writeOfEveryKind(Jedis c) {
        c.incr("int");
        c.select(1);
        c.hset("db1-hash", Map.of("g", "w"));
        c.select(0);
        c.expire("short", 1000);
        c.spop("set-strings");
        c.incrByFloat("float", 1.5);
        c.sendCommand(() -> "EVAL".getBytes(StandardCharsets.UTF_8),
                "redis.call('SET', KEYS[1], 'lua'); return redis.call('INCR', KEYS[2])", "2", "lk", "lc");
        c.functionLoad("#!lua name=lib\nredis.register_function('f', function(k) return redis.call('DEL', k[1]) end)");
        c.fcall("f", java.util.List.of("list-small"), java.util.List.of());
        redis.clients.jedis.Transaction tx = c.multi();
        tx.set("t1", "1");
        tx.lpush("t2", "a");
        tx.exec();
        c.swapDB(0, 9);
    }
}
