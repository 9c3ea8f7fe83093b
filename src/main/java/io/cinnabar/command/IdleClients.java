package io.cinnabar.command;

import io.cinnabar.config.ConfigOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * The "timeout" option, as Redis's clientsCronHandleTimeout: a client idle for more than that
 * many seconds is closed by the cron, unless it is a monitor, blocked (BLPOP & co., or held by
 * CLIENT PAUSE) or subscribed to pub/sub, which wait for the server by design.
 */
final class IdleClients {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(IdleClients.class);

    private IdleClients() {}

    /** Keyspace thread, once per cron tick. */
    static void closeIdle(ServerContext server, long nowMs) {
        long maxIdleSeconds = server.config().getLong(ConfigOptions.TIMEOUT);
        if (maxIdleSeconds == 0) return;
        List<Client> idle = null;
        for (Client c : server.clients()) {
            // Replicas and the master are timed out by repl-timeout instead (Redis skips CLIENT_SLAVE and CLIENT_MASTER).
            if (c.monitor || c.waiting() || c.subscribed() || c.leaving()
                    || (c.replicaFlags() & (ReplicaFlags.SYNCING | ReplicaFlags.MASTER)) != 0) continue;
            // Redis compares whole seconds (unixtime - lastinteraction).
            if (nowMs / 1000 - c.lastInteractionMs / 1000 <= maxIdleSeconds) continue;
            if (idle == null) idle = new ArrayList<>();
            idle.add(c);
        }
        if (idle == null) return;
        for (Client c : idle) {
            log.debug("Closing idle client");
            c.kill();
        }
    }
}
