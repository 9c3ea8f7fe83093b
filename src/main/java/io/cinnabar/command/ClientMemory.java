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
 * reaches the limit, the largest clients that did not ask for CLIENT NO-EVICT are closed.
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
        long mem = BASE + c.channel().pendingInputBytes() + c.channel().reservedInputBytes()
                + c.channel().partialRequestBytes() + c.channel().pendingOutputBytes();
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

    /**
     * maxmemory-clients in bytes (a percentage is of maxmemory, none without one); 0: no limit.
     * As Redis's getClientEvictionLimit, never under 128 KB: a tiny value would cut off every
     * client, the one that set it included.
     */
    static long limit(Config config) {
        long v = config.getLong(ConfigOptions.MAXMEMORY_CLIENTS);
        if (v < 0) v = (long) ((double) config.getLong(ConfigOptions.MAXMEMORY) * -v / 100);
        return v == 0 ? 0 : Math.max(v, MIN_LIMIT);
    }

    private static final long MIN_LIMIT = 128 * 1024;

    /**
     * Before client runs args: remembers its peak, which counts at the next {@link #evictIfNeeded}
     * (Redis sizes a client while it reads and parses, and evicts before it sleeps, after the
     * commands ran). Costs a config read while there is no limit.
     */
    static void notePeak(ServerContext server, Client client, byte[][] args) {
        if (limit(server.config()) == 0) return;
        long argBytes = 0;
        for (byte[] a : args) argBytes += a.length;
        // Redis reads an argument of 32 KB or more into a query buffer of its size, which stays
        // allocated after the command; smaller arguments leave nothing behind by then.
        client.memoryPeak = Math.max(client.memoryPeak, of(client, argBytes >= BIG_ARG ? args : null));
    }

    /** Redis's PROTO_MBULK_BIG_ARG. */
    private static final long BIG_ARG = 32 * 1024;

    /**
     * Keyspace thread, after a batch of commands or a big read: closes the largest evictable
     * clients while all clients together (each at its peak since the last check) reach
     * maxmemory-clients, as Redis's evictClients.
     */
    static void evictIfNeeded(ServerContext server, Dispatcher dispatcher) {
        long limit = limit(server.config());
        if (limit == 0) return;
        long total = 0;
        List<Client> candidates = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (Client c : server.clients()) {
            if (c.leaving()) continue;
            long m = Math.max(of(c, null), c.memoryPeak);
            c.memoryPeak = 0;
            total += m;
            if (!c.noEvict) {
                candidates.add(c);
                sizes.add(m);
            }
        }
        if (total < limit) return;
        Integer[] order = new Integer[candidates.size()];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Long.compare(sizes.get(b), sizes.get(a)));
        for (int i : order) {
            if (total < limit) return;
            Client c = candidates.get(i);
            log.info("Evicting client: {}", io.cinnabar.command.server.ClientInfo.line(c, server.keyspace().mstime()));
            server.stats().evictedClients++;
            total -= sizes.get(i);
            dispatcher.disconnected(c);
            c.kill();
        }
        // Redis logs this at every event loop turn; once a second says the same.
        long now = System.currentTimeMillis();
        if (now - lastOverLimitWarningMs >= 1000) {
            lastOverLimitWarningMs = now;
            log.warn("Over client maxmemory after evicting all evictable clients");
        }
    }

    private static long lastOverLimitWarningMs;
}
