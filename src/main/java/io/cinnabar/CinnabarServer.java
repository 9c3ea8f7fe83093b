package io.cinnabar;

import io.cinnabar.command.CommandTable;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.KeyspaceThread;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.config.ConfigException;
import io.cinnabar.network.NettyServer;
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
    private volatile int port = -1;
    private volatile boolean dataLoaded;

    public CinnabarServer(Config config) {
        this.config = config;
    }

    public static Builder builder() {
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
        listen();
        return loadData();
    }

    /**
     * The first half of {@link #start()}: threads started and the port bound, clients answered
     * with LOADING until {@link #loadData()} has loaded the data set (redis-server logs its
     * banner in between).
     */
    public synchronized CinnabarServer listen() {
        if (thread != null) throw new IllegalStateException("already started");
        NettyServer.warmUp();
        thread = new KeyspaceThread("cinnabar-keyspace");
        context = new ServerContext(config, CommandTable.standard(), thread);
        for (io.cinnabar.config.StartupDirectives.Rename r : config.directives().renames()) {
            String reason = context.commands().rename(r.name(), r.newName());
            if (reason != null) {
                thread = null;
                throw new io.cinnabar.config.ConfigStartupException(r.fatalText().apply(reason));
            }
        }
        // Users before the port opens (Redis's ACLLoadUsersAtStartup): a broken ACL file stops the start.
        String aclError = context.acl().loadAtStartup(config.directives().users(), config.getString(ConfigOptions.ACLFILE));
        if (aclError != null) {
            thread = null;
            throw new io.cinnabar.command.acl.AclStartupException(aclError);
        }
        context.onShutdown(this::close);
        context.keyspace().loading(true);
        Dispatcher dispatcher = new Dispatcher(context);
        // The network layer first: with one io thread the keyspace work runs on its event loop.
        network = new NettyServer(dispatcher);
        thread.start();
        context.persistence().start();
        thread.execute(context::startCron);
        try {
            port = network.bind();
        } catch (IOException e) {
            thread.shutdown();
            context.persistence().close();
            closed.set(true);
            stopped.countDown();
            throw new IllegalStateException(e.getMessage(), e);
        }
        context.port(port);
        config.onApply(ConfigOptions.PORT, () -> relisten("Unable to listen on this port. Check server logs."));
        config.onApply(ConfigOptions.BIND, () -> relisten("Failed to bind to specified addresses."));
        return this;
    }

    /** CONFIG SET port/bind (keyspace thread): null once listening as configured, else failure. */
    private String relisten(String failure) {
        if (network.rebind(config.getInt(ConfigOptions.PORT), config.getString(ConfigOptions.BIND)) != null) return failure;
        port = network.port();
        context.port(port);
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

    /** The port actually bound (useful with port 0). */
    public int port() {
        return port;
    }

    public String host() {
        return "127.0.0.1";
    }

    public Config config() {
        return config;
    }

    /** Empties every database, from any thread; returns once done (used between tests). */
    public void flushAll() {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        CountDownLatch done = new CountDownLatch(1);
        thread.execute(() -> {
            try {
                context.keyspace().flushAll();
            } finally {
                done.countDown();
            }
        });
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Drives the server's clock (unix ms) from source instead of the system's: tests see time pass without sleeping. */
    public void clock(java.util.function.LongSupplier source) {
        if (!isRunning()) throw new IllegalStateException("server is not running");
        context.keyspace().clock(source);
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
        if (dataLoaded && !context.shutdownStarted()) {
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
        try {
            if (network != null) network.close();
            if (thread != null) {
                thread.execute(context::stopCron);
                thread.shutdown();
            }
            if (context != null) context.persistence().close();
        } finally {
            stopped.countDown();
        }
        log.trace("Cinnabar on port {} stopped", port);
    }

    /** Builds a server from config options; every option name conf/cinnabar.conf documents works here. */
    public static final class Builder {
        private final Map<String, String> options = new LinkedHashMap<>();

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
            return new CinnabarServer(config);
        }
    }
}
