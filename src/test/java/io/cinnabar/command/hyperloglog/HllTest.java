package io.cinnabar.command.hyperloglog;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HLL codec byte for byte against values read from a real Redis 7.0.15 (GET of the key after the same PFADDs). */
class HllTest {
    private static final long MAX_BYTES = 3000;

    private static Hll add(Hll hll, String... elements) {
        for (String e : elements) hll.add(e.getBytes(StandardCharsets.UTF_8), MAX_BYTES);
        return hll;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private static String[] numbered(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) out[i] = prefix + i;
        return out;
    }

    @Test
    void sparseBytesAreRedis() {
        Hll hll = add(Hll.empty(), "a", "b", "c", "foo", "bar", "1", "2", "3");
        hll.invalidateCache();
        assertEquals("48594c4c0100000000000000000000805cb39040b180438b8046218043c48046c8844a628c419780425a",
                HexFormat.of().formatHex(hll.bytes()));
        assertEquals(8, hll.count());
        assertEquals("Z:7348 v:5,1 Z:178 v:1,1 Z:908 v:1,1 Z:1570 v:1,1 Z:965 v:1,1 Z:1737 v:2,1 Z:2659 v:4,1 Z:408 v:1,1 Z:603",
                hll.decodeSparse());
    }

    @Test
    void emptyIsOneXzeroPerRunOf16384() {
        Hll hll = Hll.empty();
        assertEquals(18, hll.bytes().length);
        assertEquals(Hll.SPARSE, hll.encoding());
        assertEquals("Z:16384", hll.decodeSparse());
        assertEquals(0, hll.count());
    }

    @Test
    void promotesToDenseAtTheSparseLimitAsRedis() throws Exception {
        Hll dense = add(Hll.empty(), numbered("", 5000));
        assertEquals(Hll.DENSE, dense.encoding());
        dense.invalidateCache();
        assertEquals("8082b2e9e81ef22fd929870153cde504a08eade7545b5c16c036daf87e195890", sha256(dense.bytes()));
        assertEquals(4985, dense.count());
        Hll sparse = add(Hll.empty(), numbered("e", 300));
        assertEquals(Hll.SPARSE, sparse.encoding());
        assertEquals(713, sparse.bytes().length);
        assertEquals(302, sparse.count());
        byte[] max = new byte[Hll.REGISTERS];
        assertTrue(dense.mergeInto(max));
        assertTrue(sparse.mergeInto(max));
        assertEquals(5295, Hll.countRaw(max));
    }

