package io.cinnabar.command.keys;

import io.cinnabar.command.ServerContext;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * MIGRATE's connections to its targets, kept for the next MIGRATE to the same host:port as
 * Redis's migrate_cached_sockets: at most 64, each closed once unused for 10 seconds of the
 * server's clock (a test's clock drives that too). Keyspace thread only.
 */
public final class MigrateSockets implements AutoCloseable {
    /** Redis's MIGRATE_SOCKET_CACHE_ITEMS and MIGRATE_SOCKET_CACHE_TTL. */
    private static final int MAX_ITEMS = 64;
    private static final long TTL_MS = 10_000;

    /** A cached connection and the database its last successful MIGRATE selected (-1: none known). */
    static final class Cached {
        final String name;
        final SyncConnection conn;
        long lastDbid = -1;
        long lastUseMs;

        Cached(String name, SyncConnection conn) {
            this.name = name;
            this.conn = conn;
        }
    }

    private final ServerContext server;
    private final Map<String, Cached> byName = new HashMap<>();

    MigrateSockets(ServerContext server) {
        this.server = server;
    }

    /** The server's cache, created on first use. */
    static MigrateSockets of(ServerContext server) {
        return server.component(MigrateSockets.class, () -> new MigrateSockets(server));
    }

    /** INFO's migrate_cached_sockets. */
    public static int count(ServerContext server) {
        MigrateSockets s = server.component(MigrateSockets.class, null);
        return s == null ? 0 : s.byName.size();
    }

    /**
     * The cached connection to host:port, or a new one; IOException when it cannot connect within
     * timeoutMs, {@link SyncConnection.Refused} when the target refused it.
     */
    Cached get(String host, String port, long timeoutMs) throws IOException {
        String name = host + ":" + port;
        long now = server.keyspace().mstime();
        Cached cs = byName.get(name);
        if (cs != null) {
            cs.lastUseMs = now;
            return cs;
        }
        if (byName.size() == MAX_ITEMS) {
            List<Cached> all = new ArrayList<>(byName.values());
            close(all.get(ThreadLocalRandom.current().nextInt(all.size())));
        }
        // Redis's atoi: what is not a number connects to port 0, which the peer refuses.
        int p;
        try {
            p = Integer.parseInt(port.trim());
        } catch (NumberFormatException e) {
            p = 0;
        }
        if (p <= 0 || p > 65535) throw new SyncConnection.Refused(null);
        cs = new Cached(name, SyncConnection.connect(host, p, timeoutMs));
        cs.lastUseMs = now;
        byName.put(name, cs);
        expireLater(cs);
        return cs;
    }

    private void expireLater(Cached cs) {
        server.timers().at(cs.lastUseMs + TTL_MS + 1, () -> {
            if (byName.get(cs.name) != cs) return;
            if (server.keyspace().mstime() - cs.lastUseMs > TTL_MS) close(cs); else expireLater(cs);
        });
    }

    /** Every cached connection closed (the server stops). */
    @Override
    public void close() {
        for (Cached cs : List.copyOf(byName.values())) close(cs);
    }

    /** Closes and forgets cs (after a socket error, or when it idled out). */
    void close(Cached cs) {
        if (byName.get(cs.name) == cs) byName.remove(cs.name);
        cs.conn.close();
    }
}
