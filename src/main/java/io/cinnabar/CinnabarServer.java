package io.cinnabar;

import io.cinnabar.command.CommandTable;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.KeyspaceThread;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigException;
import io.cinnabar.network.NettyServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
    private int port = -1;

    public CinnabarServer(Config config) {
        this.config = config;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the keyspace thread and binds the port. Fails fast with an {@link IllegalStateException}
     * naming the address when the port cannot be bound; nothing is left running then.
     */
    public synchronized CinnabarServer start() {
        if (thread != null) throw new IllegalStateException("already started");
        thread = new KeyspaceThread("cinnabar-keyspace");
        context = new ServerContext(config, CommandTable.standard(), thread);
        context.onShutdown(this::close);
        Dispatcher dispatcher = new Dispatcher(context);
        // The network layer first: with one io thread the keyspace work runs on its event loop.
        network = new NettyServer(dispatcher);
        thread.start();
        thread.execute(context::startCron);
        try {
            port = network.bind();
        } catch (IOException e) {
            thread.shutdown();
            closed.set(true);
            stopped.countDown();
            throw new IllegalStateException(e.getMessage(), e);
        }
        context.port(port);
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

    /** Blocks until the server stops (SHUTDOWN or close()). */
    public void awaitTermination() throws InterruptedException {
        stopped.await();
    }

    public boolean isRunning() {
        return thread != null && !closed.get();
    }

    /** Stops accepting, closes every connection and ends all threads; the port is free on return. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            if (network != null) network.close();
            if (thread != null) {
                thread.execute(context::stopCron);
                thread.shutdown();
            }
        } finally {
            stopped.countDown();
        }
        log.debug("Cinnabar on port {} stopped", port);
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
