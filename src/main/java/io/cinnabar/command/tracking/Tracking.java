package io.cinnabar.command.tracking;

import io.cinnabar.command.Call;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandFlag;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.RespWriter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Server-assisted client-side caching (Redis's tracking.c): which clients read which keys, the
 * BCAST prefixes, and the invalidation messages sent when keys change. Keyspace thread only.
 */
public final class Tracking {
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Writes bytes that answer no request to a client, after what it was sent before. */
    public interface Outbox {
        void push(Client target, byte[] bytes);
    }

    /**
     * One BCAST prefix: its clients and the keys under it changed since the last broadcast (with
     * who changed each), in byte order: Redis keeps them in a radix tree and sends them so.
     */
    private static final class Prefix {
        final LinkedHashSet<Client> clients = new LinkedHashSet<>();
        final TreeMap<byte[], Client> changed = new TreeMap<>(Arrays::compareUnsigned);
    }

    private final ServerContext server;
    private final Outbox outbox;
    /** Key -> ids of the clients that may have cached it. */
    private final Map<ByteBuffer, LinkedHashSet<Long>> table = new HashMap<>();
    /** The BCAST prefixes in byte order (Redis's PrefixTable radix tree: broadcasts go out in this order). */
    private final TreeMap<byte[], Prefix> prefixes = new TreeMap<>(Arrays::compareUnsigned);
    private long totalItems;
    private int trackingClients;
    /** Invalidations for clients whose command is running: sent after its reply (keys null: flush). */
    private record Pending(Client client, byte[] keys) { }

    private final List<Pending> pendingForCurrent = new ArrayList<>();
    /** The client whose top-level command runs, and those it interrupted (a blocked client served meanwhile). */
    private Client current;
    private final java.util.ArrayDeque<Client> interrupted = new java.util.ArrayDeque<>();

    public Tracking(ServerContext server, Outbox outbox) {
        this.server = server;
        this.outbox = outbox;
        // Registered before the hook that hands replies to the event loops (the Dispatcher creates
        // this first), so broadcasts leave in the same round. Not while a script owns the keyspace
        // on the helper thread (it may be invalidating keys).
        server.thread().afterWork(() -> {
            if (active() && !server.thread().lent()) {
                broadcast();
                limit(server.config().getLong(ConfigOptions.TRACKING_TABLE_MAX_KEYS));
            }
        });
    }

    /** True when any client tracks: the only check commands pay otherwise. */
    public boolean active() {
        return trackingClients > 0;
    }

    public int clients() {
        return trackingClients;
    }

    public long totalKeys() {
        return table.size();
    }

    public long totalItems() {
        return totalItems;
    }

    public long totalPrefixes() {
        return prefixes.size();
    }

    /** CLIENT TRACKING ON with its options, already validated. */
    void enable(Client c, long redirect, boolean bcast, boolean optin, boolean optout, boolean noloop, List<byte[]> newPrefixes) {
        ClientTracking t = c.tracking();
        if (t == null) {
            t = new ClientTracking();
            c.tracking(t);
        }
        if (!t.on) trackingClients++;
        t.on = true;
        t.brokenRedirect = false;
        t.redirect = redirect;
        t.bcast = bcast;
        t.optin = optin;
        t.optout = optout;
        t.noloop = noloop;
        if (bcast) {
            if (newPrefixes.isEmpty()) addPrefix(c, t, new byte[0]);
            for (byte[] p : newPrefixes) addPrefix(c, t, p);
        }
    }

    private void addPrefix(Client c, ClientTracking t, byte[] p) {
        Prefix prefix = prefixes.computeIfAbsent(p, k -> new Prefix());
        if (prefix.clients.add(c)) t.addPrefix(p);
    }

    /** CLIENT TRACKING OFF, RESET, disconnection. */
    public void disable(Client c) {
        ClientTracking t = c.tracking();
        if (t == null || !t.on) return;
        for (byte[] p : t.prefixes) {
            Prefix prefix = prefixes.get(p);
            if (prefix == null) continue;
            prefix.clients.remove(c);
            if (prefix.clients.isEmpty()) prefixes.remove(p);
        }
        t.prefixes.clear();
        trackingClients--;
        t.on = t.bcast = t.optin = t.optout = t.noloop = t.caching = t.brokenRedirect = false;
        t.redirect = 0;
    }

    /** Existing BCAST prefixes of c that overlap p, or null (Redis's checkPrefixCollisionsOrReply). */
    byte[] overlappingPrefix(Client c, byte[] p) {
        ClientTracking t = c.tracking();
        if (t == null) return null;
        for (byte[] mine : t.prefixes) if (overlap(mine, p)) return mine;
        return null;
    }

    static boolean overlap(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        return Arrays.equals(a, 0, n, b, 0, n);
    }

    /**
     * After any command ran: a read remembers its keys for the reader, a write that changed data
     * invalidates its keys. A read inside a script remembers the script's declared keys for its
     * caller, the top-level command (Redis's script_caller); the script commands themselves
     * remember nothing, and invalidate nothing themselves either: the writes they ran invalidated
     * their own keys when they ran (an EVAL that SETs then GETs KEYS[1] leaves it tracked, untold).
     */
    public void afterCommand(Client client, CommandSpec spec, byte[][] argv, boolean failed, boolean changed, Call top) {
        if (spec.propagatesInnerCommands) return;
        if (spec.hasFlag(CommandFlag.READONLY)) {
            // A read that changed its key (PFCOUNT refreshing the HLL's cached cardinality) tells
            // the others first, as its signalModifiedKey does in Redis.
            if (!failed && changed) afterWrite(client, top, spec, argv);
            if (client.isScript()) {
                afterRead(top.client(), top.spec(), top.args());
            } else if (!spec.mayRunLong()) {
                afterRead(client, spec, argv);
            }
        } else if (!failed && changed) {
            afterWrite(client, top, spec, argv);
        }
    }

    /** After a read-only command of a tracking client: remember the keys it may now cache. */
    private void afterRead(Client c, CommandSpec spec, byte[][] argv) {
        ClientTracking t = c.tracking();
        if (t == null || !t.on || t.bcast) return;
        if ((t.optin && !t.caching) || (t.optout && t.caching)) return;
        if (spec.keysAreChannels) return;
        spec.forEachKey(argv, pos -> {
            LinkedHashSet<Long> ids = table.computeIfAbsent(ByteBuffer.wrap(argv[pos]), k -> new LinkedHashSet<>(2));
            if (ids.add(c.id())) totalItems++;
        });
    }

    /**
     * After a write command that changed data: its keys may have changed (Redis's signalModifiedKey).
     * NOLOOP spares the top-level client its own writes, scripts' included (Redis compares with
     * server.current_client); a BCAST client's NOLOOP compares with who wrote, which for a
     * script's write is the script's own client: a BCAST NOLOOP client is told of its scripts' writes.
     */
    private void afterWrite(Client writer, Call top, CommandSpec spec, byte[][] argv) {
        Client caller = writer.isScript() ? top.client() : writer;
        spec.forEachKey(argv, pos -> invalidate(writer, caller, argv[pos]));
    }

    /** The key changed (or expired): tell whoever may have cached it. by may be null. */
    public void invalidate(Client by, byte[] key) {
        invalidate(by, by, key);
    }

    /** The key changed: writer is who changed it (for BCAST), caller the top-level client that ran (for NOLOOP). */
    private void invalidate(Client writer, Client by, byte[] key) {
        if (!prefixes.isEmpty()) rememberForBroadcast(writer, key);
        LinkedHashSet<Long> ids = table.remove(ByteBuffer.wrap(key));
        if (ids == null) return;
        totalItems -= ids.size();
        byte[] one = null;
        for (long id : ids) {
            Client target = server.client(id);
            if (target == null || target.tracking() == null) continue;
            ClientTracking t = target.tracking();
            if (!t.on || t.bcast) continue;
            if (t.noloop && target == by) continue;
            if (one == null) one = oneKey(key);
            if (target == current) pendingForCurrent.add(new Pending(target, one));
            else send(target, one);
        }
    }

    private static byte[] oneKey(byte[] key) {
        RespWriter w = new RespWriter(key.length + 16);
        w.array(1);
        w.bulk(key);
        return w.takeBytes();
    }

    private void rememberForBroadcast(Client by, byte[] key) {
        for (Map.Entry<byte[], Prefix> e : prefixes.entrySet()) {
            byte[] p = e.getKey();
            if (p.length > key.length || !Arrays.equals(p, 0, p.length, key, 0, p.length)) continue;
            e.getValue().changed.put(key, by);
        }
    }

    /** FLUSHDB / FLUSHALL: every tracking client drops its whole cache (a null invalidation). */
    public void flushed() {
        if (trackingClients > 0) {
            for (Client c : server.clients()) {
                ClientTracking t = c.tracking();
                if (t == null || !t.on) continue;
                if (c == current) pendingForCurrent.add(new Pending(c, null));
                else send(c, null);
            }
        }
        table.clear();
        totalItems = 0;
    }

    /** Marks the client whose top-level command runs (its invalidations wait for its reply). */
    public void commandStarted(Client c) {
        if (current != null) interrupted.push(current);
        current = c;
    }

    /** After a top-level command: the running client's own invalidations follow its reply. */
    public void commandEnded(Client c) {
        current = interrupted.isEmpty() ? null : interrupted.pop();
        if (pendingForCurrent.isEmpty()) return;
        List<Pending> mine = new ArrayList<>();
        pendingForCurrent.removeIf(p -> p.client == c && mine.add(p));
        if (c.closing()) return;
        for (Pending p : mine) send(c, p.keys);
    }

    /** Once per round of work (Redis's beforeSleep): BCAST clients get the keys changed under their prefixes. */
    public void broadcast() {
        if (prefixes.isEmpty()) return;
        for (Prefix p : prefixes.values()) {
            if (p.changed.isEmpty()) continue;
            byte[] all = keysArray(p.changed, null);
            for (Client c : p.clients) {
                ClientTracking t = c.tracking();
                if (t != null && t.noloop) {
                    byte[] others = keysArray(p.changed, c);
                    if (others != null) send(c, others);
                } else {
                    send(c, all);
                }
            }
            p.changed.clear();
        }
    }

    /** The changed keys as a RESP array, without those changed by exclude; null when none is left. */
    private static byte[] keysArray(TreeMap<byte[], Client> changed, Client exclude) {
        List<byte[]> keys = new ArrayList<>(changed.size());
        for (Map.Entry<byte[], Client> e : changed.entrySet()) if (exclude == null || e.getValue() != exclude) keys.add(e.getKey());
        if (keys.isEmpty()) return null;
        RespWriter w = new RespWriter(64);
        w.array(keys.size());
        for (byte[] k : keys) w.bulk(k);
        return w.takeBytes();
    }

    /**
     * Redis's sendTrackingMessage: keys is an encoded RESP array, or null for "everything". RESP3
     * clients get a push; with a redirection, the other client gets it, as a pub/sub message on
     * __redis__:invalidate when it speaks RESP2 and is subscribed.
     */
    private void send(Client c, byte[] keys) {
        ClientTracking t = c.tracking();
        Client to = c;
        boolean redirected = false;
        if (t != null && t.redirect != 0) {
            Client redir = server.client(t.redirect);
            if (redir == null || redir.leaving()) {
                t.brokenRedirect = true;
                if (c.protocol() == 3) {
                    RespWriter w = new RespWriter(48);
                    w.protocol(3);
                    w.push(2);
                    w.bulk("tracking-redir-broken");
                    w.integer(t.redirect);
                    outbox.push(c, w.takeBytes());
                }
                return;
            }
            to = redir;
            redirected = true;
        }
        RespWriter w = new RespWriter(64);
        w.protocol(to.protocol());
        if (to.protocol() == 3) {
            w.push(2);
            w.bulk("invalidate");
        } else if (redirected && to.subscribed()) {
            w.push(3);
            w.bulk("message");
            w.bulk(CHANNEL);
        } else {
            return; // RESP2 without redirection: nowhere to say it
        }
        if (keys == null) w.raw(c.protocol() == 3 ? io.cinnabar.protocol.RespConstants.NULL_3 : io.cinnabar.protocol.RespConstants.NULL_BULK_2);
        else w.raw(keys);
        outbox.push(to, w.takeBytes());
    }

    /** tracking-table-max-keys: forgets (and invalidates) keys past the limit, as Redis's trackingLimitUsedSlots. */
    public void limit(long maxKeys) {
        if (maxKeys <= 0 || table.size() <= maxKeys) return;
        // Only the keys past the limit are collected (invalidating changes the table, so not while iterating).
        List<ByteBuffer> victims = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, table.size() - maxKeys));
        Iterator<ByteBuffer> it = table.keySet().iterator();
        for (long n = table.size() - maxKeys; n > 0 && it.hasNext(); n--) victims.add(it.next());
        for (ByteBuffer k : victims) {
            invalidate(null, Arrays.copyOfRange(k.array(), k.arrayOffset() + k.position(), k.arrayOffset() + k.limit()));
        }
    }
}
