package io.cinnabar.command;

import io.cinnabar.config.Config;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One command per family run as a client's one-request batch: Dispatcher checks, handler,
 * keyspace, reply encoding and the hand-over of the reply bytes, without decoding or sockets.
 * Scores are per command. Each case is a cycle of commands that leaves the data as it found it
 * (LPUSH then LPOP; ZADD moves a member to another score and back), so scores do not drift.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class CommandBenchmark {
    private static final int STRING_KEYS = 10_000;
    private static final int MEMBERS = 1_000;
    private static final String VALUE = "v".repeat(32);
    /** A string key with a TTL, for EXPIRE and TTL (SET would drop it). */
    private static final String VOLATILE_KEY = "key:000124";

    /** The command (or cycle of commands, split by '|') under test. */
    @Param({"SET", "GET", "INCR", "LPUSH|LPOP", "HSET", "HGET", "SADD", "SISMEMBER", "ZADD", "ZSCORE", "EXPIRE", "TTL", "LRANGE"})
    public String command;

    private final LastReplyChannel channel = new LastReplyChannel();
    private Dispatcher dispatcher;
    private Client client;
    private List<List<byte[][]>> cycle;
    private int next;

    @Setup
    public void setUp() {
        ServerContext server = new ServerContext(new Config(), CommandTable.standard(), new KeyspaceThread("jmh-keyspace"));
        dispatcher = new Dispatcher(server);
        client = new Client(server.nextClientId(), channel, true);
        server.addClient(client);

        for (int i = 0; i < STRING_KEYS; i++) run("SET", String.format("key:%06d", i), VALUE);
        run("EXPIRE", VOLATILE_KEY, "100000");
        run("SET", "counter", "0");
        for (int i = 0; i < 100; i++) {
            run("RPUSH", "list", VALUE);
            run("HSET", "hash", "field:" + i, VALUE); // 100 fields: the listpack encoding
        }
        for (int i = 0; i < 600; i++) run("RPUSH", "mylist", "xxx"); // redis-benchmark's LRANGE_600
        for (int i = 0; i < MEMBERS; i++) {
            run("SADD", "set", "member:" + i); // past 128 members: the hashtable encoding
            run("ZADD", "zset", Integer.toString(i), "member:" + i); // past 128: the skiplist
        }

        cycle = new ArrayList<>();
        for (String name : command.split("\\|")) cycle.addAll(requests(name));
        for (List<byte[][]> batch : cycle) {
            byte[] reply = execute(batch);
            if (reply.length == 0 || reply[0] == '-') {
                throw new IllegalStateException(command + " replied " + new String(reply, StandardCharsets.UTF_8));
            }
        }
    }

    /** The requests one case cycles through. */
    private static List<List<byte[][]>> requests(String name) {
        switch (name) {
            case "SET": return List.of(request("SET", "key:000123", VALUE));
            case "GET": return List.of(request("GET", "key:000123"));
            case "INCR": return List.of(request("INCR", "counter"));
            case "LPUSH": return List.of(request("LPUSH", "list", VALUE));
            case "LPOP": return List.of(request("LPOP", "list"));
            // Overwrites a field with the same value, as a cache refresh does.
            case "HSET": return List.of(request("HSET", "hash", "field:42", VALUE));
            case "HGET": return List.of(request("HGET", "hash", "field:42"));
            // Re-adds a member (reply 0): the table's insert path is in KeyspaceTableBenchmark.
            case "SADD": return List.of(request("SADD", "set", "member:500"));
            case "SISMEMBER": return List.of(request("SISMEMBER", "set", "member:500"));
            case "ZADD": return List.of(request("ZADD", "zset", "1500.5", "member:500"),
                    request("ZADD", "zset", "500", "member:500"));
            case "ZSCORE": return List.of(request("ZSCORE", "zset", "member:500"));
            case "EXPIRE": return List.of(request("EXPIRE", VOLATILE_KEY, "1000"));
            case "TTL": return List.of(request("TTL", VOLATILE_KEY));
            case "LRANGE": return List.of(request("LRANGE", "mylist", "0", "599"));
            default: throw new IllegalArgumentException(name);
        }
    }

    private static List<byte[][]> request(String... args) {
        byte[][] argv = new byte[args.length][];
        for (int i = 0; i < args.length; i++) argv[i] = args[i].getBytes(StandardCharsets.UTF_8);
        return List.<byte[][]>of(argv);
    }

    private void run(String... args) {
        execute(request(args));
    }

    /** Runs one batch and returns what the client was sent. */
    private byte[] execute(List<byte[][]> batch) {
        dispatcher.executeBatch(client, batch);
        return channel.last();
    }

    @Benchmark
    public byte[] execute() {
        List<byte[][]> batch = cycle.get(next);
        if (++next == cycle.size()) next = 0;
        return execute(batch);
    }
}
