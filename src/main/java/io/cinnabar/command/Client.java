package io.cinnabar.command;

import io.cinnabar.util.BinaryText;

import java.util.List;

/**
 * Per-connection state owned by the keyspace thread: selected database, protocol version,
 * authentication, name and bookkeeping for CLIENT LIST. The network side only holds a
 * reference to hand batches in.
 */
public final class Client {
    private final long id;
    private final ClientChannel channel;
    /** On the server's clock (CLIENT LIST age), set when the server adds the client. */
    private long createdAtMs;
    private final boolean script;

    int db;
    int protocol = 2;
    volatile boolean authenticated;
    /** The ACL user the client runs as; null for the default user (which is never replaced, only changed). */
    io.cinnabar.command.acl.AclUser aclUser;
    byte[] name;
    long lastInteractionMs;
    /** How long the call that blocked ran: its latency is recorded with the run that serves it. */
    long blockedCallNanos;
    String lastCommand = "NULL";
    boolean noEvict;
    /** SCRIPT DEBUG's mode for the client's next EVAL (io.cinnabar.command.scripting's constants); 0: none. */
    int luaDebug;
    /** The most memory it used since the last maxmemory-clients check (ClientMemory). */
    long memoryPeak;
    /** What used memory counts for this client since the last measure (MemoryLimit). */
    long memoryCounted;
    boolean closing;
    /** Set by QUIT and protocol errors: close once this batch's replies are written. */
    boolean closeAfterReply;
    /** CLIENT REPLY OFF / SKIP state, applied by the Dispatcher around each command. */
    boolean replyOff, replySkip, replySkipNext;
    Transaction multi;
    /** The commands of the EXEC running now, whose arguments Redis keeps alive until it ends; else null. */
    private List<byte[][]> executing;
    /** What those commands were rewritten to (INCRBYFLOAT's SET), kept alive as long; null when none. */
    private List<byte[][]> execRewrites;
    /** WATCHed keys; null until the client first WATCHes. */
    io.cinnabar.keyspace.WatchState watch;
    long multiBulkPending;

    /** Channels and patterns subscribed to; null until the first subscription. */
    io.cinnabar.command.pubsub.Subscriptions subscriptions;
    /** Has subscriptions: Redis's CLIENT_PUBSUB (read by the event loop for the output buffer limit class). */
    volatile boolean subscribed;

    /** CLIENT TRACKING state; null until tracking is first enabled. */
    io.cinnabar.command.tracking.ClientTracking tracking;

    /**
     * What REPLCONF asked of a coming SYNC, whether one made this client a replica (read by the
     * event loop for the output buffer limit class), the port it listens on: see
     * io.cinnabar.command.server.Replicas.
     */
    private volatile int replicaFlags;
    private int replicaPort;

    /** In MONITOR mode (Redis's CLIENT_MONITOR): see {@link Monitors}. */
    boolean monitor;
    /** The command waiting for a CLIENT PAUSE to end, or null: see {@link ClientPause}. */
    byte[][] postponed;

    /** The command a fault rule delays, waiting for its timer (see Verdict.delay); null otherwise. */
    byte[][] delayed;
    /** True while the delayed command runs at last: the faults that delayed it are not asked again. */
    boolean delayServed;
    /** A fault dropped a reply: the connection answers nothing more (see Verdict.drop). */
    boolean silenced;
    /**
     * Cluster mode: ASKING lets the next command (or transaction) use a slot this node is importing
     * (Redis's CLIENT_ASKING): 2 right after ASKING, 1 while it applies, counted down after each command.
     */
    int asking;
    /** Cluster mode: READONLY (Redis's CLIENT_READONLY), which a replica would honour. */
    boolean clusterReadonly;
    /** Cluster mode: the slot a script's commands have used so far, -1 before the first (Redis's c->slot). */
    int scriptSlot = -1;

    /** Non-null while blocked (BLPOP & co.). */
    BlockedState blocked;
    /** Requests that arrived while blocked, run once it is served. */
    java.util.ArrayDeque<byte[][]> pending;

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

