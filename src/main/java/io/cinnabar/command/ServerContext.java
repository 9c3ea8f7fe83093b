package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the keyspace thread owns besides the data itself: config, command table, clients,
 * statistics and the hooks the embedding server gives it (port, shutdown). Handlers reach it
 * through {@link Call#server()}.
 */
public final class ServerContext {
    private final Config config;
    private final Keyspace keyspace;
    private final CommandTable commands;
    private final KeyspaceThread thread;
    private final ServerStats stats = new ServerStats();
    private final BlockingRegistry blocking = new BlockingRegistry();
    private final Map<Long, Client> clients = new LinkedHashMap<>();
    private final AtomicLong nextClientId = new AtomicLong(1);
    private final long startTimeMs = System.currentTimeMillis();
    private final String runId;
    private volatile int port;
    private Runnable shutdownHook = () -> { };
    private boolean activeExpireEnabled = true;
    private long lastSaveSeconds = System.currentTimeMillis() / 1000;
    private KeyspaceThread.Timer cronTimer;

    public ServerContext(Config config, CommandTable commands, KeyspaceThread thread) {
        this.config = config;
        this.commands = commands;
        this.thread = thread;
        this.keyspace = new Keyspace(config.getInt(ConfigOptions.DATABASES));
        byte[] id = new byte[20];
        new SecureRandom().nextBytes(id);
        this.runId = HexFormat.of().formatHex(id);
    }

    public Config config() { return config; }
    public Keyspace keyspace() { return keyspace; }
    public CommandTable commands() { return commands; }
    public KeyspaceThread thread() { return thread; }
    public ServerStats stats() { return stats; }
    BlockingRegistry blocking() { return blocking; }
    /** Clients blocked on keys right now (INFO blocked_clients). */
    public int blockedClients() { return blocking.blockedClients(); }
    public long startTimeMs() { return startTimeMs; }
    public String runId() { return runId; }
    public int port() { return port; }
    public void port(int p) { port = p; }
    public long lastSaveSeconds() { return lastSaveSeconds; }
    public void lastSaveSeconds(long s) { lastSaveSeconds = s; }
    public boolean activeExpireEnabled() { return activeExpireEnabled; }
    public void activeExpireEnabled(boolean e) { activeExpireEnabled = e; }

    /** Allocates the next client id; any thread. */
    public long nextClientId() {
        return nextClientId.getAndIncrement();
    }

    public void addClient(Client c) {
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

    /** SHUTDOWN: hands the stop request to the embedding server (off the keyspace thread). */
    public void requestShutdown() {
        Thread t = new Thread(shutdownHook, "cinnabar-shutdown");
        t.setDaemon(false);
        t.start();
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

    private void cron() {
        if (!activeExpireEnabled) return;
        long hz = config.getLong(ConfigOptions.HZ);
        long effort = config.getLong(ConfigOptions.ACTIVE_EXPIRE_EFFORT) - 1;
        // Redis: 25% of each cron tick's time, a bit more with higher effort.
        long budgetMicros = (25 + 2 * effort) * 1_000_000L / hz / 100;
        keyspace.activeExpireCycle(budgetMicros);
    }

    public void stopCron() {
        if (cronTimer != null) cronTimer.cancel();
    }

    public boolean requirePass() {
        return !config.getString(ConfigOptions.REQUIREPASS).isEmpty();
    }
}
