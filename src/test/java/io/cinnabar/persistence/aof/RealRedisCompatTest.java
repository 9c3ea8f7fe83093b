package io.cinnabar.persistence.aof;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.persistence.LocalServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.cinnabar.persistence.aof.AofTestFiles.bytes;
import static io.cinnabar.persistence.aof.AofTestFiles.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Against the real Redis 7.0: AOF directories Redis wrote (src/test/resources/aof, made by
 * generate-fixtures.sh) load here, and what AofFiles and AofRewriteEmitter write passes
 * redis-check-aof and loads into redis-server. The last two run only where those binaries exist.
 */
class RealRedisCompatTest {
    @TempDir
    Path dir;

    private AofLayout fixture(String name) throws IOException, URISyntaxException {
        Path src = Path.of(getClass().getResource("/aof/" + name).toURI());
        AofLayout layout = AofLayout.defaults(dir);
        Files.createDirectories(layout.aofDir());
        try (Stream<Path> files = Files.list(src)) {
            for (Path f : (Iterable<Path>) files::iterator) Files.copy(f, layout.file(f.getFileName().toString()));
        }
        return layout;
    }

    @Test
    void loadsTheAofRedisWroteWithACommandBase() throws Exception {
        AofLayout layout = fixture("redis-7.0-resp-base");
        MiniKeyspace ks = new MiniKeyspace();
        AofLoader.Result r = new AofLoader(layout, false, in -> {
            throw new AssertionError("no RDB here");
        }, ks)
                .loadAll(AofManifest.loadFromDisk(layout));
        assertEquals(AofLoadStatus.OK, r.status());
        assertEquals(Files.size(layout.file("appendonly.aof.2.base.aof")), r.baseSize());

        assertEquals("hello world", ks.get(0, "str"));
        assertEquals("value\\r\\nwith crlf", ks.get(0, "key with spaces"));
        assertEquals("12346", ks.get(0, "num"));
        assertEquals(List.of("a", "b", "c", "1", "2", "3", "tail"), ks.get(0, "list"));
        assertEquals(70, ((List<?>) ks.get(0, "biglist")).size());
        assertEquals(Set.of("1", "2", "3", "100", "-5"), new java.util.HashSet<>((Set<?>) ks.get(0, "intset")));
        assertEquals(null, ks.get(0, "set"));
        assertEquals("1", ks.get(0, "inmulti"));
        assertEquals(Map.of("a", 1.5, "b", 2.0, "c", -3.25, "d", Double.POSITIVE_INFINITY, "e", Double.NEGATIVE_INFINITY,
                "f", 0.1), ks.get(0, "zset"));
        assertEquals(Map.of("f1", "v1", "f2", "v2"), ks.get(0, "hash"));
        assertEquals(4102444800000L, ks.expires.get(0).get("str"));
        assertTrue(ks.expires.get(0).containsKey("hash"));
        assertEquals("db3value", ks.get(3, "db3key"));
        assertEquals("other", ks.get(3, "db3other"));
    }

    @Test
    void handsTheRdbBaseRedisWroteToTheRdbLoader() throws Exception {
        AofLayout layout = fixture("redis-7.0-rdb-base");
        List<byte[]> rdb = new ArrayList<>();
        AofTestFiles.Commands seen = new AofTestFiles.Commands();
        AofLoader.Result r = new AofLoader(layout, false, in -> {
            rdb.add(in.readAllBytes());
            return -1L;
        }, seen)
                .loadAll(AofManifest.loadFromDisk(layout));
        assertEquals(AofLoadStatus.OK, r.status());
        assertArrayEquals(Files.readAllBytes(layout.file("appendonly.aof.2.base.rdb")), rdb.get(0));
        assertEquals("SELECT 0", seen.seen.get(0));
        assertTrue(seen.seen.containsAll(List.of("incr num", "del set", "MULTI", "SET inmulti 1", "RPUSH list tail",
                "EXEC", "SELECT 3", "set db3other other")), seen.seen.toString());
    }

    // ---- what we write, checked by the real tools ----

