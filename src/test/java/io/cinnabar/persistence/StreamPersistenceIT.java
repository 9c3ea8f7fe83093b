package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Streams with consumer groups survive RDB saves, AOF replay (as propagated) and AOF rewrites. */
class StreamPersistenceIT {
    @TempDir
    Path dir;

    private CinnabarServer start(String... options) {
        return PersistenceIT.start(dir, options);
    }

    private static Object cmd(Jedis j, String... args) {
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        return decode(j.sendCommand(() -> args[0].getBytes(StandardCharsets.UTF_8), rest));
    }

    private static Object decode(Object o) {
        if (o instanceof byte[] b) return SafeEncoder.encode(b);
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object x : l) out.add(decode(x));
            return out;
        }
        return o;
    }

    /** A stream with trimmed, deleted and pending entries, two groups and a consumer owning nothing. */
    private static void populate(Jedis j) {
        for (int i = 0; i < 250; i++) cmd(j, "XADD", "s", "MAXLEN", "~", "200", "*", "n", String.valueOf(i), "pad", "x".repeat(i % 7));
        cmd(j, "XDEL", "s", (String) ((List<?>) ((List<?>) cmd(j, "XRANGE", "s", "-", "+", "COUNT", "1")).get(0)).get(0));
        cmd(j, "XGROUP", "CREATE", "s", "g", "0");
        cmd(j, "XREADGROUP", "GROUP", "g", "alice", "COUNT", "5", "STREAMS", "s", ">");
        cmd(j, "XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "NOACK", "STREAMS", "s", ">");
        cmd(j, "XGROUP", "CREATECONSUMER", "s", "g", "carol");
        cmd(j, "XGROUP", "CREATE", "s", "g2", "$");
        cmd(j, "XADD", "empty", "MAXLEN", "0", "*", "a", "b");
    }

    /** What must be the same after a reload (idle times and seen times aside). */
    private static List<Object> state(Jedis j) {
        List<Object> s = new ArrayList<>();
        s.add(cmd(j, "XRANGE", "s", "-", "+"));
        List<?> info = (List<?>) cmd(j, "XINFO", "STREAM", "s");
        s.add(info.subList(0, 2));
        s.add(info.subList(6, info.size()));
        s.add(cmd(j, "XINFO", "GROUPS", "s"));
        s.add(cmd(j, "XPENDING", "s", "g"));
        List<Object> pending = new ArrayList<>();
        for (Object p : (List<?>) cmd(j, "XPENDING", "s", "g", "-", "+", "100")) {
            List<?> e = (List<?>) p;
            pending.add(List.of(e.get(0), e.get(1), e.get(3)));
        }
        s.add(pending);
        List<Object> consumers = new ArrayList<>();
        for (Object c : (List<?>) cmd(j, "XINFO", "CONSUMERS", "s", "g")) consumers.add(((List<?>) c).subList(0, 4));
        s.add(consumers);
        s.add(cmd(j, "XINFO", "STREAM", "empty").toString().replaceAll("radix-tree-nodes, \\d+", ""));
        return s;
    }

    @Test
    void rdbSaveAndRestart() {
        List<Object> before;
        try (CinnabarServer s = start("save", ""); Jedis j = new Jedis("127.0.0.1", s.port())) {
            populate(j);
            before = state(j);
            assertEquals("OK", j.save());
        }
        try (CinnabarServer s = start("save", ""); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(before, state(j));
            assertEquals("stream", j.type("s"));
        }
    }

    @Test
    void aofReplaysWhatWasPropagated() {
        List<Object> before;
        try (CinnabarServer s = start("save", "", "appendonly", "yes", "appendfsync", "always");
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            populate(j);
            cmd(j, "XACK", "s", "g", (String) ((List<?>) ((List<?>) cmd(j, "XPENDING", "s", "g", "-", "+", "1")).get(0)).get(0));
            cmd(j, "XCLAIM", "s", "g", "carol", "0", (String) ((List<?>) ((List<?>) cmd(j, "XPENDING", "s", "g", "-", "+", "1")).get(0)).get(0));
            cmd(j, "XAUTOCLAIM", "s", "g", "dave", "0", "0-0", "COUNT", "1");
            before = state(j);
        }
        try (CinnabarServer s = start("save", "", "appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(before, state(j));
        }
    }

    @Test
    void aofRewriteWritesStreamsAsCommands() throws Exception {
        List<Object> before;
        try (CinnabarServer s = start("save", "", "appendonly", "yes", "aof-use-rdb-preamble", "no");
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            populate(j);
            before = state(j);
            j.bgrewriteaof();
            for (int i = 0; i < 3000 && !j.info("persistence").contains("aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0"); i++) {
                Thread.sleep(10);
            }
            while (j.info("persistence").contains("aof_rewrite_in_progress:1")) Thread.sleep(10);
        }
        String base = java.nio.file.Files.readString(firstBase(), StandardCharsets.ISO_8859_1);
        assertEquals(true, base.contains("XSETID") && base.contains("XCLAIM") && base.contains("CREATECONSUMER"), base);
        try (CinnabarServer s = start("save", "", "appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(before, state(j));
        }
    }

    private Path firstBase() throws java.io.IOException {
        try (var files = java.nio.file.Files.list(dir.resolve("appendonlydir"))) {
            return files.filter(p -> p.getFileName().toString().contains(".base.")).findFirst().orElseThrow();
        }
    }

    @Test
    void snapshotKeepsTheStreamAsItWasWhenTheSaveBegan() throws Exception {
        List<Object> before;
        try (CinnabarServer s = start("save", "", "rdb-key-save-delay", "200000"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            populate(j);
            for (int i = 0; i < 20; i++) j.set("k" + i, "v");
            before = state(j);
            j.bgsave();
            // Written while the save walks the keys: the snapshot must hold the old stream.
            cmd(j, "XADD", "s", "*", "late", "1");
            cmd(j, "XREADGROUP", "GROUP", "g", "zed", "STREAMS", "s", ">");
            cmd(j, "XTRIM", "s", "MAXLEN", "10");
            j.configSet("rdb-key-save-delay", "0");
            while (j.info("persistence").contains("rdb_bgsave_in_progress:1")) Thread.sleep(10);
            assertEquals(10L, j.xlen("s"));
        }
        try (CinnabarServer s = start("save", ""); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(before, state(j));
        }
    }
}
