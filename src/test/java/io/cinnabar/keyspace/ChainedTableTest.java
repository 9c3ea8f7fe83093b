package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table under sets and hashes (BytesSet, BytesMap), against java.util's, through growing and shrinking resizes. */
class ChainedTableTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void setMatchesAModelThroughResizesBothWays() {
        BytesSet set = new BytesSet();
        Set<String> model = new HashSet<>();
        Random rnd = new Random(7);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 20_000; i++) {
                String m = "m" + rnd.nextInt(30_000);
                assertEquals(model.add(m), set.add(b(m)), m);
            }
            for (int i = 0; i < 25_000; i++) {
                String m = "m" + rnd.nextInt(30_000);
                assertEquals(model.remove(m), set.remove(b(m)), m);
            }
            assertEquals(model.size(), set.size());
            Set<String> scanned = new HashSet<>();
            long cursor = 0;
            do {
                cursor = set.scan(cursor, k -> scanned.add(new String(k, StandardCharsets.UTF_8)));
            } while (cursor != 0);
            assertEquals(model, scanned);
        }
    }

    @Test
    void mapRandomPicksAreUniformWhileAResizeRuns() {
        BytesMap<String> map = new BytesMap<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < 20; i++) map.put(b("f" + i), "v" + i);
        for (int i = 0; i < 20_000; i++) seen.merge(new String(map.randomNode().key(), StandardCharsets.UTF_8), 1, Integer::sum);
        double chi = 0;
        for (int n : seen.values()) chi += (n - 1000.0) * (n - 1000.0) / 1000.0;
        assertEquals(20, seen.size());
        assertTrue(chi < 60, "chi-square " + chi); // 19 degrees of freedom: 60 is far past p = 0.001
        for (int i = 0; i < 20; i++) assertEquals("v" + i, map.get(b("f" + i)));
    }

    /** The hash reads 4 bytes at a time; its values must stay murmur3's as read byte by byte (SCAN and iteration orders). */
    @Test
    void hashIsMurmur3ReadByteByByte() {
        Random random = new Random(7);
        assertEquals(murmur3(new byte[0]), ChainedTable.hash(new byte[0]));
        for (int len = 0; len <= 40; len++) {
            for (int round = 0; round < 50; round++) {
                byte[] key = new byte[len];
                random.nextBytes(key);
                assertEquals(murmur3(key), ChainedTable.hash(key), "length " + len);
            }
        }
    }

    private static int murmur3(byte[] key) {
        int h = 0x9747b28c ^ key.length, i = 0, n = key.length;
        for (; i + 4 <= n; i += 4) {
            int k = (key[i] & 0xff) | (key[i + 1] & 0xff) << 8 | (key[i + 2] & 0xff) << 16 | key[i + 3] << 24;
            h ^= Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
            h = Integer.rotateLeft(h, 13) * 5 + 0xe6546b64;
        }
        int k = 0;
        for (int j = n - i - 1; j >= 0; j--) k ^= (key[i + j] & 0xff) << (8 * j);
        if (n > i) h ^= Integer.rotateLeft(k * 0xcc9e2d51, 15) * 0x1b873593;
        h ^= n;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }
}
