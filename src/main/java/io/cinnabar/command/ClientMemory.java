package io.cinnabar.command;

import io.cinnabar.command.pubsub.Subscriptions;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * What a client costs (CLIENT LIST tot-mem) and maxmemory-clients, as Redis's
 * getClientMemoryUsage and evictClients: unparsed input, the arguments of the command it runs,
 * its MULTI queue, pending output, and the bookkeeping of watched keys, pub/sub subscriptions and
 * tracking prefixes, plus a fixed part for the connection itself. While the sum over all clients
 * passes the limit, the largest clients that did not ask for CLIENT NO-EVICT are closed.
 */
public final class ClientMemory {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ClientMemory.class);
    /** The connection's own share (Redis counts its client struct and static reply buffer). */
    public static final long BASE = 2048;
    /** Redis's per-entry overheads: a list node and watchedKey, a dict entry and bucket, a list node, a rax node. */
    private static final long PER_WATCHED_KEY = 48, PER_CHANNEL = 32, PER_PATTERN = 24, PER_PREFIX = 32;

    private ClientMemory() {}

    /** c's memory; args is the command it is running (null between commands). */
    public static long of(Client c, byte[][] args) {
        long mem = BASE + c.channel().pendingInputBytes() + c.channel().pendingOutputBytes();
        if (args != null) for (byte[] a : args) mem += a.length + 8;
        if (c.multi != null) {
            for (byte[][] queued : c.multi.queued()) {
                for (byte[] a : queued) mem += a.length + 8;
            }
        }
        if (c.watch != null) mem += PER_WATCHED_KEY * c.watch.size();
        Subscriptions subs = c.subscriptions();
        if (subs != null) mem += PER_CHANNEL * (subs.channels() + subs.shardChannels()) + PER_PATTERN * subs.patterns();
        if (c.tracking() != null) mem += PER_PREFIX * c.tracking().prefixCount();
        return mem;
    }

    /** maxmemory-clients in bytes (a percentage is of maxmemory); 0: no limit. */
    static long limit(Config config) {
        long v = config.getLong(ConfigOptions.MAXMEMORY_CLIENTS);
        if (v >= 0) return v;
        return config.getLong(ConfigOptions.MAXMEMORY) * -v / 100;
    }

    /**
     * Keyspace thread: closes the largest evictable clients until all clients together fit in
     * maxmemory-clients. current/args: the client about to run args (its arguments count).
     * Returns true when current itself was evicted. Costs nothing while there is no limit.
     */
    static boolean evictIfNeeded(ServerContext server, Dispatcher dispatcher, Client current, byte[][] args) {
        long limit = limit(server.config());
        if (limit == 0) return false;
        long total = 0;
        List<Client> candidates = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (Client c : server.clients()) {
            if (c.leaving()) continue;
            long m = of(c, c == current ? args : null);
            total += m;
            if (!c.noEvict) {
                candidates.add(c);
                sizes.add(m);
            }
        }
        if (total <= limit) return false;
        Integer[] order = new Integer[candidates.size()];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Long.compare(sizes.get(b), sizes.get(a)));
        boolean evictedCurrent = false;
        for (int i : order) {
            if (total <= limit) break;
            Client c = candidates.get(i);
            log.debug("Evicting client: {}", io.cinnabar.command.server.ClientInfo.line(c));
            server.stats().evictedClients++;
            total -= sizes.get(i);
            dispatcher.disconnected(c);
            c.kill();
            evictedCurrent |= c == current;
        }
        return evictedCurrent;
    }
}
