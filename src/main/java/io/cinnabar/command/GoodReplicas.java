package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;

/**
 * min-replicas-to-write as Redis's checkGoodReplicasStatus applies it: writes are refused while
 * fewer replicas than that are online with an acknowledgement no older than min-replicas-max-lag
 * seconds (counted by the server's {@link ReplicaLinks}).
 */
public final class GoodReplicas {
    public static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";
    private static final ConfigOption TO_WRITE = Config.option("min-replicas-to-write");
    private static final ConfigOption MAX_LAG = Config.option("min-replicas-max-lag");

    private GoodReplicas() {}

    public static boolean enough(ServerContext server) {
        // A replica does not count replicas of its own, as Redis's checkGoodReplicasStatus.
        if (server.masterLink().host() != null || !inForce(server.config())) return true;
        return count(server) >= server.config().getLong(TO_WRITE);
    }

    /** INFO's min_slaves_good_slaves. */
    public static int count(ServerContext server) {
        ReplicaLinks replicas = server.component(ReplicaLinks.class, null);
        return replicas == null ? 0 : replicas.goodReplicas(server.config().getLong(MAX_LAG));
    }

    /** Both settings positive: writes need good replicas, and INFO counts them (min_slaves_good_slaves). */
    public static boolean inForce(Config config) {
        return config.getLong(TO_WRITE) != 0 && config.getLong(MAX_LAG) != 0;
    }
}
