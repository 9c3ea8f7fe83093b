package io.cinnabar.command.hyperloglog;

import java.util.Random;

/** PFSELFTEST's checks (Redis's pfselftestCommand), apart from the command so the unit tests can run them. */
final class SelfTest {
    private static final int CYCLES = 1000;

    private SelfTest() {}

    /** Null when every check passes, else what failed (after "TESTFAILED "). */
    static String run(long sparseMaxBytes, Random random) {
        String failure = registers(random);
        return failure != null ? failure : estimates(sparseMaxBytes, random);
    }

    /** Setting random 6-bit registers keeps each value and leaves its neighbours alone. */
    private static String registers(Random random) {
        byte[] dense = new byte[Hll.DENSE_SIZE];
        int[] expected = new int[Hll.REGISTERS];
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            for (int i = 0; i < Hll.REGISTERS; i++) {
                expected[i] = random.nextInt(Hll.REGISTER_MAX + 1);
                Hll.denseSet(dense, Hll.HEADER, dense.length, i, expected[i]);
            }
            for (int i = 0; i < Hll.REGISTERS; i++) {
                int v = Hll.denseGet(dense, Hll.HEADER, dense.length, i);
                if (v != expected[i]) return "Register " + i + " should be " + expected[i] + " but is " + v;
            }
        }
        return null;
    }

    /**
     * Adds 10 million distinct elements to a dense and to a sparse HLL: at each power of ten the
     * two agree, the sparse one is still sparse while small, and the error is within 6 standard errors.
     */
    private static String estimates(long sparseMaxBytes, Random random) {
        Hll dense = Hll.empty();
        dense.toDense();
        Hll hll = Hll.empty();
        double relerr = 1.04 / Math.sqrt(Hll.REGISTERS);
        long checkpoint = 1, seed = random.nextLong();
        byte[] ele = new byte[8];
        for (long j = 1; j <= 10_000_000; j++) {
            long v = j ^ seed;
            for (int k = 0; k < 8; k++) ele[k] = (byte) (v >>> (8 * k));
            dense.add(ele, sparseMaxBytes);
            hll.add(ele, sparseMaxBytes);
            if (j != checkpoint) continue;
            if (j < sparseMaxBytes / 2 && hll.encoding() != Hll.SPARSE) return "sparse encoding not used";
            long card = dense.count();
            if (card != hll.count()) return "dense/sparse disagree";
            long maxErr = j == 10 ? 1 : (long) Math.ceil(relerr * 6 * checkpoint);
            if (Math.abs(checkpoint - card) > maxErr) return "Too big error. card:" + checkpoint + " abserr:" + Math.abs(checkpoint - card);
            checkpoint *= 10;
        }
        return null;
    }
}
