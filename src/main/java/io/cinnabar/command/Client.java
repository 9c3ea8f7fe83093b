package io.cinnabar.command;

import java.nio.charset.StandardCharsets;

/**
 * Per-connection state owned by the keyspace thread: selected database, protocol version,
 * authentication, name and bookkeeping for CLIENT LIST. The network side only holds a
 * reference to hand batches in.
 */
public final class Client {
    private final long id;
    private final ClientChannel channel;
    private final long createdAtMs;
    private final boolean script;

    int db;
    int protocol = 2;
    volatile boolean authenticated;
    /** The ACL user the client runs as; null for the default user (which is never replaced, only changed). */
    io.cinnabar.command.acl.AclUser aclUser;
    byte[] name;
    long lastInteractionMs;
    String lastCommand = "NULL";
    boolean noEvict;
    /** The most memory it used since the last maxmemory-clients check (ClientMemory). */
    long memoryPeak;
    boolean closing;
    /** Set by QUIT and protocol errors: close once this batch's replies are written. */
    boolean closeAfterReply;
    /** CLIENT REPLY OFF / SKIP state, applied by the Dispatcher around each command. */
    boolean replyOff, replySkip, replySkipNext;
    Transaction multi;
    /** WATCHed keys; null until the client first WATCHes. */
    io.cinnabar.keyspace.WatchState watch;
    long multiBulkPending;

    /** Channels and patterns subscribed to; null until the first subscription. */
    io.cinnabar.command.pubsub.Subscriptions subscriptions;
    /** Has subscriptions: Redis's CLIENT_PUBSUB (read by the event loop for the output buffer limit class). */
    volatile boolean subscribed;

    /** CLIENT TRACKING state; null until tracking is first enabled. */
    io.cinnabar.command.tracking.ClientTracking tracking;

    /** In MONITOR mode (Redis's CLIENT_MONITOR): see {@link Monitors}. */
    boolean monitor;
    /** The command waiting for a CLIENT PAUSE to end, or null: see {@link ClientPause}. */
    byte[][] postponed;

    /** Non-null while blocked (BLPOP & co.). */
    BlockedState blocked;
    /** Requests that arrived while blocked, run once it is served. */
    java.util.ArrayDeque<io.cinnabar.protocol.Request> pending;

    public Client(long id, ClientChannel channel, boolean authenticated) {
        this(id, channel, authenticated, false);
    }

    /** script: the client scripts run their commands as (Redis's CLIENT_SCRIPT). */
    public Client(long id, ClientChannel channel, boolean authenticated, boolean script) {
        this.script = script;
        this.id = id;
        this.channel = channel;
        this.authenticated = authenticated;
        this.createdAtMs = System.currentTimeMillis();
        this.lastInteractionMs = createdAtMs;
    }

    public long id() { return id; }
    /** True for the client scripts' redis.call commands run as. */
    public boolean isScript() { return script; }
    public boolean blocked() { return blocked != null; }
    public boolean subscribed() { return subscribed; }
    public io.cinnabar.command.pubsub.Subscriptions subscriptions() { return subscriptions; }
    public void subscriptions(io.cinnabar.command.pubsub.Subscriptions s) { subscriptions = s; }
    public void subscribed(boolean s) { subscribed = s; }
    public io.cinnabar.command.tracking.ClientTracking tracking() { return tracking; }
    public void tracking(io.cinnabar.command.tracking.ClientTracking t) { tracking = t; }
    java.util.ArrayDeque<io.cinnabar.protocol.Request> pending() {
        if (pending == null) pending = new java.util.ArrayDeque<>();
        return pending;
    }
    public ClientChannel channel() { return channel; }
    public int db() { return db; }
    public void db(int index) { db = index; }
    public int protocol() { return protocol; }
    public void protocol(int p) { protocol = p; }
    public boolean authenticated() { return authenticated; }
    public void authenticated(boolean a) { authenticated = a; }
    /** The user's name, as CLIENT LIST's user= and ACL WHOAMI show it. */
    public String user() { return aclUser == null ? "default" : aclUser.name(); }
    public io.cinnabar.command.acl.AclUser aclUser() { return aclUser; }
    /** Runs as u from now on; null for the default user. */
    public void aclUser(io.cinnabar.command.acl.AclUser u) { aclUser = u; }
    public byte[] name() { return name; }
    public void name(byte[] n) { name = n; }
    public String nameString() { return name == null ? "" : new String(name, StandardCharsets.UTF_8); }
    public long createdAtMs() { return createdAtMs; }
    public long lastInteractionMs() { return lastInteractionMs; }
    public String lastCommand() { return lastCommand; }
    public boolean noEvict() { return noEvict; }
    public void noEvict(boolean v) { noEvict = v; }
    /** Being closed: killed, or its socket already shut by the network side (output limits) before the disconnect reaches this thread. */
    public boolean closing() { return closing || !channel.open(); }
    public void closeAfterReply() { closeAfterReply = true; }
    /** Closing, or closing once its replies are out (QUIT): as good as gone for others (Redis frees it before the next command). */
    public boolean leaving() { return closing || closeAfterReply; }
    public Transaction multi() { return multi; }
    public void multi(Transaction t) { multi = t; }
    public void replyOff(boolean off) {
        replyOff = off;
        if (!off) replySkip = replySkipNext = false;
    }
    public void replySkipNext() { if (!replyOff) replySkipNext = true; }
    public io.cinnabar.keyspace.WatchState watch() { return watch; }
    public io.cinnabar.keyspace.WatchState watchState() {
        if (watch == null) watch = new io.cinnabar.keyspace.WatchState();
        return watch;
    }

    public boolean monitor() { return monitor; }
    /** Waiting for a CLIENT PAUSE to end. */
    public boolean postponedByPause() { return postponed != null; }

    /** True while a command of this client waits (blocked on keys, or postponed by CLIENT PAUSE). */
    boolean waiting() {
        return blocked != null || postponed != null;
    }

    /** How MONITOR lines name this client: "ip:port", or "lua" for a scripting engine's client. */
    String monitorSource() {
        return script ? "lua" : channel.remoteAddress();
    }

    /** Marks the client for disconnection (CLIENT KILL) and closes its socket. */
    public void kill() {
        closing = true;
        channel.close();
    }
}
