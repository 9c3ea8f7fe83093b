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
