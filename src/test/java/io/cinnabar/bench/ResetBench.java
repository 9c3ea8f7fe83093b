package io.cinnabar.bench;

import io.cinnabar.CinnabarServer;
import io.cinnabar.command.testing.DataSnapshot;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.util.Arrays;
import java.util.Map;

/**
 * How long the test controls take with small and larger data sets: server.reset() with N keys
 * present, server.snapshot() of N keys and server.restore() of them, each as a test calls it
 * (from the test's thread, so the hop to the keyspace thread counts). Keys are a mix of strings,
 * hashes, lists, sets and sorted sets of a few members each, a tenth with a TTL. Run by
 * scripts/reset-bench.sh; prints, asserts nothing.
 */
public final class ResetBench {
    private ResetBench() {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        System.out.printf("%-8s %-10s %10s %10s %10s%n", "keys", "operation", "median_us", "p90_us", "max_us");
        try (CinnabarServer server = CinnabarServer.builder().port(0).build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            for (int keys : new int[] {1_000, 100_000}) {
                int n = keys >= 100_000 ? Math.max(5, runs / 20) : runs;
                load(jedis, keys);
                DataSnapshot fixture = server.snapshot();
                double[] snapshot = new double[n];
                double[] restore = new double[n];
                double[] reset = new double[n];
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    DataSnapshot s = server.snapshot();
                    long t1 = System.nanoTime();
                    server.restore(fixture);
                    long t2 = System.nanoTime();
                    server.reset();
                    long t3 = System.nanoTime();
                    if (s.keyCount() != keys || jedis.dbSize() != 0) throw new IllegalStateException("unexpected key counts");
                    server.restore(fixture);
                    snapshot[i] = (t1 - t0) / 1e3;
                    restore[i] = (t2 - t1) / 1e3;
                    reset[i] = (t3 - t2) / 1e3;
                }
                print(keys, "reset", reset);
                print(keys, "snapshot", snapshot);
                print(keys, "restore", restore);
                server.reset();
            }
        }
    }

    private static void load(Jedis jedis, int keys) {
        Pipeline p = jedis.pipelined();
        for (int i = 0; i < keys; i++) {
            String k = "key:" + i;
            switch (i % 5) {
                case 0 -> p.set(k, "value-" + i);
                case 1 -> p.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
                case 2 -> p.rpush(k, "x", "y", "z");
                case 3 -> p.sadd(k, "1", "2", "3");
                default -> p.zadd(k, Map.of("m1", 1.0, "m2", 2.0));
            }
            if (i % 10 == 0) p.expire(k, 3600);
        }
        p.sync();
    }

    private static void print(int keys, String what, double[] micros) {
        double[] s = micros.clone();
        Arrays.sort(s);
        System.out.printf("%-8d %-10s %10.1f %10.1f %10.1f%n", keys, what, s[s.length / 2], s[(int) (s.length * 0.9)], s[s.length - 1]);
    }
}
