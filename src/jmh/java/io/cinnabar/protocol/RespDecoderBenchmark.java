package io.cinnabar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link RespDecoder}'s state machine alone: one read's worth of pipelined requests, decoded as
 * Netty hands them over, without the channel pipeline around it. Scores are per request. This
 * class sits in the decoder's package because {@code decode} is protected.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class RespDecoderBenchmark {
    private static final int PIPELINE = 100;

    private final RespDecoder decoder = new RespDecoder(() -> 512L * 1024 * 1024, () -> false);
    private final List<Object> out = new ArrayList<>(PIPELINE);
    private ByteBuf sets;
    private ByteBuf gets;
    private ByteBuf msets;

    @Setup
    public void setUp() {
        StringBuilder set = new StringBuilder();
        StringBuilder get = new StringBuilder();
        StringBuilder mset = new StringBuilder();
        String value = "v".repeat(32);
        for (int i = 0; i < PIPELINE; i++) {
            String key = String.format("key:%06d", i + 100);
            set.append(command("SET", key, value));
            get.append(command("GET", key));
            // redis-benchmark's MSET: ten 16-byte keys, each with its 3-byte value.
            String[] pairs = new String[21];
            pairs[0] = "MSET";
            for (int j = 0; j < 10; j++) {
                pairs[1 + 2 * j] = String.format("key:%012d", i * 10 + j);
                pairs[2 + 2 * j] = "xxx";
            }
            mset.append(command(pairs));
        }
        // Direct, as the buffers Netty reads sockets into.
        sets = direct(set.toString());
        gets = direct(get.toString());
        msets = direct(mset.toString());
    }

    private static String command(String... args) {
        StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        return b.toString();
    }

    private static ByteBuf direct(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    }

    /** 100 pipelined {@code SET key:000123 <32-byte value>}. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public List<Object> pipelinedSet() {
        return decodeAll(sets);
    }

    /** 100 pipelined {@code GET key:000123}. */
    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public List<Object> pipelinedGet() {
        return decodeAll(gets);
    }

    /** 100 pipelined MSETs of ten pairs (redis-benchmark's MSET test). */
    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public List<Object> pipelinedMset() {
        return decodeAll(msets);
    }

    private List<Object> decodeAll(ByteBuf in) {
        out.clear();
        in.readerIndex(0);
        // The context is only used to close a client past the query buffer limit.
        decoder.decode(null, in, out);
        if (out.size() != PIPELINE) throw new IllegalStateException("decoded " + out.size());
        return out;
    }
}
