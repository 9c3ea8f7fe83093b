package io.cinnabar.persistence.aof;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Replays the few commands an AOF rewrite and our fixtures use into plain Java collections, so a
 * loaded AOF can be compared with what was written. Strings are ISO-8859-1, one char per byte.
 */
final class MiniKeyspace implements Consumer<byte[][]> {
    /** db → key → String | List | Set | Map (hash: field → value; zset: member → Double) */
    final Map<Integer, Map<String, Object>> dbs = new TreeMap<>();
    final Map<Integer, Map<String, Long>> expires = new TreeMap<>();
    private int db;

    @Override
    public void accept(byte[][] argv) {
        String[] a = new String[argv.length];
        for (int i = 0; i < argv.length; i++) a[i] = new String(argv[i], StandardCharsets.ISO_8859_1);
        Map<String, Object> d = dbs.computeIfAbsent(db, k -> new LinkedHashMap<>());
        switch (a[0].toLowerCase(Locale.ROOT)) {
            case "select": db = Integer.parseInt(a[1]); break;
            case "set": d.put(a[1], a[2]); break;
            case "incr": d.put(a[1], Long.toString(Long.parseLong((String) d.getOrDefault(a[1], "0")) + 1)); break;
            case "del": for (int i = 1; i < a.length; i++) d.remove(a[i]); break;
            case "rpush": list(d, a[1]).addAll(List.of(a).subList(2, a.length)); break;
            case "sadd": set(d, a[1]).addAll(List.of(a).subList(2, a.length)); break;
            case "hset": case "hmset":
                for (int i = 2; i < a.length; i += 2) map(d, a[1]).put(a[i], a[i + 1]);
                break;
            case "zadd":
                for (int i = 2; i < a.length; i += 2) map(d, a[1]).put(a[i + 1], parseScore(a[i]));
                break;
            case "pexpireat": expires.computeIfAbsent(db, k -> new HashMap<>()).put(a[1], Long.parseLong(a[2])); break;
            case "multi": case "exec": break;
            default: throw AofReplayException.unknownCommand(argv[0]);
        }
    }

    static double parseScore(String s) {
        if (s.equals("inf") || s.equals("+inf")) return Double.POSITIVE_INFINITY;
        if (s.equals("-inf")) return Double.NEGATIVE_INFINITY;
        return Double.parseDouble(s);
    }

    Object get(int db, String key) {
        return dbs.getOrDefault(db, Map.of()).get(key);
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Map<String, Object> d, String key) {
        return (List<String>) d.computeIfAbsent(key, k -> new ArrayList<>());
    }

    @SuppressWarnings("unchecked")
    private static java.util.Set<String> set(Map<String, Object> d, String key) {
        return (java.util.Set<String>) d.computeIfAbsent(key, k -> new LinkedHashSet<>());
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> map(Map<String, Object> d, String key) {
        return (Map<Object, Object>) d.computeIfAbsent(key, k -> new HashMap<>());
    }
}
