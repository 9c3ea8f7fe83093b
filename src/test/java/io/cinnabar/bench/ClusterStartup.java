package io.cinnabar.bench;

import io.cinnabar.CinnabarCluster;
import redis.clients.jedis.Jedis;

import java.util.Arrays;

/**
 * Measures how long an in-JVM cluster of N masters takes from builder to every node answering
 * CLUSTER INFO, and to close, over R starts in one JVM (the first ones warm it). Run by
 * scripts/cluster-startup.sh; not a test. With --hold it starts one cluster, prints its ports
 * and waits (for poking at it with redis-cli).
 */
public final class ClusterStartup {
    private ClusterStartup() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--hold")) {
            CinnabarCluster cluster = CinnabarCluster.builder().masters(3).start();
            for (int i = 0; i < cluster.size(); i++) System.out.println("node " + i + " port " + cluster.node(i).port());
            Thread.sleep(Long.MAX_VALUE);
        }
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int masters = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        double[] start = new double[runs];
        double[] stop = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            CinnabarCluster cluster = CinnabarCluster.builder().masters(masters).start();
            for (int n = 0; n < masters; n++) {
                try (Jedis j = new Jedis("127.0.0.1", cluster.node(n).port())) {
                    if (!j.clusterInfo().startsWith("cluster_state:ok")) throw new IllegalStateException("cluster not ok");
                }
            }
            long t1 = System.nanoTime();
            cluster.close();
            long t2 = System.nanoTime();
            start[i] = (t1 - t0) / 1e6;
            stop[i] = (t2 - t1) / 1e6;
        }
        System.out.printf("masters=%d runs=%d first_start_ms=%.1f%n", masters, runs, start[0]);
        // The warm JVM: the second half of the runs.
        double[] warm = Arrays.copyOfRange(start, runs / 2, runs);
        Arrays.sort(warm);
        Arrays.sort(stop);
        System.out.printf("warm start_to_cluster_ok_ms median=%.1f min=%.1f max=%.1f (target <= 50)%n",
                warm[warm.length / 2], warm[0], warm[warm.length - 1]);
        System.out.printf("close_ms                     median=%.1f min=%.1f max=%.1f%n", stop[runs / 2], stop[0], stop[runs - 1]);
    }
}
