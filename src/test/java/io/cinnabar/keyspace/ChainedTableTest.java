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
}
