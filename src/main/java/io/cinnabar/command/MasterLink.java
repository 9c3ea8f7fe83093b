package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;

/**
 * The master REPLICAOF names. Cinnabar cannot sync from a master yet, so while one is set this
 * server is what Redis is while its master cannot be reached: a replica whose link is down. It
 * says so in ROLE and INFO, refuses writes with READONLY under replica-read-only, and serves what
 * it holds; REPLICAOF NO ONE makes it a master again. Keyspace thread.
 */
public final class MasterLink {
    public static final String READONLY = "READONLY You can't write against a read only replica.";
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MasterLink.class);
    private static final ConfigOption READ_ONLY = Config.option("replica-read-only");
    private static final ConfigOption REPLICAOF = Config.option("replicaof");

    private final Config config;
    private String host;
    private int port;

    /** Follows the configuration's replicaof ("host port", or "" for none) from the start. */
    MasterLink(Config config) {
        this.config = config;
        String[] hostPort = config.getString(REPLICAOF).split(" ");
        if (hostPort.length == 2) {
            host = hostPort[0];
            port = Integer.parseInt(hostPort[1]);
            warnNoSync();
        }
    }

    /** The master's host, or null while this server is a master. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Said once per master: what Redis would do next (connect, sync) does not happen here. */
    public void warnNoSync() {
        log.warn("Cinnabar cannot sync from a master yet: the link to {}:{} stays down, and this replica serves only "
                + "what it holds (writes are refused while replica-read-only is yes)", host, port);
    }

    /** REPLICAOF host port; CONFIG GET replicaof (and CONFIG REWRITE) show it, as Redis's do. */
    public void follow(String host, int port) {
        this.host = host;
        this.port = port;
        remember(new String[] {host, Integer.toString(port)});
    }

    public void drop() {
        host = null;
        remember(new String[] {"no", "one"});
    }

    private void remember(String[] replicaof) {
        try {
            config.set(REPLICAOF, replicaof);
        } catch (io.cinnabar.config.ConfigException e) {
            throw new IllegalStateException(e); // a port REPLICAOF accepted always parses
        }
    }

    /** Redis's "server.masterhost && server.repl_slave_ro" (obeying the master, which never comes, aside). */
    public static boolean refusesWrites(ServerContext server) {
        return server.masterLink().host != null && server.config().getBool(READ_ONLY);
    }
}
