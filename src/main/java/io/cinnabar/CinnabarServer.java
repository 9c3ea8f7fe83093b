package io.cinnabar;

import io.cinnabar.command.CommandTable;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.KeyspaceThread;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.testing.DataSnapshot;
import io.cinnabar.command.testing.Faults;
import io.cinnabar.command.testing.Recorder;
import io.cinnabar.command.testing.TestControls;
import io.cinnabar.command.cluster.ClusterMember;
import io.cinnabar.command.cluster.ClusterNode;
import io.cinnabar.command.cluster.ClusterState;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.config.ConfigException;
import io.cinnabar.network.NettyServer;
import io.cinnabar.network.NettyWarmUp;
import io.cinnabar.network.TlsConfigurationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running Cinnabar server: the keyspace thread, the event loops and the listening sockets.
 * Used by {@code java -jar} and embedded in tests:
 * <pre>{@code
 * try (CinnabarServer server = CinnabarServer.builder().port(0).build().start()) {
 *     int port = server.port();
 * }
 * }</pre>
 */
public final class CinnabarServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CinnabarServer.class);

    private final Config config;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private KeyspaceThread thread;
    private ServerContext context;
    private NettyServer network;
    private Dispatcher dispatcher;
    private volatile int port = -1;
    private volatile boolean dataLoaded;
    private volatile TestControls testControls;
    /** The clock tests move (builder().clock(...) or clock manual), else null: the system's time. */
    private ManualClock manualClock;
    /** The temporary directory the builder made for this server (no "dir" given), deleted when it stops. */
    private java.nio.file.Path ownDir;
    private final Runnable catchUp = this::catchUp;
    /** With cluster-enabled yes: the cluster this node belongs to and its place in it (its own one-node cluster unless joined). */
    private ClusterState clusterState;
    private ClusterNode clusterNode;

    public CinnabarServer(Config config) {
        this(config, null);
    }

    /** A server whose time is clock (moved by hand) when it is not null. */
    public CinnabarServer(Config config, ManualClock clock) {
        this.config = config;
        this.manualClock = clock;
    }

    public static Builder builder() {
        // Netty's one-time work of the JVM, on a helper thread while the builder and listen() make what needs no network.
        NettyWarmUp.startOnce();
        return new Builder();
    }

    /**
     * Starts the keyspace and persistence threads, binds the port and loads the data set on disk
     * (the AOF with appendonly yes, else the dump), serving clients with LOADING meanwhile;
     * returns once loaded: {@link #listen()} then {@link #loadData()}. Fails with an
     * {@link IllegalStateException} naming the address when the port cannot be bound, or the
     * reason when the data on disk cannot be loaded; nothing is left running then.
     */
    public CinnabarServer start() {
        try {
            listen();
            return loadData();
        } catch (RuntimeException | Error e) {
            if (ownDir != null && !isRunning()) deleteQuietly(ownDir);
            throw e;
        }
    }

    /**
     * The first half of {@link #start()}: threads started and the port bound, clients answered
     * with LOADING until {@link #loadData()} has loaded the data set (redis-server logs its
     * banner in between).
     */
    public synchronized CinnabarServer listen() {
        if (thread != null) throw new IllegalStateException("already started");
        fitMaxclientsToOpenFiles();
        NettyWarmUp.startOnce();
        thread = new KeyspaceThread("cinnabar-keyspace");
        context = new ServerContext(config, CommandTable.standard(config.getBool(ConfigOptions.ENABLE_TEST_COMMANDS)), thread);
        for (io.cinnabar.config.StartupDirectives.Rename r : config.directives().renames()) {
            String reason = context.commands().rename(r.name(), r.newName());
            if (reason != null) {
                thread = null;
                throw new io.cinnabar.config.ConfigStartupException(r.fatalText().apply(reason));
            }
        }
        if (manualClock == null && "manual".equals(config.getString(ConfigOptions.CLOCK))) manualClock = new ManualClock();
        if (manualClock != null) driveBy(manualClock);
        // Users before the port opens (Redis's ACLLoadUsersAtStartup): a broken ACL file stops the start.
        String aclError = context.acl().loadAtStartup(config.directives().users(), config.getString(ConfigOptions.ACLFILE));
        if (aclError != null) {
            thread = null;
            throw new io.cinnabar.command.acl.AclStartupException(aclError);
        }
        context.onShutdown(this::close);
        context.onStopListening(() -> {
            NettyServer n = network;
            if (n != null) n.stopListening();
        });
        context.keyspace().loading(true);
        if (config.getBool(ConfigOptions.CLUSTER_ENABLED)) {
            if (clusterState == null) {
                clusterState = new ClusterState();
                clusterNode = clusterState.addNode(host());
            }
            context.cluster(new ClusterMember(clusterState, clusterNode, config));
        }
        dispatcher = new Dispatcher(context);
        // Made now, so that reset() knows the config as configured at start-up.
        testControls = TestControls.of(context, dispatcher);
        if (manualClock != null) {
            // reset() also puts the manual clock back to the time the server started at.
            ManualClock clock = manualClock;
            long startMillis = clock.millis();
            testControls.onReset(() -> clock.set(startMillis));
        }
        if (clusterNode != null) {
            ServerContext ctx = context;
            KeyspaceThread owner = thread;
            clusterState.onPublish(clusterNode, (channel, message) -> owner.execute(() -> ctx.pubSub().publish(channel, message)));
        }
        // The network layer first: with one io thread the keyspace work runs on its event loop.
        network = new NettyServer(dispatcher);
        thread.start();
        context.persistence().start();
        thread.execute(context::startCron);
        try {
            port = network.bind();
        } catch (IOException | TlsConfigurationException e) {
            if (manualClock != null) manualClock.release(catchUp);
            thread.shutdown();
            context.persistence().close();
            closed.set(true);
            stopped.countDown();
            if (e instanceof TlsConfigurationException tls) throw tls;
            throw new IllegalStateException(e.getMessage(), e);
        }
        context.port(port);
        if (clusterNode != null) clusterState.listening(clusterNode, port);
        config.onApply(ConfigOptions.PORT, () -> relisten("Unable to listen on this port. Check server logs."));
        config.onApply(ConfigOptions.BIND, () -> relisten("Failed to bind to specified addresses."));
        config.onApply(ConfigOptions.TLS_PORT, this::relistenTls);
        config.onApply(ConfigOptions.MAXCLIENTS, () -> {
            long allowed = OpenFilesLimit.allowedClients(config.getLong(ConfigOptions.MAXCLIENTS));
            return allowed == config.getLong(ConfigOptions.MAXCLIENTS) ? null
                    : "The operating system is not able to handle the specified number of clients, try with " + allowed;
        });
        // One apply function for all the others, so a CONFIG SET of several reconfigures once (Redis's applyTlsCfg).
        java.util.function.Supplier<String> reconfigureTls = () -> tlsWanted() && network.configureTls() != null
                ? "Unable to update TLS configuration. Check server logs." : null;
        for (io.cinnabar.config.ConfigOption o : NettyServer.TLS_CONTEXT_OPTIONS) config.onApply(o, reconfigureTls);
        OomScoreAdj.follow(config);
        return this;
    }

    /** As Redis at start: maxclients the open files limit cannot hold is lowered, with its warnings. */
    private void fitMaxclientsToOpenFiles() {
        long wanted = config.getLong(ConfigOptions.MAXCLIENTS);
        long allowed = OpenFilesLimit.allowedClients(wanted);
        if (allowed == wanted) return;
        long limit = allowed + OpenFilesLimit.RESERVED;
        if (allowed < 1) {
            throw new io.cinnabar.config.ConfigStartupException("Your current 'ulimit -n' of " + limit + " is not enough for the "
                    + "server to start. Please increase your open file limit to at least " + (wanted + OpenFilesLimit.RESERVED) + ". Exiting.");
        }
        log.warn("You requested maxclients of {} requiring at least {} max file descriptors.", wanted, wanted + OpenFilesLimit.RESERVED);
        log.warn("Current maximum open files is {}. maxclients has been reduced to {} to compensate for low ulimit. "
                + "If you need higher maxclients increase 'ulimit -n'.", limit, allowed);
        try {
            config.set(ConfigOptions.MAXCLIENTS, new String[] {Long.toString(allowed)});
        } catch (io.cinnabar.config.ConfigException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean tlsWanted() {
        return config.getInt(ConfigOptions.TLS_PORT) != 0 || config.getBool(ConfigOptions.TLS_REPLICATION)
                || config.getBool(ConfigOptions.TLS_CLUSTER);
    }

    /** CONFIG SET tls-port (Redis's applyTLSPort): TLS configured if it was not, then listening on the new port. */
    private String relistenTls() {
        if (!network.tlsConfigured() && network.configureTls() != null) {
            return "Unable to update TLS configuration. Check server logs.";
        }
        if (network.relistenTls(config.getInt(ConfigOptions.TLS_PORT)) != null) {
            return "Unable to listen on this port. Check server logs.";
        }
        return null;
    }

    /** CONFIG SET port/bind (keyspace thread): null once listening as configured, else failure. */
    private String relisten(String failure) {
        if (network.rebind(config.getInt(ConfigOptions.PORT), config.getString(ConfigOptions.BIND)) != null) return failure;
        port = network.port();
        context.port(port);
        if (clusterNode != null) clusterState.listening(clusterNode, port);
        return null;
    }

    /** The second half of {@link #start()}: loads the data set; on failure stops the server and throws. */
    public synchronized CinnabarServer loadData() {
        if (thread == null) throw new IllegalStateException("not listening");
        if (dataLoaded) return this;
        CompletableFuture<String> loaded = new CompletableFuture<>();
        thread.execute(() -> context.dataSets().loadAtStartup(loaded::complete));
        String error = loaded.join();
        if (error != null) {
            // Nothing may be saved over the files that failed to load.
            stop();
            throw new IllegalStateException(error);
        }
        dataLoaded = true;
        return this;
    }

    /**
     * Starts the Lua interpreter now instead of at the first script (EVAL, FUNCTION LOAD), as
     * redis-server makes its own at start (scriptingInit in initServer). A fresh JVM's first one
     * costs 140-650 ms on 2 busy cores (luaj's classes, the sandbox's libraries), which the first
     * EVAL would otherwise wait for: Redisson's tryLock(100 ms) gave up before it could subscribe.
     */
    public void startScripting() {
        if (context == null) throw new IllegalStateException("not listening");
        CompletableFuture<Void> started = new CompletableFuture<>();
        thread.execute(() -> {
            try {
                io.cinnabar.command.scripting.ScriptEngine.of(context, dispatcher);
                started.complete(null);
            } catch (RuntimeException | Error e) {
                started.completeExceptionally(e);
            }
        });
        started.join();
    }

    /** Registers every command family now instead of at each family's first use (see {@link CommandTable}). */
    public void registerAllCommands() {
        if (context == null) throw new IllegalStateException("not listening");
        context.commands().registerAll();
    }

    /** The port actually bound (useful with port 0); 0 when only a TLS port was asked for. */
    public int port() {
        return port;
    }

    /** The TLS port bound (tls-port), or 0. */
    public int tlsPort() {
        return network == null ? 0 : network.tlsPort();
    }

    public String host() {
        return "127.0.0.1";
    }

    public Config config() {
        return config;
    }

    /** A shutdown signal arrived (see ShutdownSignals): the keyspace thread's cron acts on it. */
    void requestShutdown(int signal) {
        context.requestShutdown(signal);
    }

    boolean shutdownRequested() {
        return context.shutdownRequested();
    }

    boolean isLoading() {
        return context.keyspace().isLoading();
    }

    /** Empties every database, from any thread; returns once done (used between tests). */
    public void flushAll() {
        onKeyspaceThread(c -> c.keyspace().flushAll());
    }

    /** Makes this (not yet started) cluster-enabled server the given node of a shared cluster: see CinnabarCluster. */
    CinnabarServer joinCluster(ClusterState state, ClusterNode node) {
        if (thread != null) throw new IllegalStateException("already started");
        clusterState = state;
        clusterNode = node;
        return this;
    }

    /** Runs task on the keyspace thread, from any other thread, and returns what it returned. */
    <T> T onKeyspaceThread(java.util.function.Function<ServerContext, T> task) {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        CompletableFuture<T> result = new CompletableFuture<>();
        thread.execute(() -> {
            try {
                result.complete(task.apply(context));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * CLIENT LIST as seen now, one line per connected client (the JUnit extension compares
     * it before and after a test to find connections the test left open). Any thread.
     */
    public java.util.List<String> clientList() {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        CompletableFuture<java.util.List<String>> lines = new CompletableFuture<>();
        thread.execute(() -> {
            java.util.List<String> l = new java.util.ArrayList<>();
            long now = context.keyspace().mstime();
            for (io.cinnabar.command.Client c : context.clients()) {
                if (!c.closing()) l.add(io.cinnabar.command.server.ClientInfo.line(c, now));
            }
            lines.complete(l);
        });
        return lines.join();
    }

    /**
     * The clock tests move, given to {@link Builder#clock(ManualClock)} or made for
     * {@code clock manual}; null when the server runs on the system's time.
     */
    public ManualClock clock() {
        return manualClock;
    }

    /** Before the keyspace thread starts: the keyspace reads clock, whose moves this server follows. */
    private void driveBy(ManualClock clock) {
        context.keyspace().clock(clock);
        context.manualClock(new io.cinnabar.command.ClockControl() {
            @Override
            public void advance(long ms) {
                clock.advanceMillis(ms);
            }

            @Override
            public void set(long unixMs) {
                clock.set(unixMs);
            }
        });
        clock.drive(catchUp);
    }

    /**
     * The manual clock moved: what became due happens on the keyspace thread before this
     * returns. Inline when the move came from there (CINNABAR CLOCK, inside a command).
     */
    private void catchUp() {
        if (!isRunning()) return;
        if (thread.inThread()) {
            context.clockMoved(true);
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        thread.execute(() -> {
            try {
                context.clockMoved(false);
            } finally {
                done.complete(null);
            }
        });
        while (isRunning()) {
            try {
                done.get(1, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException stillBusy) {
                // a long script holds the keyspace: wait on, unless the server stops meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    /**
     * Drives the server's clock (unix ms) from source instead of the system's: tests see time
     * pass without sleeping. Deadlines (blocking timeouts) are checked at the next cron tick;
     * a {@link ManualClock} given to the builder makes them happen as it moves.
     */
    public void clock(java.util.function.LongSupplier source) {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        context.keyspace().clock(source);
    }

    /**
     * Fault injection: {@code server.faults().on("GET").withKey("user:*").times(3)
     * .replyError("LOADING Redis is loading the dataset in memory")}, delays, dropped replies,
     * closed connections, and a general {@link io.cinnabar.command.testing.CommandInterceptor}.
     */
    public Faults faults() {
        return controls().faults();
    }

    /** The command recorder: {@code server.recorder().start()}, then {@code server.recorder().commands("SET")}. */
    public Recorder recorder() {
        return controls().recorder();
    }

    /**
     * Puts the server back to how it started, connections left open: no keys, scripts or
     * libraries, start-up config, no faults, recorder off, statistics cleared, blocked and
     * subscribed clients released (see {@link io.cinnabar.command.testing.TestControls#reset}).
     */
    public void reset() {
        controls().reset();
    }

    /** The whole data set, kept in memory, to {@link #restore} before each test. */
    public DataSnapshot snapshot() {
        return controls().snapshot();
    }

    /** Replaces the data set with the snapshot's; the snapshot can be restored again. */
    public void restore(DataSnapshot snapshot) {
        controls().restore(snapshot);
    }

    /** Adds a fixture's data: a dump.rdb, or a file of commands (redis-cli lines or RESP). */
    public void loadFixture(java.nio.file.Path file) {
        controls().loadFixture(file);
    }

    /** Everything tests control in this server besides its clock. */
    public TestControls controls() {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        return testControls;
    }

    /** Blocks until the server stops (SHUTDOWN or close()). */
    public void awaitTermination() throws InterruptedException {
        stopped.await();
    }

    public boolean isRunning() {
        return thread != null && !closed.get();
    }

    /**
     * Shuts down as SIGTERM does a redis-server: a BGSAVE or AOF rewrite is stopped, the AOF
     * fsynced and, with save points set, a final dump written (failures are logged, the server
     * stops anyway); then it stops accepting, closes every connection and ends all threads. The
     * port is free on return.
     */
    @Override
    public void close() {
        if (closed.get()) return;
        // A script running past busy-reply-threshold would hold the keyspace thread's work forever.
        if (context != null) context.abortLongRun();
        // Not once an event loop died: with one io thread it ran the keyspace, and so the save.
        if (dataLoaded && !context.shutdownStarted() && !(network != null && network.loopDied())) {
            CompletableFuture<String> prepared = new CompletableFuture<>();
            thread.execute(() -> prepared.complete(context.persistence().prepareShutdown(false, false, true)));
            try {
                prepared.get(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                log.warn("Final save before exiting failed: {}", e.toString());
            }
        }
        stop();
    }

    private void stop() {
        if (!closed.compareAndSet(false, true)) return;
        if (manualClock != null) manualClock.release(catchUp);
        if (clusterNode != null) clusterState.onPublish(clusterNode, null);
        try {
            if (network != null) network.close();
            if (thread != null) {
                thread.shutdown();
                // The keyspace thread has ended (with one io thread it was the event loop, which the
                // network's close stopped, so a task queued on it would never run): its last work is done here.
                context.stopCron();
                context.closeComponents();
            }
            if (dispatcher != null) dispatcher.close();
            if (context != null) context.persistence().close();
            if (ownDir != null) deleteQuietly(ownDir);
        } finally {
            stopped.countDown();
        }
        log.trace("Cinnabar on port {} stopped", port);
    }

    private static void deleteQuietly(java.nio.file.Path dir) {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | RuntimeException e) {
            // a temporary directory left behind harms nothing
        }
    }

    /**
     * Builds a server from config options; every option name conf/cinnabar.conf documents works here.
     * Without a "dir" option the server gets a temporary directory of its own, deleted when it
     * stops: it starts empty whatever dump.rdb the working directory holds, and its SAVE,
     * BGSAVE or CONFIG SET appendonly yes leave nothing in the working directory.
     */
    public static final class Builder {
        private final Map<String, String> options = new LinkedHashMap<>();
        private ManualClock clock;

        private Builder() {
            // Embedded servers should not write dump files into the working directory by default.
            options.put("save", "");
            options.put("bind", "127.0.0.1");
        }

        public Builder port(int port) {
            return option("port", Integer.toString(port));
        }

        public Builder bind(String addresses) {
            return option("bind", addresses);
        }

        public Builder requirePass(String password) {
            return option("requirepass", password);
        }

        /**
         * The server's time is clock, which stands still until the test moves it (sets
         * {@code clock manual}: CINNABAR CLOCK moves the same clock when test commands are enabled).
         */
        public Builder clock(ManualClock clock) {
            this.clock = java.util.Objects.requireNonNull(clock, "clock");
            return option("clock", "manual");
        }

        /** Any config option by its conf-file name, e.g. option("hz", "100"). */
        public Builder option(String name, String value) {
            options.put(name, value);
            return this;
        }

        public CinnabarServer build() {
            Config config = new Config();
            for (Map.Entry<String, String> o : options.entrySet()) {
                try {
                    config.set(o.getKey(), o.getValue());
                } catch (ConfigException e) {
                    throw new IllegalArgumentException("Bad option " + o.getKey() + " '" + o.getValue() + "': "
                            + e.getMessage());
                }
            }
            java.nio.file.Path ownDir = null;
            if (options.keySet().stream().noneMatch("dir"::equalsIgnoreCase)) {
                try {
                    ownDir = TemporaryDirectory.create("cinnabar-");
                    config.set("dir", ownDir.toString());
                } catch (java.io.IOException | ConfigException e) {
                    throw new IllegalStateException("Cannot make the server's temporary directory: " + e.getMessage(), e);
                }
            }
            CinnabarServer server = new CinnabarServer(config, clock);
            server.ownDir = ownDir;
            return server;
        }
    }
}
