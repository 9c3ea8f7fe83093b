package io.cinnabar.protocol;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Arrays;

/**
 * Encoding typical replies through {@link RespWriter}, in RESP2 and RESP3. Each operation writes
 * one reply into a writer emptied first, so the buffer never grows; {@link #bulk32Taken} adds
 * the copy that hands a batch's bytes to the connection, as a one-command batch pays it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class RespWriterBenchmark {
    @Param({"2", "3"})
    public int protocol;

    private final RespWriter writer = new RespWriter();
    private final byte[] value32 = filled(32, (byte) 'v');
    private final byte[][] ten = new byte[10][];
    /** redis-benchmark's list: "xxx" over and over, as a list node holds it. */
    private final byte[] node = filled(600 * 8, (byte) 'x');

    @Setup
    public void setUp() {
        writer.protocol(protocol);
        for (int i = 0; i < ten.length; i++) ten[i] = filled(32, (byte) ('a' + i));
    }

    private static byte[] filled(int n, byte b) {
        byte[] a = new byte[n];
        Arrays.fill(a, b);
        return a;
    }

    /** +OK, the pre-encoded constant handlers use. */
    @Benchmark
    public int ok() {
        writer.truncate(0);
        writer.ok();
        return writer.size();
    }

    /** +OK spelled out (CONFIG SET, SELECT... reply through simple()). */
    @Benchmark
    public int simpleString() {
        writer.truncate(0);
        writer.simple("OK");
        return writer.size();
    }

    @Benchmark
    public int bulk32() {
        writer.truncate(0);
        writer.bulk(value32);
        return writer.size();
    }

    @Benchmark
    public byte[] bulk32Taken() {
        writer.bulk(value32);
        return writer.takeBytes();
    }

    @Benchmark
    public int integer() {
        writer.truncate(0);
        writer.integer(1234567);
        return writer.size();
    }

    /** A ZSCORE-like double: a bulk string in RESP2, ",..." in RESP3. */
    @Benchmark
    public int score() {
        writer.truncate(0);
        writer.doubleValue(3.25);
        return writer.size();
    }

    /** An LRANGE-like array of ten 32-byte bulk strings. */
    @Benchmark
    public int array10() {
        writer.truncate(0);
        writer.array(ten.length);
        for (byte[] b : ten) writer.bulk(b);
        return writer.size();
    }

    /** redis-benchmark's LRANGE_600: six hundred 3-byte elements, written out of a list node. */
    @Benchmark
    public int range600() {
        writer.truncate(0);
        writer.array(600);
        for (int i = 0; i < 600; i++) writer.bulk(node, i * 8 + 1, 3);
        return writer.size();
    }
}