    @Test
    void denseAndSparseAgree() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            Hll sparse = Hll.empty(), dense = Hll.empty();
            assertTrue(dense.toDense());
            for (int i = random.nextInt(round % 2 == 0 ? 400 : 1500); i > 0; i--) {
                byte[] e = Long.toString(random.nextLong()).getBytes(StandardCharsets.US_ASCII);
                assertEquals(dense.add(e, MAX_BYTES), sparse.add(e, MAX_BYTES));
            }
            assertEquals(dense.count(), sparse.count());
            assertTrue(sparse.toDense());
            // Only the sparse edits invalidate the cache themselves (as Redis's hllSparseSet); PFADD does it for both.
            dense.invalidateCache();
            sparse.invalidateCache();
            assertArrayEquals(dense.bytes(), sparse.bytes());
        }
    }

    /** The 8-opcode step of the sparse walk against the opcodes' lengths read one by one. */
    @Test
    void eightOneByteOpcodesSpanTheirRunsTogether() {
        Random random = new Random(5);
        int[] kinds = {0x00, 0x40, 0x80, 0xC0}; // ZERO, XZERO, VAL, VAL
        for (int round = 0; round < 200_000; round++) {
            long w = 0;
            int expected = 0;
            boolean xzero = false;
            double xzeroShare = random.nextInt(4) * 0.02;
            for (int i = 0; i < 8; i++) {
                int kind = random.nextDouble() < xzeroShare ? 0x40 : kinds[random.nextInt(4)];
                int op = kind | random.nextInt(64);
                w |= (long) op << (8 * i);
                xzero |= kind == 0x40;
                expected += kind == 0 ? (op & 0x3F) + 1 : (op & 3) + 1;
            }
            assertEquals(xzero ? -1 : expected, Hll.oneByteRunsSpan(w), Long.toHexString(w));
        }
    }

    /** The group-at-a-time dense paths against register-at-a-time reads, on registers from empty to full. */
    @Test
    void denseMergeSetAndCountAgreeWithSingleRegisters() {
        Random random = new Random(11);
        for (int round = 0; round < 40; round++) {
            double filled = random.nextDouble();
            Hll source = Hll.empty();
            assertTrue(source.toDense());
            byte[] registers = new byte[Hll.REGISTERS];
            for (int j = 0; j < Hll.REGISTERS; j++) {
                registers[j] = (byte) (random.nextDouble() < filled ? 1 + random.nextInt(Hll.REGISTER_MAX) : 0);
            }
            source.setDense(registers);
            byte[] max = new byte[Hll.REGISTERS];
            for (int j = 0; j < Hll.REGISTERS; j++) {
                assertEquals(registers[j], source.register(j));
                max[j] = (byte) random.nextInt(Hll.REGISTER_MAX + 1);
            }
            byte[] expected = max.clone();
            for (int j = 0; j < Hll.REGISTERS; j++) expected[j] = (byte) Math.max(expected[j], registers[j]);
            assertTrue(source.mergeInto(max));
            assertArrayEquals(expected, max);
            assertEquals(Hll.countRaw(registers), source.count());
        }
    }

    @Test
    void validity() {
        assertTrue(Hll.isValid(Hll.empty().bytes()));
        assertFalse(Hll.isValid("HYLL".getBytes(StandardCharsets.US_ASCII)), "shorter than the header");
        byte[] v = Hll.empty().bytes();
        v[4] = 2;
        assertFalse(Hll.isValid(v), "unknown encoding");
        v[4] = Hll.DENSE;
        assertFalse(Hll.isValid(v), "dense of the wrong size");
        v[0] = 'X';
        assertFalse(Hll.isValid(v), "magic");
    }

    /** Corrupt sparse data never throws and never reads past the string: each operation answers "corrupt" or a value. */
    @Test
    void corruptSparseDataIsDetectedNeverOverrun() {
        Random random = new Random(11);
        int detected = 0;
        for (int round = 0; round < 2000; round++) {
            byte[] v = add(Hll.empty(), numbered("x" + round, random.nextInt(300))).bytes();
            for (int k = 1 + random.nextInt(4); k > 0; k--) v[Hll.HEADER + random.nextInt(v.length - Hll.HEADER)] = (byte) random.nextInt(256);
            if (random.nextBoolean()) v = java.util.Arrays.copyOf(v, Hll.HEADER + random.nextInt(v.length - Hll.HEADER + 1));
            long count = Hll.of(v).count();
            boolean merged = Hll.of(v).mergeInto(new byte[Hll.REGISTERS]);
            boolean densified = Hll.of(v).toDense();
            assertEquals(count >= 0, merged);
            assertEquals(merged, densified);
            if (count < 0) detected++;
            Hll edited = Hll.of(v);
            for (int i = 0; i < 50; i++) edited.add(("y" + i).getBytes(StandardCharsets.US_ASCII), MAX_BYTES);
            edited.decodeSparse();
        }
        assertTrue(detected > 1000, "most corruptions are detected: " + detected);
    }

    @Test
    void cachedCardinality() {
        Hll hll = add(Hll.empty(), "a", "b");
        assertFalse(hll.cacheValid());
        hll.cacheCardinality(2);
        assertTrue(hll.cacheValid());
        assertEquals(2, hll.cachedCardinality());
        hll.invalidateCache();
        assertFalse(hll.cacheValid());
    }

    @Test
    void murmurHash64AMatchesRedis() {
        // PFADD h a; PFDEBUG DECODE h in Redis: "Z:12711 v:2,1 Z:3672".
        int pattern = Hll.patternOf("a".getBytes(StandardCharsets.US_ASCII));
        assertEquals(12711, pattern & 0xFFFF);
        assertEquals(2, pattern >>> 16);
    }

    @Test
    void selfTestPasses() {
        assertNull(SelfTest.run(MAX_BYTES, new Random(3)));
    }
}
