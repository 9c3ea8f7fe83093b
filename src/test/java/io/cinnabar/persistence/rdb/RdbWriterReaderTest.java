package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.persistence.rdb.RdbFormatException.Kind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.cinnabar.persistence.rdb.Values.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RdbWriterReaderTest {
    /** Every type in its compact and its large encoding. */
    static Map<String, Object> everyEncoding() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("string:int", b("-42"));
        v.put("string:long", b("123456789012345678"));
        v.put("string:text", b("hello world, this is longer than twenty bytes"));
        v.put("string:empty", new byte[0]);
        v.put("list:small", Values.list(5, 3));
        v.put("list:nodes", Values.list(3000, 10));
        v.put("list:bigelements", Values.list(6, 9000));
        v.put("set:intset", Values.intSet(1, -5, 70000, 1L << 40));
        v.put("set:hashtable", Values.stringSet(50));
        v.put("set:manyints", Values.intSet(java.util.stream.LongStream.range(0, 600).toArray()));
        v.put("zset:listpack", Values.zset(20, 5));
        v.put("zset:skiplist", Values.zset(300, 5));
        v.put("zset:longmember", Values.zset(3, 200));
        v.put("hash:listpack", Values.hash(30, 10));
        v.put("hash:hashtable", Values.hash(600, 10));
        v.put("hash:longvalue", Values.hash(3, 300));
        return v;
    }

    @Test
    void everyEncodingRoundTripsWithItsEncoding() throws IOException {
        Map<String, Object> values = everyEncoding();
        assertEquals("intset", ((SetValue) values.get("set:intset")).encoding());
        assertEquals("hashtable", ((SetValue) values.get("set:manyints")).encoding());
        assertEquals("skiplist", ((ZSetValue) values.get("zset:longmember")).encoding());
        assertEquals("hashtable", ((HashValue) values.get("hash:longvalue")).encoding());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true);
        w.begin(RdbWriter.standardAux(1, 2, true, 0, "0123456789012345678901234567890123456789", 77));
        int[] dbs = {0, 3, 15};
        for (int db : dbs) {
            w.selectDb(db, values.size(), 1);
            for (Map.Entry<String, Object> e : values.entrySet()) {
                long ttl = e.getKey().equals("hash:listpack") ? 1700000000123L + db : -1;
                w.key(b(e.getKey()), e.getValue(), ttl, e.getKey().startsWith("zset") ? 33 : -1, e.getKey().startsWith("list") ? 7 : -1);
            }
        }
        w.end();
        assertEquals(3L * values.size(), w.keysWritten());
        assertEquals(out.size(), w.bytesWritten());
        Loaded l = Loaded.read(out.toByteArray(), RdbLoadOptions.DEFAULTS);
        assertEquals("1", new String(l.aux.get("aof-base")));
        assertEquals("77", new String(l.aux.get("repl-offset")));
        assertEquals(List.of("redis-ver", "redis-bits", "ctime", "used-mem", "repl-stream-db", "repl-id", "repl-offset", "aof-base"),
                new ArrayList<>(l.aux.keySet()));
        for (int db : dbs) {
            for (Map.Entry<String, Object> e : values.entrySet()) {
                Loaded.Key k = l.get(db, e.getKey());
                assertEquals(Rendered.describe(e.getValue()), Rendered.describe(k.value()), e.getKey());
                assertEquals(e.getKey().equals("hash:listpack") ? 1700000000123L + db : -1, k.expireAtMs());
                assertEquals(e.getKey().startsWith("zset") ? 33 : -1, k.idle());
                assertEquals(e.getKey().startsWith("list") ? 7 : -1, k.freq());
            }
        }
    }

    private static byte[] file(RdbWriterBody body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true);
        w.begin(RdbWriter.standardAux(1, 2, false));
        body.write(w);
        w.end();
        return out.toByteArray();
    }

    interface RdbWriterBody {
        void write(RdbWriter w) throws IOException;
    }

    private static Object reload(Object value, RdbLoadOptions options) throws IOException {
        byte[] f = file(w -> {
            w.selectDb(0, 1, 0);
            w.key(b("k"), value, -1);
        });
        return Loaded.read(f, options).get(0, "k").value();
    }

    @Test
    void loadingAppliesTheConfiguredLimitsAsRedisDoes() throws IOException {
        RdbLoadOptions tight = new RdbLoadOptions(2, 4, 2, 4, 3, -2, 0, false);
        assertEquals("hashtable", ((HashValue) reload(Values.hash(3, 1), tight)).encoding(), "listpack hash over entries");
        // A loaded listpack hash keeps its encoding whatever the value sizes (Redis checks counts only).
        assertEquals("listpack", ((HashValue) reload(Values.hash(2, 10), tight)).encoding());
        assertEquals("listpack", ((HashValue) reload(Values.hash(600, 1), new RdbLoadOptions(1000, 64, 128, 64, 512, -2, 0, false))).encoding(),
                "a hashtable hash small enough loads as listpack");
        assertEquals("hashtable", ((SetValue) reload(Values.intSet(1, 2, 3, 4), tight)).encoding(), "intset over entries");
        assertEquals("intset", ((SetValue) reload(Values.intSet(java.util.stream.LongStream.range(0, 600).toArray()),
                new RdbLoadOptions(512, 64, 128, 64, 1000, -2, 0, false))).encoding(), "hashtable set of integers within entries");
        assertEquals("skiplist", ((ZSetValue) reload(Values.zset(3, 1), tight)).encoding(), "listpack zset over entries");
        assertEquals("skiplist", ((ZSetValue) reload(Values.zset(3, 200), RdbLoadOptions.DEFAULTS)).encoding(),
                "a skiplist with a long member stays a skiplist");
        assertEquals("listpack", ((ZSetValue) reload(Values.zset(300, 1), new RdbLoadOptions(512, 64, 1000, 64, 512, -2, 0, false))).encoding(),
                "a skiplist zset small enough loads as listpack");
    }

    @Test
    void encodedKeysAppendToTheSameBytes() throws IOException {
        Map<String, Object> values = everyEncoding();
        byte[] direct = file(w -> {
            w.selectDb(0, values.size(), 1);
            for (Map.Entry<String, Object> e : values.entrySet()) w.key(b(e.getKey()), e.getValue(), 99, 5, -1);
        });
        AtomicInteger hooks = new AtomicInteger();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true).afterEachKey(hooks::incrementAndGet);
        w.begin(RdbWriter.standardAux(1, 2, false));
        w.selectDb(0, values.size(), 1);
        RdbWriter.KeyEncoder encoder = new RdbWriter.KeyEncoder(true);
        for (Map.Entry<String, Object> e : values.entrySet()) w.encodedKey(encoder.encode(b(e.getKey()), e.getValue(), 99, 5, -1));
        w.end();
        assertArrayEquals(direct, out.toByteArray());
        assertEquals(values.size(), hooks.get());
    }

    @Test
    void aWriterMadeOnOneThreadIsFedFromAnother() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true);
        w.begin(RdbWriter.standardAux(1, 2, false));
        java.util.concurrent.ExecutorService feeder = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            feeder.submit(() -> {
                w.selectDb(0, 2, 0);
                w.key(b("a"), Values.list(100, 5), -1);
                w.key(b("b"), Values.hash(10, 5), -1);
                return null;
            }).get();
        } finally {
            feeder.shutdown();
        }
        w.end();
        assertEquals(2, Loaded.read(out.toByteArray(), RdbLoadOptions.DEFAULTS).keys.size());
    }

    @Test
    void remainderContinuesAfterTheChecksum() throws IOException {
        byte[] rdb = file(w -> {
            w.selectDb(0, 1, 0);
            w.key(b("k"), b("v"), -1);
        });
        byte[] tail = b("*2\r\n$4\r\nPING\r\n$1\r\nx\r\n");
        // Feed it in small reads so the reader's buffer ends up mid-tail.
        InputStream in = new SequenceInputStream(new ByteArrayInputStream(rdb), new ByteArrayInputStream(tail));
        RdbReader r = new RdbReader(in, RdbLoadOptions.DEFAULTS);
        r.read(new Loaded());
        assertEquals(rdb.length, r.bytesRead());
        assertArrayEquals(tail, r.remainder().readAllBytes());
        assertTrue(RdbReader.hasRdbSignature(rdb, rdb.length));
        assertFalse(RdbReader.hasRdbSignature(tail, tail.length));
    }

    @Test
    void headerChecks() throws IOException {
        assertEquals(9, RdbReader.version(b("REDIS0009")));
        assertEquals(Kind.BAD_SIGNATURE, assertThrows(RdbFormatException.class, () -> RdbReader.version(b("RUDIS0009"))).kind());
        RdbFormatException v11 = assertThrows(RdbFormatException.class, () -> RdbReader.version(b("REDIS0011")));
        assertEquals(Kind.UNSUPPORTED_VERSION, v11.kind());
        assertEquals("Can't handle RDB format version 11", v11.reason());
        assertEquals(Kind.UNSUPPORTED_VERSION, assertThrows(RdbFormatException.class, () -> RdbReader.version(b("REDIS0000"))).kind());
        assertEquals(Kind.SHORT_READ, assertThrows(RdbFormatException.class, () -> Loaded.read(b("REDIS"), RdbLoadOptions.DEFAULTS)).kind());
    }

    @Test
    void checksumIsVerifiedUnlessZeroOrDisabled() throws IOException {
        byte[] f = file(w -> {
            w.selectDb(0, 1, 0);
            w.key(b("k"), b("v"), -1);
        });
        byte[] bad = f.clone();
        bad[bad.length - 1] ^= 1;
        RdbFormatException e = assertThrows(RdbFormatException.class, () -> Loaded.read(bad, RdbLoadOptions.DEFAULTS));
        assertEquals(Kind.CHECKSUM, e.kind());
        new RdbReader(new ByteArrayInputStream(bad), RdbLoadOptions.DEFAULTS).verifyChecksum(false).read(new Loaded());
        byte[] zero = f.clone();
        java.util.Arrays.fill(zero, zero.length - 8, zero.length, (byte) 0);
        assertEquals(1, Loaded.read(zero, RdbLoadOptions.DEFAULTS).keys.size());
    }

    /** Hand-made records for opcodes Redis 7.0 no longer writes. */
    private static byte[] raw(String header, RawBody body) throws IOException {
        RdbOutput o = new RdbOutput(false);
        o.write(b(header), 0, header.length());
        body.write(o);
        o.writeByte(RdbType.OPCODE_EOF);
        o.writeLittleEndian(o.crc(), 8);
        return o.toByteArray();
    }

    interface RawBody {
        void write(RdbOutput o) throws IOException;
    }

    @Test
    void oldOpcodesAndTypes() throws IOException {
        byte[] f = raw("REDIS0006", o -> {
            o.writeByte(RdbType.OPCODE_EXPIRETIME);
            o.writeLittleEndian(2000000000L, 4);
            o.writeByte(RdbType.LIST);
            o.writeString(b("old-list"));
            o.writeLength(3);
            for (String s : new String[] {"a", "12", "c"}) o.writeString(b(s));
            o.writeByte(RdbType.ZSET);
            o.writeString(b("old-zset"));
            o.writeLength(3);
            o.writeString(b("x"));
            o.writeByte(3);
            o.write(b("1.5"), 0, 3);
            o.writeString(b("y"));
            o.writeByte(254);
            o.writeString(b("z"));
            o.writeByte(255);
            o.writeByte(RdbType.OPCODE_FUNCTION);
            o.writeString(b("lib"));
            o.writeString(b("LUA"));
            o.writeLength(1);
            o.writeString(b("a description"));
            o.writeString(b("return 1"));
        });
        Loaded l = Loaded.read(f, RdbLoadOptions.DEFAULTS);
        assertEquals(6, l.version);
        assertEquals(2000000000000L, l.get(0, "old-list").expireAtMs());
        assertEquals("list quicklist 61,3132,63", Rendered.describe(l.get(0, "old-list").value()));
        assertEquals("zset listpack 7a,2d696e66,78,312e35,79,696e66", Rendered.describe(l.get(0, "old-zset").value()));
        assertEquals("#!LUA name=lib\nreturn 1", new String(l.functions.get(0)));
    }

    @Test
    void truncatedStreamsAreCorruptAndModulesAreRefusedByName() throws IOException {
        for (int type : new int[] {RdbType.STREAM_LISTPACKS, RdbType.STREAM_LISTPACKS_2}) {
            byte[] f = raw("REDIS0010", o -> {
                o.writeByte(type);
                o.writeString(b("s"));
                o.writeLength(0);
            });
            RdbFormatException e = assertThrows(RdbFormatException.class, () -> Loaded.read(f, RdbLoadOptions.DEFAULTS));
            assertEquals(Kind.CORRUPT, e.kind());
        }
        // "mymodule" with encoding version 3: nine 6-bit characters above the version's 10 bits.
        long id = 0;
        for (char c : "MyModule1".toCharArray()) {
            id = id << 6 | "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(c);
        }
        long moduleId = id << 10 | 3;
        byte[] value = raw("REDIS0010", o -> {
            o.writeByte(RdbType.MODULE_2);
            o.writeString(b("m"));
            o.writeLength(moduleId);
        });
        RdbFormatException e = assertThrows(RdbFormatException.class, () -> Loaded.read(value, RdbLoadOptions.DEFAULTS));
        assertEquals(Kind.UNSUPPORTED_TYPE, e.kind());
        assertTrue(e.reason().contains("'MyModule1'"), e.reason());
        byte[] aux = raw("REDIS0010", o -> {
            o.writeByte(RdbType.OPCODE_MODULE_AUX);
            o.writeLength(moduleId);
        });
        e = assertThrows(RdbFormatException.class, () -> Loaded.read(aux, RdbLoadOptions.DEFAULTS));
        assertTrue(e.reason().contains("AUX module data") && e.reason().contains("'MyModule1'"), e.reason());
    }

    @Test
    void duplicatesInLargeEncodingsAreAlwaysRefused() throws IOException {
        byte[] set = raw("REDIS0010", o -> {
            o.writeByte(RdbType.SET);
            o.writeString(b("s"));
            o.writeLength(2);
            o.writeString(b("a"));
            o.writeString(b("a"));
        });
        assertEquals("Duplicate set members detected", refusal(set));
        assertEquals("Duplicate zset fields detected", refusal(zset2("m", 0, "m", 1)));
        assertEquals("Zset with NAN score detected", refusal(zset2("m", Double.NaN)));
    }

    private static String refusal(byte[] file) {
        return assertThrows(RdbFormatException.class, () -> Loaded.read(file, RdbLoadOptions.DEFAULTS)).reason();
    }

    /** A file with one ZSET_2 value of the given member, score, member, score... */
    private static byte[] zset2(Object... membersAndScores) throws IOException {
        return raw("REDIS0010", o -> {
            o.writeByte(RdbType.ZSET_2);
            o.writeString(b("z"));
            o.writeLength(membersAndScores.length / 2);
            for (int i = 0; i < membersAndScores.length; i += 2) {
                o.writeString(b((String) membersAndScores[i]));
                o.writeBinaryDouble(((Number) membersAndScores[i + 1]).doubleValue());
            }
        });
    }
}
