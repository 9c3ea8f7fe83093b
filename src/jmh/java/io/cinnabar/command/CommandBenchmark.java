package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.protocol.Request;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One command per family run as a client's one-request batch: Dispatcher checks, handler,
 * keyspace, reply encoding and the hand-over of the reply bytes, without decoding or sockets.
 * Every benchmark leaves the data as it found it (LPUSH is paired with LPOP, ZADD flips a score
 * back and forth), so scores do not drift with iteration count.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class CommandBenchmark {
    private static final int STRING_KEYS = 10_000;
    private static final int MEMBERS = 1_000;
    private static final String VALUE = "v".repeat(32);

    private final LastReplyChannel channel = new LastReplyChannel();
    private Dispatcher dispatcher;
    private Client client;

    private List<Request> set, get, incr, lpush, lpop, hset, hget, sadd, sismember, expire, ttl;
    private List<Request> zaddLow, zaddHigh, zscore;
    private boolean zHigh;

    @Setup
    public void setUp() {
        ServerContext server = new ServerContext(new Config(), CommandTable.standard(), new KeyspaceThread("jmh-keyspace"));
        dispatcher = new Dispatcher(server);
        client = new Client(server.nextClientId(), channel, true);
        server.addClient(client);

        for (int i = 0; i < STRING_KEYS; i++) run("SET", String.format("key:%06d", i), VALUE);
        run("SET", "counter", "0");
        for (int i = 0; i < 100; i++) {
            run("RPUSH", "list", VALUE);
            run("HSET", "hash", "field:" + i, VALUE); // 100 fields: the listpack encoding
        }
        for (int i = 0; i < MEMBERS; i++) {
            run("SADD", "set", "member:" + i); // past 128: the hashtable encoding
            run("ZADD", "zset", Integer.toString(i), "member:" + i); // the skiplist encoding
        }

        set = request("SET", "key:000123", VALUE);
        get = request("GET", "key:000123");
        incr = request("INCR", "counter");
        lpush = request("LPUSH", "list", VALUE);
        lpop = request("LPOP", "list");
        hset = request("HSET", "hash", "field:42", VALUE);
        hget = request("HGET", "hash", "field:42");
        sadd = request("SADD", "set", "member:500");
        sismember = request("SISMEMBER", "set", "member:500");
        zaddLow = request("ZADD", "zset", "500", "member:500");
        zaddHigh = request("ZADD", "zset", "1500.5", "member:500");
        zscore = request("ZSCORE", "zset", "member:500");
        expire = request("EXPIRE", "key:000123", "1000");
        ttl = request("TTL", "key:000123");
        for (List<Request> r : List.of(set, get, incr, lpush, lpop, hset, hget, sadd, sismember, zaddHigh, zaddLow,
                zscore, expire, ttl)) {
            execute(r);
            if (channel.last().length == 0 || channel.last()[0] == '-') {
                throw new IllegalStateException(new String(r.get(0).args[0], StandardCharsets.US_ASCII)
                        + " replied " + new String(channel.last(), StandardCharsets.UTF_8));
            }
        }
    }

    private static List<Request> request(String... args) {
        byte[][] argv = new byte[args.length][];
        for (int i = 0; i < args.length; i++) argv[i] = args[i].getBytes(StandardCharsets.UTF_8);
        return List.of(Request.of(argv));
    }

    private void run(String... args) {
        execute(request(args));
    }

    /** Runs one batch and returns what the client was sent. */
    private byte[] execute(List<Request> batch) {
        dispatcher.executeBatch(client, batch);
        return channel.last();
    }

    @Benchmark
    public byte[] set() {
        return execute(set);
    }

    @Benchmark
    public byte[] get() {
        return execute(get);
    }

    @Benchmark
    public byte[] incr() {
        return execute(incr);
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public byte[] lpushLpop() {
        execute(lpush);
        return execute(lpop);
    }

    /** Overwrites an existing field with the same value, as a cache refresh does. */
    @Benchmark
    public byte[] hset() {
        return execute(hset);
    }

    @Benchmark
    public byte[] hget() {
        return execute(hget);
    }

    /** Re-adds a member (reply 0): the insert path itself is in KeyspaceTableBenchmark. */
    @Benchmark
    public byte[] sadd() {
        return execute(sadd);
    }

    @Benchmark
    public byte[] sismember() {
        return execute(sismember);
    }

    /** Moves a member between two scores, so each call re-links it in the skiplist. */
    @Benchmark
    public byte[] zadd() {
        zHigh = !zHigh;
        return execute(zHigh ? zaddHigh : zaddLow);
    }

    @Benchmark
    public byte[] zscore() {
        return execute(zscore);
    }

    @Benchmark
    public byte[] expire() {
        return execute(expire);
    }

    @Benchmark
    public byte[] ttl() {
        return execute(ttl);
    }
}
