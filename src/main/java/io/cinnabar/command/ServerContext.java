package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.persistence.OwnerThread;
import io.cinnabar.persistence.Persistence;
import io.cinnabar.persistence.PersistenceFormats;
import io.cinnabar.persistence.WriteFeed;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Everything the keyspace thread owns besides the data itself: config, command table, clients,
 * statistics and the hooks the embedding server gives it (port, shutdown). Handlers reach it
 * through {@link Call#server()}.
 */
public final class ServerContext {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ServerContext.class);
    private final Config config;
    private final Keyspace keyspace;
    private final CommandTable commands;
    private final KeyspaceThread thread;
    private final ServerStats stats = new ServerStats();
    private final BlockingRegistry blocking = new BlockingRegistry();
    private final WriteFeed feed = new WriteFeed();
    private final Propagation propagation = new Propagation(feed);
    private final Persistence persistence;
    private final Monitors monitors = new Monitors();
    private final SlowLog slowLog;
    private final LatencyMonitor latencyMonitor;
    private final ClientPause pause;
    private final ClockTimers timers;
    /** The clock when it is moved by hand (clock manual), else null: CINNABAR CLOCK moves it. */
    private volatile ClockControl manualClock;
    /** What RESET clears beyond this package's state (subscriptions, tracking): see connectionReset. */
    private final java.util.List<java.util.function.Consumer<Client>> resetHooks = new java.util.ArrayList<>();
    private final Map<Long, Client> clients = new LinkedHashMap<>();
    private final io.cinnabar.command.acl.Acl acl;
    private final AtomicLong nextClientId = new AtomicLong(1);
    private final long startTimeMs = System.currentTimeMillis();
    /** Redis's run_id, made when first asked for: see ReplicationHistory.randomId. */
    private String runId;
    private final ReplicationHistory history;
    private final MasterLink masterLink;
    private volatile int port;
    private Runnable shutdownHook = () -> { };
    private Runnable stopListening = () -> { };
    private java.util.function.BooleanSupplier inExec = () -> false;
    private volatile Runnable longRunAbort = () -> { };
    private volatile String busyError = BusyReplies.BUSY;
    private boolean activeExpireEnabled = true;
    private KeyspaceThread.Timer cronTimer;
    private volatile boolean shutdownStarted;
    private DataSets dataSets;
    private boolean skipChecksumValidation;
    private boolean scriptsMayRunNoscript;
    /** The function libraries' codes, which snapshots carry; the script engine sets it when it starts. */
    private volatile Supplier<List<byte[]>> functionLibraries = List::of;
    /** State a command family keeps for the server's lifetime (the script engine), created on first use. */
    private final Map<Class<?>, Object> components = new java.util.concurrent.ConcurrentHashMap<>();

    public ServerContext(Config config, CommandTable commands, KeyspaceThread thread) {
        this.config = config;
        this.commands = commands;
        this.thread = thread;
        this.keyspace = new Keyspace(config.getInt(ConfigOptions.DATABASES));
        this.history = new ReplicationHistory(feed, config);
        this.masterLink = new MasterLink(this, config);
        this.slowLog = new SlowLog(config, keyspace);
        this.latencyMonitor = new LatencyMonitor(config, keyspace);
        this.timers = new ClockTimers(keyspace, thread);
        this.pause = new ClientPause(timers, thread, keyspace);
        this.persistence = new Persistence(config, keyspace, feed, new OwnerThread() {
            @Override
            public void execute(Runnable task) {
                thread.execute(task);
            }

            @Override
            public void schedule(long delayMs, Runnable task) {
                if (thread.inThread()) thread.schedule(delayMs, task);
                else thread.execute(() -> thread.schedule(delayMs, task));
            }

            @Override
            public boolean inThread() {
                return thread.inThread();
            }

            @Override
            public long commandsRun() {
                return stats().totalCommandsProcessed;
            }

            @Override
            public void backgroundSaveStarted(long micros) {
                stats().backgroundSavesStarted++;
                stats().lastBackgroundSaveStartMicros = micros;
                latencyMonitor.addSampleIfNeeded("fork", micros / 1000);
            }

            @Override
            public boolean inTransaction() {
                return inExec.getAsBoolean();
            }

            @Override
            public void latencySample(String event, long ms) {
                long threshold = config.getLong(ConfigOptions.LATENCY_MONITOR_THRESHOLD);
                if (threshold != 0 && ms >= threshold) thread.execute(() -> latencyMonitor.addSample(event, ms));
            }
        }, PersistenceFormats.rdb(config, () -> functionLibraries.get(), () -> masterLink.savePoint()), PersistenceFormats.aof(config, () -> functionLibraries.get()));
        // The write feed is the script's while it owns the keyspace past the threshold.
        thread.atEndOfTurn(() -> {
            if (!thread.lent()) persistence.endOfRound();
        });
        config.onChange(persistence::configChanged);
        lazyFreePolicy();
        config.onChange(o -> lazyFreePolicy());
        this.acl = new io.cinnabar.command.acl.Acl(this);
        this.memoryLimit = new MemoryLimit(this);
    }

    private final MemoryLimit memoryLimit;

    /** maxmemory: used memory, eviction, OOM refusals. */
    public MemoryLimit memoryLimit() { return memoryLimit; }

    /** The lazyfree-lazy-* options deletions inside the keyspace follow (expiry, overwrites, eviction). */
    private void lazyFreePolicy() {
        var lazy = keyspace.lazyFree();
        lazy.lazyExpire = config.getBool(ConfigOptions.LAZYFREE_LAZY_EXPIRE);
        lazy.lazyServerDel = config.getBool(ConfigOptions.LAZYFREE_LAZY_SERVER_DEL);
        lazy.lazyEviction = config.getBool(ConfigOptions.LAZYFREE_LAZY_EVICTION);
    }

    /** Users and permissions. */
    public io.cinnabar.command.acl.Acl acl() { return acl; }

    /** This node's part in a cluster; null unless cluster-enabled (then set before the Dispatcher is made). */
    private io.cinnabar.command.cluster.ClusterMember cluster;
    public io.cinnabar.command.cluster.ClusterMember cluster() { return cluster; }
    public void cluster(io.cinnabar.command.cluster.ClusterMember c) { cluster = c; }

    public Config config() { return config; }
    public Keyspace keyspace() { return keyspace; }
    public CommandTable commands() { return commands; }
    public KeyspaceThread thread() { return thread; }
    public ServerStats stats() { return stats; }
    BlockingRegistry blocking() { return blocking; }
    private BlockedClients blocked;
    /** Clients blocked on keys: blocking, retrying, CLIENT UNBLOCK. */
    public BlockedClients blocked() { return blocked; }
    void blocked(BlockedClients b) { blocked = b; }
    /** Executed writes as Redis propagates them; the AOF consumes it. */
    public WriteFeed feed() { return feed; }
    Propagation propagation() { return propagation; }
    public Persistence persistence() { return persistence; }
    /** Loading whole data sets: start-up, DEBUG RELOAD, DEBUG LOADAOF. */
    public DataSets dataSets() { return dataSets; }
    void dataSets(DataSets d) { dataSets = d; }
    private io.cinnabar.command.pubsub.PubSub pubSub;
    public io.cinnabar.command.pubsub.PubSub pubSub() { return pubSub; }
    void pubSub(io.cinnabar.command.pubsub.PubSub p) { pubSub = p; }
    private io.cinnabar.command.tracking.Tracking tracking;
    public io.cinnabar.command.tracking.Tracking tracking() { return tracking; }
    void tracking(io.cinnabar.command.tracking.Tracking t) { tracking = t; }
    private KeyspaceEvents events;
    /** Keyspace notifications (notify-keyspace-events). */
    public KeyspaceEvents events() { return events; }
    void events(KeyspaceEvents e) { events = e; }
    /** DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE then accepts payloads whose CRC64 is wrong. */
    public boolean skipChecksumValidation() { return skipChecksumValidation; }
    public void skipChecksumValidation(boolean skip) { skipChecksumValidation = skip; }
    /** DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may then call commands flagged noscript (tests use it). */
    public boolean scriptsMayRunNoscript() { return scriptsMayRunNoscript; }
    public void scriptsMayRunNoscript(boolean may) { scriptsMayRunNoscript = may; }
    /** Clients blocked on keys or waiting for a CLIENT PAUSE to end (INFO blocked_clients). */
    public int blockedClients() { return blocking.blockedClients() + pause.waitingClients(); }
    /** Clients in MONITOR mode. */
    public Monitors monitors() { return monitors; }
    public SlowLog slowLog() { return slowLog; }
    /** LATENCY's events; others call addSampleIfNeeded with what they timed. */
    public LatencyMonitor latencyMonitor() { return latencyMonitor; }
    /** CLIENT PAUSE state. */
    public ClientPause pause() { return pause; }
    /** Deadlines on the server's clock (blocking timeouts, CLIENT PAUSE's end). */
    public ClockTimers timers() { return timers; }

    /**
     * From now on the keyspace's clock is moved by hand through control, which calls
     * {@link #clockMoved()} after each move; before the keyspace thread starts.
     */
    public void manualClock(ClockControl control) {
        manualClock = control;
        timers.manual(control != null);
    }

    /** The clock moved by hand, or null when the server runs on its own clock. */
    public ClockControl manualClock() { return manualClock; }

    /**
     * The clock was moved by hand (keyspace thread): everything that became due happens now,
     * not at the next cron tick, so the test that moved it sees it done. Keys whose TTL passed
     * expire (with their events and propagated DELs), then deadlines run (blocked clients time
     * out). inCommand: the move came from a running command, whose end propagates the DELs.
     */
    public void clockMoved(boolean inCommand) {
        if (activeExpireEnabled) keyspace.expireAllDue();
        // As after an active expire cycle: the deletions propagate one by one.
        if (!inCommand) propagation.endUnit(false);
        timers.runDue();
    }

    /**
     * Registers what RESET must also undo for a client, for state kept outside this package:
     * pub/sub unsubscribes from everything, tracking switches off. Run in registration order.
     */
    public void onConnectionReset(java.util.function.Consumer<Client> hook) {
        resetHooks.add(hook);
    }

    /** RESET: runs the registered hooks for client. */
    public void connectionReset(Client client) {
        for (var hook : resetHooks) hook.accept(client);
    }
    public long startTimeMs() { return startTimeMs; }
    /** INFO's run_id; keyspace thread. */
    public String runId() {
        if (runId == null) runId = ReplicationHistory.randomId();
        return runId;
    }

    /** The master REPLICAOF set, if any. */
    public MasterLink masterLink() {
        return masterLink;
    }

    /** The replication stream the data is at: ids, offset, backlog. */
    public ReplicationHistory history() {
        return history;
    }

    public int port() { return port; }
    public void port(int p) { port = p; }
    public boolean activeExpireEnabled() { return activeExpireEnabled; }
    public void activeExpireEnabled(boolean e) { activeExpireEnabled = e; }

    /**
     * The family-owned component of this type, created by create on first use; with a null
     * create, null if there is none yet.
     */
    public <T> T component(Class<T> type, java.util.function.Supplier<T> create) {
        Object c = components.get(type);
        if (c == null && create != null) {
            c = create.get();
            components.put(type, c);
        }
        return type.cast(c);
    }

    /** At shutdown: the components that hold outside resources (MIGRATE's connections) release them. Keyspace thread. */
    public void closeComponents() {
        for (Object c : components.values()) {
            if (!(c instanceof AutoCloseable closeable)) continue;
            try {
                closeable.close();
            } catch (Exception e) {
                // Shutting down: nothing more to do with it.
            }
        }
    }

    /** Where snapshots (RDB files, AOF rewrites) get the function libraries' codes; keyspace thread. */
    public void functionLibraries(Supplier<List<byte[]>> codes) {
        functionLibraries = codes;
    }

    /**
     * CONFIG RESETSTAT: INFO's counters and every command's statistics (those of families not
     * loaded yet have none to reset). Keyspace thread.
     */
    public void resetStats() {
        stats.reset(keyspace.mstime());
        keyspace.stats().reset();
        memoryLimit.resetStats();
        keyspace.lazyFree().resetStats();
        commands.forEachRegistered(s -> s.stats().resetCounters());
    }

    /** The function libraries' codes (FUNCTION DUMP's content); keyspace thread. */
    public List<byte[]> functionLibraryCodes() {
        return functionLibraries.get();
    }

    /** What clients get while a script runs past busy-reply-threshold (EVAL and FCALL name different KILLs). */
    public String busyError() {
        return busyError;
    }

    public void busyError(String error) {
        busyError = error;
    }

    /** What stops a long-running command (the running script) when SHUTDOWN NOSAVE must not wait for it. */
    public void onAbortLongRun(Runnable abort) {
        longRunAbort = abort;
    }

    /** Stops the long-running command at its next step, whatever it already did. Any thread. */
    public void abortLongRun() {
        longRunAbort.run();
    }

    /** Allocates the next client id; any thread. */
    public long nextClientId() {
        return nextClientId.getAndIncrement();
    }

    public void addClient(Client c) {
        c.connectedAt(keyspace.mstime());
        clients.put(c.id(), c);
        stats.totalConnectionsReceived++;
    }

    public void removeClient(Client c) {
        clients.remove(c.id());
    }

    public Client client(long id) {
        return clients.get(id);
    }

    public Collection<Client> clients() {
        return Collections.unmodifiableCollection(clients.values());
    }

    public void onShutdown(Runnable hook) {
        shutdownHook = hook;
    }

    /** Tells whether the running command is part of EXEC (the Dispatcher knows). */
    public void inExec(java.util.function.BooleanSupplier supplier) {
        inExec = supplier;
    }

    /** What closes the listening sockets, at once, when a shutdown goes ahead (the rest of it runs off this thread). */
    public void onStopListening(Runnable hook) {
        stopListening = hook;
    }

    /**
     * Redis's prepareForShutdown: persistence first (final AOF fsync, final RDB unless nosave);
     * if that succeeds (or force) the embedding server is asked to stop, off this thread, and
     * null returned; else the reason, and the server goes on. Keyspace thread.
     */
    public String shutdown(boolean save, boolean nosave, boolean force) {
        if (shutdownStarted) return null;
        log.warn("User requested shutdown...");
        return finishShutdown(save, nosave, force);
    }

    /**
     * SHUTDOWN without NOW, or a signal's: true when it waits for lagging replicas first (see
     * {@link ShutdownWait}; the cron then finishes it), false when the caller shuts down now.
     */
    public boolean shutdownAfterReplicas(boolean save, boolean nosave, boolean force) {
        if (shutdownWait.waiting()) return true;
        if (shutdownStarted || !shutdownWait.begin(save, nosave, force)) return false;
        log.warn("User requested shutdown...");
        log.info("Waiting for replicas before shutting down.");
        return true;
    }

    /** A SHUTDOWN client waiting for the shutdown under way: blocked; answered only if it fails. */
    public void waitForShutdown(Client client) {
        shutdownWait.addWaiter(client);
    }

    /** INFO's shutdown_in_milliseconds while a shutdown waits for replicas, else -1. */
    public long shutdownInMs() {
        return shutdownWait.waiting() ? shutdownWait.remainingMs() : -1;
    }

    /** Redis's finishShutdown: lagging replicas logged, then persistence; null once the server stops. */
    String finishShutdown(boolean save, boolean nosave, boolean force) {
        ReplicaLinks replicas = component(ReplicaLinks.class, null);
        if (replicas != null) replicas.logLagging();
        String error = persistence.prepareShutdown(save, nosave, force);
        if (error != null) return error;
        shutdownStarted = true;
        // As Redis exits before the SHUTDOWN client's connection closes: nobody connects after that.
        stopListening.run();
        Thread t = new Thread(shutdownHook, "cinnabar-shutdown");
        t.setDaemon(false);
        t.start();
        return null;
    }

    /**
     * Signal handler, any thread (Redis's shutdown_asap): the next cron shuts down as
     * shutdown-on-sigint or shutdown-on-sigterm says; signal is 2 (SIGINT) or 15 (SIGTERM).
     */
    public void requestShutdown(int signal) {
        shutdownSignal = signal;
    }

    /** A signal asked for a shutdown that has not happened (or failed) yet. */
    public boolean shutdownRequested() {
        return shutdownSignal != 0;
    }

    /** SHUTDOWN ABORT: stops a shutdown waiting for replicas, forgets one a signal asked for; false when there is none. */
    public boolean abortShutdown() {
        boolean waited = shutdownWait.abort();
        if (shutdownSignal == 0 && !waited) return false;
        shutdownSignal = 0;
        log.warn("Shutdown manually aborted.");
        return true;
    }

    private volatile int shutdownSignal;

    /** A shutdown a signal asked for failed: the server goes on (Redis's cancelShutdown). */
    void forgetShutdownSignal() {
        shutdownSignal = 0;
    }
    private final ShutdownWait shutdownWait = new ShutdownWait(this);

    /** serverCron's shutdown_asap: when persistence refuses (a failed final save), the server goes on. */
    private void shutdownOnSignal() {
        ConfigOption option = shutdownSignal == 2 ? ConfigOptions.SHUTDOWN_ON_SIGINT : ConfigOptions.SHUTDOWN_ON_SIGTERM;
        java.util.Set<String> flags = java.util.Set.of(config.getString(option).split(" "));
        boolean save = flags.contains("save"), nosave = flags.contains("nosave"), force = flags.contains("force");
        if (!flags.contains("now") && shutdownAfterReplicas(save, nosave, force)) return;
        if (shutdown(save, nosave, force) != null) shutdownSignal = 0;
    }

    /** True once a shutdown passed its persistence steps: closing must not save again. */
    public boolean shutdownStarted() {
        return shutdownStarted;
    }

    /** Starts serverCron on the keyspace thread: active expiry at hz. Call on the keyspace thread. */
    public void startCron() {
        scheduleCron();
    }

    private void scheduleCron() {
        long hz = config.getLong(ConfigOptions.HZ);
        cronTimer = thread.schedule(Math.max(1, 1000 / hz), () -> {
            cron();
            scheduleCron();
        });
    }

    /** DEBUG PAUSE-CRON: the periodic work stops (tests use it to keep state still). */
    public void pauseCron(boolean paused) {
        cronPaused = paused;
    }

    private boolean cronPaused;

    private void cron() {
        // A clock driven by a supplier says nothing when it moves: deadlines are checked here too.
        timers.runDue();
        if (cronPaused) return;
        if (shutdownSignal != 0 && !shutdownStarted) shutdownOnSignal();
        if (!shutdownStarted) shutdownWait.check();
        ReplicaLinks replicas = component(ReplicaLinks.class, null);
        history.expireIfUnused(keyspace.mstime(), replicas != null && replicas.hasReplicas());
        stats.sampleRates(keyspace.mstime());
        persistence.cron();
        if (cluster != null && blocked != null) blocked.redirectMovedSlots(cluster);
        // On the server clock, as the clients' lastInteractionMs (Redis: server.unixtime).
        IdleClients.closeIdle(this, keyspace.mstime());
        keyspace.rehashSome(1000);
        memoryLimit.cron();
        if (!activeExpireEnabled) return;
        if (masterLink.host() != null) {
            keyspace.expireReplicaKeys();
            propagation.endUnit(false);
            return;
        }
        long hz = config.getLong(ConfigOptions.HZ);
        long effort = config.getLong(ConfigOptions.ACTIVE_EXPIRE_EFFORT) - 1;
        // Redis: 25% of each cron tick's time, a bit more with higher effort.
        long budgetMicros = (25 + 2 * effort) * 1_000_000L / hz / 100;
        long start = System.nanoTime();
        keyspace.activeExpireCycle(budgetMicros);
        latencyMonitor.addSampleIfNeeded("expire-cycle", (System.nanoTime() - start) / 1_000_000);
        // Redis propagates the active cycle's deletions one by one, never as a transaction.
        propagation.endUnit(false);
    }

    public void stopCron() {
        if (cronTimer != null) cronTimer.cancel();
    }

    /** Redis's authRequired for a client that has not authenticated: the default user is off or has a password. Any thread. */
    public boolean requirePass() {
        return acl.defaultUserNeedsAuth();
    }
}
