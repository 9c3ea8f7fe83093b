package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;
import io.cinnabar.persistence.LoadSources;
import io.cinnabar.persistence.ReplicationPoint;
import io.cinnabar.persistence.RespCommandBuffer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * This server as a replica: the master REPLICAOF (or the replicaof option) names, and the link to
 * it, as Redis's replication.c runs it on the replica's side. The link connects at once and then
 * from the once-a-second cron while it is down. Its handshake ends with PSYNC: of the stream
 * where a link that was up stopped (Redis's cached master), which the master may continue
 * (+CONTINUE), else "? -1", a full resynchronisation (the payload replaces the data set and
 * becomes the dump file). The stream runs as the master client's commands, acknowledged every
 * second and when the master asks (REPLCONF GETACK). Meanwhile the replica serves what it holds,
 * refuses writes under replica-read-only, and leaves expiring to its master. Keyspace thread.
 */
public final class MasterLink {
    public static final String READONLY = "READONLY You can't write against a read only replica.";
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MasterLink.class);
    private static final ConfigOption READ_ONLY = Config.option("replica-read-only");
    private static final ConfigOption REPLICAOF = Config.option("replicaof");
    private static final ConfigOption IGNORE_MAXMEMORY = Config.option("replica-ignore-maxmemory");
    private static final ConfigOption SERVE_STALE = Config.option("replica-serve-stale-data");
    private static final ConfigOption DISKLESS_LOAD = Config.option("repl-diskless-load");

    /** Redis's repl_state, as ROLE names it. */
    private enum State {
        CONNECT("connect"), CONNECTING("connecting"), HANDSHAKE("handshake"), TRANSFER("sync"), CONNECTED("connected");

        final String role;

        State(String role) {
            this.role = role;
        }
    }

    private final ServerContext server;
    private final Config config;
    private String host;
    private int port;
    private State state = State.CONNECT;
    private MasterConnector.Link link;
    /** The events of the current link: those of links closed since are ignored. */
    private Attempt attempt;
    private Client master;
    /** The master's replication id and the stream offset this replica has run up to. */
    private String masterReplid;
    private long offset;
    /** The requests of a transaction the master client is queuing: they count once it ends (Redis's reploff). */
    private final List<byte[]> uncommitted = new ArrayList<>();
    private long lastIoMs, downSinceMs, transferRead, transferSize, transferLastIoMs;
    /** See {@link #loadingPayload} and {@link #asyncLoadingPayload}. */
    private boolean payloadLoading, payloadServesOldData, payloadSwapsDb;
    private long payloadSinceSeconds;
    /**
     * Redis's cached master: where the stream stood when a link that was up went down (its
     * replication id, offset and the master client's database), for a PSYNC that continues it.
     */
    private String cachedReplid;
    private long cachedOffset;
    private int cachedDb;
    private ClockTimers.Deadline everySecond;
    /** A FAILOVER in progress: told whether the target took over (its PSYNC ... FAILOVER answer), else null. */
    private FailoverOutcome failover;

    /** What a FAILOVER waits to hear from the link to its target. */
    public interface FailoverOutcome {
        /** The target became master and serves this server (+CONTINUE, or +FULLRESYNC). */
        void accepted();

        /** The target answered PSYNC ... FAILOVER with an error. */
        void refused();
    }

    /** Follows the configuration's replicaof ("host port", or "" for none) from the start. */
    MasterLink(ServerContext server, Config config) {
        this.server = server;
        this.config = config;
        String[] hostPort = config.getString(REPLICAOF).split(" ");
        if (hostPort.length == 2) {
            host = hostPort[0];
            port = Integer.parseInt(hostPort[1]);
            server.keyspace().replica(true);
            server.history().follow();
        }
    }

    /**
     * Once the server runs and its data is loaded: a configured master is connected to by the
     * cron, within a second, as Redis's replicationCron first connects (ROLE says "connect" until then).
     */
    public void start() {
        if (host != null) tickEverySecond();
    }

    /** The master's host, or null while this server is a master. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /**
     * REPLICAOF host port; CONFIG GET replicaof (and CONFIG REWRITE) show it, as Redis's do. The
     * new master is asked to continue the stream this server's data is at: a master's own (Redis's
     * replicationCacheMasterUsingMyself), or the one a link that was up ran, so that after a
     * failover the replicas, and the old master, continue from the promoted replica.
     */
    public void follow(String host, int port) {
        boolean wasMaster = this.host == null;
        if (wasMaster && server.blocked() != null) server.blocked().disconnectAll();
        if (state == State.CONNECTED) cacheMaster();
        disconnect();
        if (wasMaster) {
            server.feed().flushTap();
            cachedReplid = server.history().id();
            cachedOffset = server.history().offset();
            cachedDb = 0; // the new master's stream from here on starts with a SELECT
        }
        server.history().follow();
        disconnectReplicas();
        this.host = host;
        this.port = port;
        server.keyspace().replica(true);
        remember(new String[] {host, Integer.toString(port)});
        downSinceMs = 0;
        connectSoon();
    }

    /**
     * FAILOVER's last step: this server follows target, asking it with PSYNC ... FAILOVER to become
     * master first (Redis's replicationSetMaster during FAILOVER_IN_PROGRESS); outcome hears how.
     */
    public void failoverTo(String host, int port, FailoverOutcome outcome) {
        follow(host, port);
        failover = outcome;
    }

    /**
     * REPLICAOF NO ONE: the link goes, the data stays, and this server starts a history of its own,
     * its master's kept as the second one (replicationUnsetMaster).
     */
    public void drop() {
        disconnect();
        host = null;
        failover = null;
        cachedReplid = null;
        server.keyspace().replica(false);
        remember(new String[] {"no", "one"});
        server.history().promote();
        disconnectReplicas();
        server.persistence().restartAppendOnly();
    }

    /** This server's own replicas: told to reconnect, since the stream they follow here changed. */
    private void disconnectReplicas() {
        ReplicaLinks replicas = server.component(ReplicaLinks.class, null);
        if (replicas != null) replicas.disconnectAll();
    }

    private void remember(String[] replicaof) {
        try {
            config.set(REPLICAOF, replicaof);
        } catch (io.cinnabar.config.ConfigException e) {
            throw new IllegalStateException(e); // a port REPLICAOF accepted always parses
        }
    }

    private void disconnect() {
        MasterConnector.Link l = link;
        link = null;
        attempt = null;
        master = null;
        state = State.CONNECT;
        if (l != null) l.close();
    }

    /** Redis's "server.masterhost && server.repl_slave_ro": writes from clients other than the master are refused. */
    public static boolean refusesWrites(ServerContext server, Client client) {
        MasterLink link = server.masterLink();
        return link.host != null && client != link.master && server.config().getBool(READ_ONLY);
    }

    /** Redis's isSafeToPerformEvictions: a replica under replica-ignore-maxmemory leaves evicting to its master. */
    static boolean ignoresMaxmemory(ServerContext server) {
        return server.masterLink().host != null && server.config().getBool(IGNORE_MAXMEMORY);
    }

    /**
     * replica-serve-stale-data no: while the link is down, only commands flagged stale (INFO,
     * REPLICAOF, ..., scripts declaring allow-stale) run; the others get MASTERDOWN.
     */
    public static boolean deniesStale(ServerContext server, int callFlags) {
        return (callFlags & CommandSpec.CallFlags.STALE) == 0 && runningStale(server);
    }

    /** A replica whose link is down under replica-serve-stale-data no. */
    public static boolean runningStale(ServerContext server) {
        MasterLink link = server.masterLink();
        return link.host != null && link.state != State.CONNECTED && !server.config().getBool(SERVE_STALE);
    }

    public static final String MASTERDOWN = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";

    // ---- the cron ----

    private void connectSoon() {
        server.thread().execute(() -> {
            if (host != null && state == State.CONNECT && link == null) connect();
        });
        tickEverySecond();
    }

    private void tickEverySecond() {
        if (everySecond == null) everySecond = server.timers().at(now() + 1000, this::everySecond);
    }

    /** replicationCron, the replica's part: reconnect, time out, acknowledge. */
    private void everySecond() {
        everySecond = null;
        if (host == null) return;
        long timeoutMs = config.getLong(Config.option("repl-timeout")) * 1000;
        long idleMs = now() - lastIoMs;
        switch (state) {
            case CONNECT -> {
                if (link == null) connect();
            }
            case CONNECTING, HANDSHAKE -> {
                if (idleMs > timeoutMs) {
                    log.warn("Timeout connecting to the MASTER...");
                    dropLink();
                }
            }
            case TRANSFER -> {
                if (now() - transferLastIoMs > timeoutMs) {
                    log.warn("Timeout receiving bulk data from MASTER... If the problem persists try to set the "
                            + "'repl-timeout' parameter in redis.conf to a larger value.");
                    dropLink();
                }
            }
            case CONNECTED -> {
                if (idleMs > timeoutMs) {
                    log.warn("MASTER timeout: no data nor PING received...");
                    dropLink();
                } else {
                    link.ack(offset);
                }
            }
        }
        tickEverySecond();
    }

    private void dropLink() {
        MasterConnector.Link l = link;
        if (l != null) l.close();
    }

    private void connect() {
        MasterConnector connector = server.component(MasterConnector.class, null);
        // Not listening yet, or loading the data at start-up: start() connects once it is loaded.
        if (connector == null || server.keyspace().isLoading()) return;
        log.info("Connecting to MASTER {}:{}", host, port);
        state = State.CONNECTING;
        lastIoMs = now();
        // Redis's name for a transfer's temp file: temp-<unixtime>.<pid>.tmp, beside the dump.
        Path payload = server.persistence().rdb().dumpFile().resolveSibling(
                "temp-" + System.currentTimeMillis() / 1000 + "." + ProcessHandle.current().pid() + ".tmp");
        log.info("MASTER <-> REPLICA sync started");
        attempt = new Attempt();
        link = connector.connect(host, port, handshake(), payload, attempt);
    }

    /** PING, AUTH when masterauth is set, REPLCONF listening-port and capa, PSYNC: syncWithMaster's order. */
    private List<byte[][]> handshake() {
        List<byte[][]> steps = new ArrayList<>();
        steps.add(command("PING"));
        String auth = config.getString(Config.option("masterauth"));
        if (!auth.isEmpty()) {
            String user = config.getString(Config.option("masteruser"));
            steps.add(user.isEmpty() ? command("AUTH", auth) : command("AUTH", user, auth));
        }
        long announced = config.getLong(Config.option("replica-announce-port"));
        steps.add(command("REPLCONF", "listening-port", Long.toString(announced != 0 ? announced : server.port())));
        String ip = config.getString(Config.option("replica-announce-ip"));
        if (!ip.isEmpty()) steps.add(command("REPLCONF", "ip-address", ip));
        steps.add(command("REPLCONF", "capa", "eof", "capa", "psync2"));
        // A link that was up goes on where it stopped, if the master still holds that part of the stream.
        String[] psync = cachedReplid != null ? new String[] {"PSYNC", cachedReplid, Long.toString(cachedOffset + 1)}
                : new String[] {"PSYNC", "?", "-1"};
        if (failover != null) {
            psync = java.util.Arrays.copyOf(psync, 4);
            psync[3] = "FAILOVER";
        }
        steps.add(command(psync));
        return steps;
    }

    private static byte[] encode(byte[][] argv) {
        return RespCommandBuffer.encode(argv);
    }

    private static byte[][] command(String... words) {
        byte[][] c = new byte[words.length][];
        for (int i = 0; i < words.length; i++) c[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return c;
    }

    private long now() {
        return server.keyspace().mstime();
    }

    /** One connection's events, which count only while it is the current one. */
    private final class Attempt implements MasterConnector.Events {
        private boolean current() {
            return attempt == this;
        }

        @Override
        public void connected() {
            if (current()) MasterLink.this.connected();
        }

        @Override
        public void fullResync(String replid, long offset) {
            if (current()) MasterLink.this.fullResync(replid, offset);
        }

        @Override
        public void continued(String replid) {
            if (current()) MasterLink.this.continued(replid);
        }

        @Override
        public void psyncRefused(String reply) {
            if (current()) MasterLink.this.psyncRefused();
        }

        @Override
        public void receiving(long length) {
            if (current()) MasterLink.this.receiving(length);
        }

        @Override
        public void transferring(long read, long total) {
            if (current()) MasterLink.this.transferring(read, total);
        }

        @Override
        public void payload(Path file) {
            if (current()) MasterLink.this.payload(file); else deleteQuietly(file);
        }

        @Override
        public void run(Runnable batch) {
            if (current()) MasterLink.this.run(batch);
        }

        @Override
        public void heard() {
            if (current()) lastIoMs = now();
        }

        @Override
        public void closed(String why) {
            if (current()) MasterLink.this.closed(why);
        }
    }

    private void connected() {
        log.info("Non blocking connect for SYNC fired the event.");
        state = State.HANDSHAKE;
        lastIoMs = now();
    }

    private void fullResync(String replid, long offset) {
        if (link == null) return;
        log.info("Full resync from master: {}:{}", replid, offset);
        failoverAccepted();
        cachedReplid = null;
        masterReplid = replid;
        this.offset = offset;
        state = State.TRANSFER;
        transferRead = 0;
        transferSize = -1;
        transferLastIoMs = now();
    }

    private void failoverAccepted() {
        FailoverOutcome f = failover;
        failover = null;
        if (f != null) f.accepted();
    }

    /** The PSYNC got an error: a FAILOVER asking it gives up (its target is not taking over). */
    private void psyncRefused() {
        FailoverOutcome f = failover;
        failover = null;
        if (f != null) f.refused();
    }

    /**
     * The payload begins. Under repl-diskless-load (Redis's useDisklessLoad) it counts as loading
     * from here, as Redis parses it as it comes; a swapdb load of the history this replica
     * follows serves the old data meanwhile (async loading). It still goes to a file first.
     */
    private void receiving(long length) {
        String diskless = server.config().getString(DISKLESS_LOAD);
        payloadSwapsDb = diskless.equals("swapdb");
        payloadLoading = payloadSwapsDb || (diskless.equals("on-empty-db") && server.keyspace().totalKeys() == 0);
        payloadServesOldData = payloadSwapsDb && masterReplid != null && masterReplid.equalsIgnoreCase(server.history().id());
        String to = payloadLoading ? "to parser" : "to disk";
        if (length < 0) log.info("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF {}", to);
        else log.info("MASTER <-> REPLICA sync: receiving {} bytes from master {}", length, to);
        if (!payloadLoading) return;
        payloadSinceSeconds = now() / 1000;
        if (!payloadSwapsDb) log.info("MASTER <-> REPLICA sync: Flushing old data");
        log.info("MASTER <-> REPLICA sync: Loading DB in memory");
    }

    private void transferring(long read, long total) {
        transferRead = read;
        transferSize = total;
        transferLastIoMs = now();
    }

    private void payload(Path file) {
        MasterConnector.Link l = link;
        boolean swapped = payloadLoading && payloadSwapsDb;
        if (!payloadLoading) {
            log.info("MASTER <-> REPLICA sync: Flushing old data");
            log.info("MASTER <-> REPLICA sync: Loading DB in memory");
        }
        payloadLoading = false;
        DataSets.MasterPayload loaded = server.dataSets().loadFromMaster(file);
        if (loaded.error() != null) {
            log.warn(loaded.error());
            deleteQuietly(file);
            l.close();
            return;
        }
        if (swapped) {
            log.info("MASTER <-> REPLICA sync: Swapping active DB with loaded DB");
            log.info("MASTER <-> REPLICA sync: Discarding old DB in background");
        }
        log.info("MASTER <-> REPLICA sync: Finished with success");
        server.history().restartAt(masterReplid, offset);
        disconnectReplicas();
        streamFrom(l, loaded.streamDb());
        // The first ACK puts this replica online on a master that waits for it (a diskless sync).
        l.ack(offset);
    }

    /** The master accepted PSYNC: the stream goes on from the cached offset, in the cached database. */
    private void continued(String replid) {
        MasterConnector.Link l = link;
        if (l == null || cachedReplid == null) return;
        log.info("Successful partial resynchronization with master.");
        failoverAccepted();
        masterReplid = replid.isEmpty() ? cachedReplid : replid;
        if (!masterReplid.equalsIgnoreCase(cachedReplid)) {
            log.warn("Master replication ID changed to {}", masterReplid);
            server.history().continueAs(masterReplid);
            disconnectReplicas();
        }
        offset = cachedOffset;
        int db = cachedDb;
        cachedReplid = null;
        log.info("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        streamFrom(l, db);
    }

    /** The master client runs the stream from offset on. */
    private void streamFrom(MasterConnector.Link l, int db) {
        uncommitted.clear();
        master = new Client(server.nextClientId(), l.clientChannel(), true);
        master.replyOff(true);
        master.replicaFlags(ReplicaFlags.MASTER);
        master.db = db;
        server.addClient(master);
        state = State.CONNECTED;
        lastIoMs = now();
        downSinceMs = 0;
        l.stream(master);
    }

    private static void deleteQuietly(Path file) {
        try {
            java.nio.file.Files.deleteIfExists(file);
        } catch (java.io.IOException ignored) {
            // a temp file left behind is only space
        }
    }

    private void run(Runnable batch) {
        lastIoMs = now();
        server.keyspace().obeyingMaster(true);
        try {
            batch.run();
        } finally {
            server.keyspace().obeyingMaster(false);
        }
    }

    /**
     * The master client ran request: the offset moves past it, as Redis's reploff after each
     * command (inside MULTI, at its end). Only what ran counts, so a link that drops, or a client
     * killed with requests still queued, continues from the first request that did not run. What
     * counts joins this server's own stream, byte for byte as the master sent it (a master sends
     * each command as a multibulk request, which encode gives back exactly).
     */
    void ran(Client client, byte[][] request) {
        if (client != master) return;
        if (client.multi != null) {
            uncommitted.add(encode(request));
            return;
        }
        for (byte[] part : uncommitted) {
            offset += part.length;
            server.history().write(part);
        }
        uncommitted.clear();
        offset += server.history().writeCommand(request);
    }

    private void closed(String why) {
        boolean wasUp = state == State.CONNECTED;
        if (why != null) log.warn(why);
        if (payloadLoading) {
            // What Redis's parser says of a payload cut short, and it keeps (swapdb) or empties its data.
            log.warn("Internal error in RDB reading offset {}, function at rdb.c:0 -> Unexpected EOF reading RDB file. "
                    + "Failure loading rdb format from socket, assuming connection error, resuming operation.", transferRead);
            log.warn("Failed trying to load the MASTER synchronization DB from socket: Connection reset by peer");
            if (payloadSwapsDb) log.info("MASTER <-> REPLICA sync: Discarding temporary DB in background");
            payloadLoading = false;
        }
        if (wasUp) cacheMaster();
        link = null;
        attempt = null;
        master = null;
        state = State.CONNECT;
        if (wasUp || downSinceMs == 0) downSinceMs = now();
    }

    /** Redis's replicationCacheMaster: where the stream stood, for a PSYNC that continues it. */
    private void cacheMaster() {
        if (master == null) return;
        cachedReplid = masterReplid;
        cachedOffset = offset;
        cachedDb = master.db;
    }

    /**
     * REPLCONF GETACK: an ACK to the master at once, with the offset before the GETACK (which
     * counts once it ran), as Redis's replicationSendAck sends it.
     */
    public void getAck(Client client) {
        MasterConnector.Link l = link;
        if (l == null || master == null) return;
        l.ack(offset);
    }

    // ---- the stream's place, for dumps, restarts and replicas of this one ----

    /**
     * Where the data stands in a replication stream, for a dump file (Redis's rdbPopulateSaveInfo):
     * a master's with a backlog, a replica's as run so far (or as cached while its link is down);
     * null when the server is in no replication chain.
     */
    public ReplicationPoint savePoint() {
        ReplicationHistory history = server.history();
        if (host == null) {
            if (history.backlog() == null) return null;
            server.feed().flushTap();
            return new ReplicationPoint(history.id(), history.offset(), 0);
        }
        if (master != null) return new ReplicationPoint(history.id(), offset, master.db);
        return cachedReplid == null ? null : new ReplicationPoint(cachedReplid, cachedOffset, cachedDb);
    }

    /**
     * Start-up loaded a dump that says where its data was in a replication stream: a replica asks
     * its master to continue from there, a master keeps it as its second history, after which come
     * the deletions of the keys it found expired, for its replicas still hold them.
     */
    public void restore(ReplicationPoint saved, List<LoadSources.ExpiredKey> expiredKeys) {
        if (host == null) {
            server.history().restoreAsMaster(saved.id(), saved.offset());
            byte[] del = (config.getBool(io.cinnabar.config.ConfigOptions.LAZYFREE_LAZY_EXPIRE) ? "UNLINK" : "DEL")
                    .getBytes(StandardCharsets.US_ASCII);
            int db = -1;
            for (var expired : expiredKeys == null ? List.<LoadSources.ExpiredKey>of() : expiredKeys) {
                if (expired.db() != db) {
                    db = expired.db();
                    server.history().writeCommand(command("SELECT", Integer.toString(db)));
                }
                server.history().writeCommand(new byte[][] {del, expired.key()});
            }
            return;
        }
        server.history().restartAt(saved.id(), saved.offset());
        cachedReplid = saved.id();
        cachedOffset = saved.offset();
        cachedDb = saved.streamDb();
    }

    /** The database the master's stream is in here (0 on a master, whose stream to replicas starts with a SELECT). */
    public int streamDb() {
        return master != null ? master.db : 0;
    }

    // ---- what ROLE and INFO show ----

    /** ROLE's state: connect, connecting, handshake, sync or connected. */
    public String roleState() {
        return state.role;
    }

    /** The offset run so far while a master client exists, else -1 (ROLE). */
    public long masterOffset() {
        return master != null ? offset : -1;
    }

    /** INFO's slave_repl_offset: 1 before any master client, as Redis's. */
    public long replicaOffset() {
        return master != null ? offset : 1;
    }

    public boolean linkUp() {
        return state == State.CONNECTED;
    }

    public boolean syncing() {
        return state == State.TRANSFER;
    }

    /** master_last_io_seconds_ago: -1 without a master client. */
    public long lastIoSecondsAgo() {
        return master != null ? (now() - lastIoMs) / 1000 : -1;
    }

    /** master_link_down_since_seconds: -1 when it never was up. */
    public long downSinceSeconds() {
        return downSinceMs != 0 ? (now() - downSinceMs) / 1000 : -1;
    }

    public long transferRead() {
        return transferRead;
    }

    /**
     * A full sync's payload is arriving under repl-diskless-load, where Redis loads it as it
     * comes: the server is loading (INFO loading, and commands but LOADING-flagged ones get
     * LOADING). The data stays as it was until the payload is whole, and is kept if it never is.
     */
    public boolean loadingPayload() {
        return payloadLoading && !payloadServesOldData;
    }

    /**
     * As {@link #loadingPayload}, for a payload of the history this replica follows under
     * repl-diskless-load swapdb: the old data is served meanwhile (INFO async_loading), and only
     * commands flagged no-async-loading get LOADING.
     */
    public boolean asyncLoadingPayload() {
        return payloadLoading && payloadServesOldData;
    }

    /** When the payload that counts as loading began to arrive (INFO loading_start_time). */
    public long payloadSinceSeconds() {
        return payloadSinceSeconds;
    }

    public long transferSize() {
        return transferSize;
    }

    public long transferLastIoSecondsAgo() {
        return (now() - transferLastIoMs) / 1000;
    }

    /** The offset of this replica's data: what INFO's master_repl_offset shows on a replica. */
    public long offset() {
        return offset;
    }
}