    /** The server took the client in at nowMs of its clock (which a test may drive). */
    void connectedAt(long nowMs) {
        createdAtMs = nowMs;
        lastInteractionMs = nowMs;
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
    java.util.ArrayDeque<byte[][]> pending() {
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
    public String nameString() { return name == null ? "" : BinaryText.decode(name); }
    public long createdAtMs() { return createdAtMs; }
    public long lastInteractionMs() { return lastInteractionMs; }
    public String lastCommand() { return lastCommand; }
    public boolean noEvict() { return noEvict; }
    public void noEvict(boolean v) { noEvict = v; }
    public int luaDebug() { return luaDebug; }
    public void luaDebug(int mode) { luaDebug = mode; }
    /** Being closed: killed, or its socket already shut by the network side (output limits) before the disconnect reaches this thread. */
    public boolean closing() { return closing || !channel.open(); }
    public void closeAfterReply() { closeAfterReply = true; }
    /** Closing, or closing once its replies are out (QUIT): as good as gone for others (Redis frees it before the next command). */
    public boolean leaving() { return closing || closeAfterReply; }
    public Transaction multi() { return multi; }
    public void multi(Transaction t) { multi = t; }
    public List<byte[][]> executing() { return executing; }
    /**
     * The commands of the client's transaction, queued (after MULTI) or running (in EXEC); null
     * outside one. Redis keeps CLIENT_MULTI set until EXEC ends: CLIENT INFO shows flag x and
     * the count, a failed AUTH logs context "multi".
     */
    public List<byte[][]> transaction() { return multi != null ? multi.queued() : executing; }
    public void executing(List<byte[][]> commands) {
        executing = commands;
        execRewrites = null;
    }
    /** EXEC's running command was rewritten to argv (Redis's rewriteClientCommandArgument). */
    public void execRewrote(byte[][] argv) {
        if (execRewrites == null) execRewrites = new java.util.ArrayList<>(2);
        execRewrites.add(argv);
    }
    public List<byte[][]> execRewrites() { return execRewrites == null ? List.of() : execRewrites; }
    /** CLIENT REPLY ON|OFF; ON ends a skip, but not a SKIP queued in a transaction for the command after its EXEC. */
    public void replyOff(boolean off) {
        replyOff = off;
        if (!off) replySkip = false;
    }
    /** RESET: replies on, no skip pending. */
    public void repliesOn() {
        replyOff = replySkip = replySkipNext = false;
    }
    public void replySkipNext() { if (!replyOff) replySkipNext = true; }
    public io.cinnabar.keyspace.WatchState watch() { return watch; }
    public io.cinnabar.keyspace.WatchState watchState() {
        if (watch == null) watch = new io.cinnabar.keyspace.WatchState();
        return watch;
    }

    public boolean monitor() { return monitor; }
    public int replicaFlags() { return replicaFlags; }
    /** The master's connection on a replica (Redis's CLIENT_MASTER): obeyed, never answered. */
    public boolean isMaster() { return (replicaFlags & ReplicaFlags.MASTER) != 0; }

    /** A replica of this server's: it took SYNC or PSYNC (CLIENT LIST flag S). */
    public boolean isReplica() { return (replicaFlags & ReplicaFlags.SYNCING) != 0; }
    public void replicaFlags(int flags) { replicaFlags = flags; }
    public int replicaPort() { return replicaPort; }
    public void replicaPort(int port) { replicaPort = port; }
    public void asking() { asking = 2; }
    public boolean isAsking() { return asking > 0; }
    public void clusterReadonly(boolean on) { clusterReadonly = on; }
    /** RESET: neither ASKING nor READONLY any more. */
    public void clearClusterFlags() {
        asking = 0;
        clusterReadonly = false;
    }
    public boolean clusterReadonly() { return clusterReadonly; }
    public int scriptSlot() { return scriptSlot; }
    public void scriptSlot(int slot) { scriptSlot = slot; }
    /** Waiting for a CLIENT PAUSE to end. */
    public boolean postponedByPause() { return postponed != null; }

    /** True while a command of this client waits (blocked on keys, postponed by CLIENT PAUSE, delayed by a fault). */
    boolean waiting() {
        return blocked != null || postponed != null || delayed != null;
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

    /**
     * Its replies passed the output buffer limit: gone for every command from now on and its
     * socket closed without them, as Redis's freeClientAsync (Redis writes nothing more to a client
     * it will close).
     */
    void closeForOutputLimit() {
        channel.closeForOutputLimit(); // logs the client as it was
        closing = true;
    }
}
