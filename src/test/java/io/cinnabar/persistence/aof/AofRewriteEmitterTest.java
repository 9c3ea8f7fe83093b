package io.cinnabar.persistence.aof;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.ZSetValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.cinnabar.persistence.aof.AofTestFiles.bytes;
import static io.cinnabar.persistence.aof.AofTestFiles.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AofRewriteEmitterTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static ListValue list(int n) {
        ListValue l = new ListValue(-2);
        for (int i = 0; i < n; i++) l.push(b("item-" + i), false);
        return l;
    }

    private static SetValue set(String... members) {
        SetValue s = SetValue.empty();
        for (String m : members) s.add(b(m), 512);
        return s;
    }

    private static HashValue hash(int fields) {
        HashValue h = new HashValue();
        for (int i = 0; i < fields; i++) h.set(b("f" + i), b("v" + i), 128, 64);
        return h;
    }

    private static ZSetValue zset(Object... scoreMember) {
        ZSetValue z = new ZSetValue();
        for (int i = 0; i < scoreMember.length; i += 2) {
            z.add((Double) scoreMember[i], b((String) scoreMember[i + 1]), 0, new double[1], 128, 64);
        }
        return z;
    }

    @Test
    void writesRedissCommandsByteForByte() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AofRewriteEmitter e = new AofRewriteEmitter(out);
        e.timestamp(1628217470);
        e.key(0, b("s"), b("v"), -1);
        e.key(0, b("l"), list(2), 1700000000000L);
        e.key(2, b("z"), zset(1.5, "a", Double.POSITIVE_INFINITY, "b", 0.1, "c", Double.NEGATIVE_INFINITY, "d"), -1);
        e.finish();
        assertArrayEquals(bytes("#TS:1628217470\r\n", cmd("SELECT", "0"), cmd("SET", "s", "v"),
                cmd("RPUSH", "l", "item-0", "item-1"), cmd("PEXPIREAT", "l", "1700000000000"), cmd("SELECT", "2"),
                cmd("ZADD", "z", "-inf", "d", "0.10000000000000001", "c", "1.5", "a", "inf", "b")), out.toByteArray());
    }

    @Test
    void splitsCollectionsIntoCommandsOf64Items() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AofRewriteEmitter e = new AofRewriteEmitter(out);
        e.key(0, b("l"), list(130), -1);
        e.key(0, b("h"), hash(65), -1);
        e.finish();
        List<Integer> sizes = new ArrayList<>();
        Path file = Files.write(dir.resolve("base.aof"), out.toByteArray());
        AofLayout layout = new AofLayout(dir, ".", "x");
        new AofLoader(layout, false, in -> -1L, argv -> sizes.add(argv.length)).loadFile(file.getFileName().toString(), true);
        // SELECT, then RPUSH l + 64, + 64, + 2, then HMSET h + 64 pairs, + 1 pair.
        assertEquals(List.of(2, 66, 66, 4, 130, 4), sizes);
    }

    @Test
    void whatItWritesLoadsBackToTheSameData() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AofRewriteEmitter e = new AofRewriteEmitter(out);
        e.functionLoad(b("#!lua name=lib\nredis.register_function('f', function() return 1 end)"));

        e.key(0, b("str"), b("hello\r\nworld\0"), -1);
        ListValue l = list(200);
        e.key(0, b("list"), l, 4102444800000L);
        SetValue ints = set("1", "2", "-7", "100");
        e.key(0, b("intset"), ints, -1);
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 150; i++) many.add("m" + i);
        e.key(0, b("set"), set(many.toArray(new String[0])), -1);
        e.key(1, b("hash"), hash(300), -1);
        e.key(1, b("zset"), zset(1.0, "one", -2.5, "two", 1e300, "big", 5e-324, "tiny"), -1);
        e.finish();

        MiniKeyspace loaded = new MiniKeyspace();
        List<String> functions = new ArrayList<>();
        Files.write(dir.resolve("base.aof"), out.toByteArray());
        assertEquals(AofLoadStatus.OK, new AofLoader(new AofLayout(dir, ".", "x"), false, in -> -1L, argv -> {
            if (new String(argv[0], StandardCharsets.US_ASCII).equals("FUNCTION")) {
                functions.add(new String(argv[2], StandardCharsets.ISO_8859_1));
            } else {
                loaded.accept(argv);
            }
        }).loadFile("base.aof", true));

        assertEquals(1, functions.size());
        assertEquals("hello\r\nworld\0", loaded.get(0, "str"));
        List<String> items = new ArrayList<>();
        for (int i = 0; i < 200; i++) items.add("item-" + i);
        assertEquals(items, loaded.get(0, "list"));
        assertEquals(4102444800000L, loaded.expires.get(0).get("list"));
        assertEquals(Set.of("1", "2", "-7", "100"), new java.util.HashSet<>((Set<?>) loaded.get(0, "intset")));
        assertEquals(new LinkedHashSet<>(many).size(), ((Set<?>) loaded.get(0, "set")).size());
        assertEquals(new java.util.HashSet<>(many), new java.util.HashSet<>((Set<?>) loaded.get(0, "set")));
        Map<?, ?> h = (Map<?, ?>) loaded.get(1, "hash");
        assertEquals(300, h.size());
        assertEquals("v299", h.get("f299"));
        Map<?, ?> z = (Map<?, ?>) loaded.get(1, "zset");
        assertEquals(Map.of("one", 1.0, "two", -2.5, "big", 1e300, "tiny", 5e-324), z);
    }

    @Test
    void refusesTypesItDoesNotKnow() {
        AofRewriteEmitter e = new AofRewriteEmitter(new ByteArrayOutputStream());
        assertThrows(IllegalArgumentException.class, () -> e.key(0, b("k"), "a String", -1));
    }

    @Test
    void largeValuesStreamThroughWithoutGrowingTheBuffer() throws IOException {
        long[] written = new long[1];
        int[] largestWrite = new int[1];
        java.io.OutputStream counting = new java.io.OutputStream() {
            @Override
            public void write(int x) {
                written[0]++;
            }

            @Override
            public void write(byte[] buf, int off, int len) {
                written[0] += len;
                largestWrite[0] = Math.max(largestWrite[0], len);
            }
        };
        AofRewriteEmitter e = new AofRewriteEmitter(counting);
        e.key(0, b("l"), list(100_000), -1);
        e.finish();
        assertEquals(true, written[0] > 1_000_000);
        assertEquals(true, largestWrite[0] < 200_000, "flushed in pieces, not held whole");
    }
}
