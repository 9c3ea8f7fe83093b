package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class RdbRoundTripTest {
    /** Where the files written here are left for RedisCheckRdbIT (and for a look by hand). */
    static final Path OUT = Path.of("target", "rdb-out");

    static void assertSameContent(Loaded expected, Loaded actual) {
        assertEquals(expected.keys.keySet(), actual.keys.keySet());
        for (Loaded.Key e : expected.keys.values()) {
            Loaded.Key a = actual.keys.get(e.id());
            String key = new String(e.key(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertEquals(Rendered.describe(e.value()), Rendered.describe(a.value()), key);
            assertEquals(e.expireAtMs(), a.expireAtMs(), key);
            assertEquals(e.idle(), a.idle(), key);
            assertEquals(e.freq(), a.freq(), key);
        }
        assertEquals(expected.functions.size(), actual.functions.size());
        for (int i = 0; i < expected.functions.size(); i++) {
            assertEquals(new String(expected.functions.get(i)), new String(actual.functions.get(i)));
        }
    }

    @Test
    void redisFileRewrittenByUsReadsTheSame() throws IOException {
        Loaded redis = Loaded.read(RedisFilesTest.resource("redis-7.0.15-all-types.rdb"), RdbLoadOptions.DEFAULTS);
        for (boolean compression : new boolean[] {true, false}) {
            for (boolean checksum : new boolean[] {true, false}) {
                byte[] ours = Rewrite.write(redis, compression, checksum);
                if (!checksum) assertArrayEquals(new byte[8], Arrays.copyOfRange(ours, ours.length - 8, ours.length));
                assertSameContent(redis, Loaded.read(ours, RdbLoadOptions.DEFAULTS));
                Files.createDirectories(OUT);
                Files.write(OUT.resolve("all-types" + (compression ? "" : "-uncompressed")
                        + (checksum ? "" : "-nochecksum") + ".rdb"), ours);
            }
        }
    }

    @Test
    void dumpPayloadsOfEveryKeyRestore() throws IOException {
        Loaded redis = Loaded.read(RedisFilesTest.resource("redis-7.0.15-all-types.rdb"), RdbLoadOptions.DEFAULTS);
        StringBuilder dumps = new StringBuilder();
        for (Loaded.Key k : redis.keys.values()) {
            if (k.db() != 0) continue;
            byte[] payload = DumpPayload.create(k.value(), true);
            Object back = DumpPayload.restore(payload, RdbLoadOptions.DEFAULTS.withDeepSanitize(true), true);
            assertEquals(Rendered.describe(k.value()), Rendered.describe(back));
            dumps.append(java.util.HexFormat.of().formatHex(k.key())).append('\t')
                    .append(java.util.HexFormat.of().formatHex(payload)).append('\n');
        }
        Files.createDirectories(OUT);
        Files.writeString(OUT.resolve("all-types.dumps"), dumps);
    }

    /**
     * Values built through the keyspace API (not read from Redis), written with a TTL in several
     * databases, with the description of what a loader must see beside them (the .expected
     * format of the Redis fixtures), for loading into a real Redis by hand.
     */
    @Test
    void everyEncodingFileWithItsExpectation() throws IOException {
        java.util.Map<String, Object> values = RdbWriterReaderTest.everyEncoding();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true);
        w.begin(RdbWriter.standardAux(1700000000L, 1 << 20, false));
        StringBuilder expected = new StringBuilder();
        for (int db : new int[] {0, 2, 9}) {
            w.selectDb(db, values.size(), 1);
            for (java.util.Map.Entry<String, Object> e : values.entrySet()) {
                byte[] key = (e.getKey() + "@" + db).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
                long ttl = e.getKey().equals("zset:skiplist") ? 4102444800000L + db : -1;
                w.key(key, e.getValue(), ttl);
                expected.append(db).append('\t').append(java.util.HexFormat.of().formatHex(key)).append('\t')
                        .append(Rendered.type(e.getValue())).append('\t').append(Rendered.encoding(e.getValue()))
                        .append('\t').append(ttl).append('\t').append(Rendered.itemsText(e.getValue())).append('\n');
            }
        }
        w.end();
        Loaded back = Loaded.read(out.toByteArray(), RdbLoadOptions.DEFAULTS);
        assertEquals(3 * values.size(), back.keys.size());
        Files.createDirectories(OUT);
        Files.write(OUT.resolve("every-encoding.rdb"), out.toByteArray());
        Files.writeString(OUT.resolve("every-encoding.expected"), expected);
    }

    @Test
    void evictionDataRoundTrips() throws IOException {
        for (String name : new String[] {"redis-7.0.15-lfu.rdb", "redis-7.0.15-lru.rdb"}) {
            Loaded redis = Loaded.read(RedisFilesTest.resource(name), RdbLoadOptions.DEFAULTS);
            byte[] ours = Rewrite.write(redis, true, true);
            assertSameContent(redis, Loaded.read(ours, RdbLoadOptions.DEFAULTS));
            Files.createDirectories(OUT);
            Files.write(OUT.resolve(name.replace("redis-7.0.15-", "")), ours);
        }
    }

    @Test
    void compressionShrinksRepetitiveData() throws IOException {
        Loaded redis = Loaded.read(RedisFilesTest.resource("redis-7.0.15-all-types.rdb"), RdbLoadOptions.DEFAULTS);
        byte[] compressed = Rewrite.write(redis, true, true);
        byte[] plain = Rewrite.write(redis, false, true);
        assertFalse(compressed.length * 2 > plain.length, compressed.length + " vs " + plain.length);
    }
}