    private static boolean onPath(String binary) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, binary))) return true;
        }
        return false;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A data set of every type, written the way the persistence thread will: start, append, rewrite, append. */
    private AofLayout writeOurOwnAof(boolean timestamps) throws IOException {
        AofLayout layout = AofLayout.defaults(dir);
        long[] clock = {1_700_000_000};
        try (AofFiles files = new AofFiles(layout, AofManifest.loadFromDisk(layout), () -> clock[0])) {
            files.setTimestampsEnabled(timestamps);
            files.openOnStartup(false, out -> new AofRewriteEmitter(out).finish());
            files.append(bytes(cmd("SELECT", "0"), cmd("SET", "before", "rewrite"), cmd("RPUSH", "gone", "x")), -1);
            clock[0]++;
            files.append(bytes(cmd("DEL", "gone")), 0);

            AofFiles.RewriteTarget target = files.startRewrite();
            try (OutputStream out = Files.newOutputStream(target.tempFile())) {
                AofRewriteEmitter e = new AofRewriteEmitter(out);
                if (timestamps) e.timestamp(clock[0]);
                e.key(0, b("before"), b("rewrite"), -1);
                ListValue list = new ListValue(-2);
                for (int i = 0; i < 100; i++) list.push(b("e" + i), false);
                e.key(0, b("list"), list, 4102444800000L);
                SetValue set = SetValue.empty();
                for (String m : new String[] {"1", "2", "x y"}) set.add(b(m), 512);
                e.key(0, b("set"), set, -1);
                HashValue hash = new HashValue();
                hash.set(b("f"), b("v"), 128, 64);
                e.key(1, b("hash"), hash, -1);
                ZSetValue z = new ZSetValue();
                z.add(0.1, b("a"), 0, new double[1], 128, 64);
                z.add(Double.POSITIVE_INFINITY, b("b"), 0, new double[1], 128, 64);
                e.key(1, b("zset"), z, -1);
                e.finish();
            }
            files.append(cmd("SET", "during", "rewrite"), 0);
            files.finishRewrite(target.tempFile(), false);
            clock[0]++;
            files.append(bytes(cmd("MULTI"), cmd("INCR", "counter"), cmd("INCR", "counter"), cmd("EXEC")), 0);
            files.fsync();
        }
        return layout;
    }

    @Test
    void redisCheckAofAcceptsWhatWeWrite() throws Exception {
        assumeTrue(onPath("redis-check-aof"), "redis-check-aof is not installed");
        AofLayout layout = writeOurOwnAof(true);
        assertEquals("file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n",
                Files.readString(layout.manifestPath()));
        String out = run("redis-check-aof", layout.manifestPath().toString());
        assertTrue(out.contains("Start to check BASE AOF (RESP format)"), out);
        assertTrue(out.contains("All AOF files and manifest are valid"), out);
    }

    @Test
    void redisCheckAofCutsAShortFileWhereWeDo() throws Exception {
        assumeTrue(onPath("redis-check-aof"), "redis-check-aof is not installed");
        AofLayout layout = writeOurOwnAof(false);
        Path incr = layout.file("appendonly.aof.2.incr.aof");
        byte[] whole = Files.readAllBytes(incr);
        Files.write(incr, java.util.Arrays.copyOf(whole, whole.length - 3));
        String out = run("redis-check-aof", layout.manifestPath().toString());
        assertTrue(out.contains("is not valid"), out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("filename=appendonly.aof.2.incr.aof.*ok_up_to=(\\d+),").matcher(out);
        assertTrue(m.find(), out);

        AofLoader.Result r = new AofLoader(layout, true, in -> -1L, argv -> { }).loadAll(AofManifest.loadFromDisk(layout));
        assertEquals(AofLoadStatus.TRUNCATED, r.status());
        assertEquals(Long.parseLong(m.group(1)), Files.size(incr), "same cut point as redis-check-aof's ok_up_to");
    }

    @Test
    void redisServerLoadsWhatWeWrite() throws Exception {
        assumeTrue(onPath("redis-server"), "redis-server is not installed");
        writeOurOwnAof(true);
        int port = LocalServers.freePort();
        Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--appendonly", "yes", "--save", "", "--aof-use-rdb-preamble", "no")
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try (Jedis jedis = connect(port, redis)) {
            assertEquals("rewrite", jedis.get("before"));
            assertEquals("rewrite", jedis.get("during"));
            assertEquals(false, jedis.exists("gone"));
            assertEquals("2", jedis.get("counter"));
            assertEquals(100L, jedis.llen("list"));
            assertEquals("e99", jedis.lindex("list", 99));
            assertEquals(4102444800000L, jedis.pexpireTime("list"));
            assertEquals(Set.of("1", "2", "x y"), jedis.smembers("set"));
            jedis.select(1);
            assertEquals("v", jedis.hget("hash", "f"));
            assertEquals(0.1, jedis.zscore("zset", "a"));
            assertEquals(Double.POSITIVE_INFINITY, jedis.zscore("zset", "b"));
        } finally {
            redis.destroy();
            if (!redis.waitFor(10, TimeUnit.SECONDS)) redis.destroyForcibly().waitFor();
        }
        String log = Files.readString(dir.resolve("redis.log"));
        assertTrue(log.contains("DB loaded from append only file"), log);
    }

    private static Jedis connect(int port, Process redis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Jedis j = new Jedis("127.0.0.1", port);
            try {
                j.ping();
                return j;
            } catch (RuntimeException e) {
                j.close();
                if (!redis.isAlive() || System.nanoTime() > deadline) throw e;
                Thread.sleep(50);
            }
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly();
        return out;
    }
}
