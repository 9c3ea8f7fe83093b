package io.cinnabar.command.server;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClockTimers;
import io.cinnabar.command.ReplicaLinks;
import io.cinnabar.command.ReplicaFlags;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.ClientOutputBufferLimit;
import io.cinnabar.config.Config;
import io.cinnabar.command.ReplicationBacklog;
import io.cinnabar.command.ReplicationHistory;
import io.cinnabar.persistence.ReplicationPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The master side of replication, as a Redis 7.0 master serves replicas (SYNC/PSYNC). A PSYNC
 * of this server's history (its replication id, or the second one up to where that ends, see
 * {@link ReplicationHistory}) from an offset the backlog still holds continues ("+CONTINUE",
 * then the backlog from there); any other gets a full resynchronisation. A master's backlog is
 * made with the first replica (and a new replication id, as Redis's) and kept, with its writes
 * feeding it, until repl-backlog-ttl seconds without replicas; a replica serves replicas of its
 * own once its link is up, with its master's stream as it ran here. A replica waits, sent a
 * newline a second, until a snapshot starts for it (a diskless one only after
 * repl-diskless-sync-delay seconds, so that others can join, as Redis waits); from that point
 * on the write feed's bytes are its stream. It gets "+FULLRESYNC id offset" if it asked with
 * PSYNC, the payload ("$EOF:mark" ... mark when diskless, else "$length" and the dump file), then
 * the stream meanwhile, which the backlog keeps for it (growing past its size if it must, as
 * Redis's shared replication buffer), then the stream as it comes, with a PING every
 * repl-ping-replica-period seconds; its REPLCONF ACKs say how far it got (INFO, ROLE, WAIT).
 * A client that asked REPLCONF rdb-only 1 (redis-cli --rdb) is let go after the payload.
 * Keyspace thread only.
 */
final class Replicas implements ReplicaLinks {
    private static final Logger log = LoggerFactory.getLogger(Replicas.class);

    /** Redis's RDB_EOF_MARK_SIZE. */
    private static final int MARK_SIZE = 40;
    private static final byte[] NEWLINE = {'\n'};
    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A client that took SYNC. */
    private static final class Replica {
        final Client client;
        final boolean psync;
        final long sinceMs;
        /** INFO's state: wait_bgsave, send_bulk, online. */
        String state = "wait_bgsave";
        /** The offset of the stream's first byte after its snapshot, which the backlog keeps until the payload is out; -1 once it streams (or for rdb-only). */
        long owedFrom = -1;
        boolean streaming;
        long ackOffset;
        long ackMs;

        Replica(Client client, boolean psync, long sinceMs) {
            this.client = client;
            this.psync = psync;
            this.sinceMs = sinceMs;
        }

        boolean rdbOnly() {
            return (client.replicaFlags() & ReplicaFlags.RDB_ONLY) != 0;
        }
    }

    private final ServerContext server;
    /** Every replica until its connection closes, in the order they asked. */
    private final List<Replica> replicas = new ArrayList<>();
    private final List<Replica> waiting = new ArrayList<>();
    /** Replicas whose snapshot goes to the dump file: sent newlines until it is written, as Redis does. */
    private final List<Replica> onDisk = new ArrayList<>();
    /** Replicas whose diskless snapshot is being written: once all are gone, it is stopped. */
    private final List<Replica> diskless = new ArrayList<>();
    private ClockTimers.Deadline everySecond;
    private long secondsTicked;
    /** The stream: its offset, and its last bytes, from the first replica on (null after repl-backlog-ttl without replicas). */
    private final ReplicationHistory history;

    private Replicas(ServerContext server) {
        this.server = server;
        this.history = server.history();
        history.onward(this::push, () -> !replicas.isEmpty());
        server.component(ReplicaLinks.class, () -> this);
    }

    static Replicas of(ServerContext server) {
        return server.component(Replicas.class, () -> new Replicas(server));
    }

    /** The server's replicas, or null when none ever asked (INFO and ROLE need not make them). */
    static Replicas ifAny(ServerContext server) {
        return server.component(Replicas.class, null);
    }

    /** SYNC, or PSYNC (then answered +FULLRESYNC first). */
    void add(Client client, boolean psync) {
        history.startBacklog();
        client.replicaFlags(client.replicaFlags() | ReplicaFlags.SYNCING);
        // A replica's own commands get no replies (Redis's prepareClientToWrite): they would land in its stream.
        client.replyOff(true);
        log.info("Replica {} asks for synchronization", name(client));
        Replica replica = new Replica(client, psync, now());
        replicas.add(replica);
        waiting.add(replica);
        // syncCommand starts at once unless a diskless transfer waits for more replicas first.
        boolean waitsForOthers = diskless() && (client.replicaFlags() & ReplicaFlags.CAPA_EOF) != 0 && delaySeconds() > 0;
        if (!waitsForOthers) startIfIdle();
        tickEverySecond();
    }

    /**
     * masterTryPartialResynchronization: a replica of this history whose next byte the backlog
     * holds gets "+CONTINUE" and the stream from there, and is online at once; true if so.
     */
    boolean tryContinue(Client client, String replid, long psyncOffset) {
        if (replid.startsWith("?")) {
            log.info("Full resync requested by replica {}", name(client));
            return false;
        }
        String mismatch = history.mismatch(replid, psyncOffset);
        if (mismatch != null) {
            log.info("Partial resynchronization not accepted: {}", mismatch);
            return false;
        }
        server.feed().flushTap();
        ReplicationBacklog backlog = history.backlog();
        if (backlog == null || !backlog.holdsFrom(psyncOffset)) {
            log.info("Unable to partial resync with replica {} for lack of backlog (Replica request was: {}).", name(client), psyncOffset);
            if (backlog != null && psyncOffset > history.offset()) {
                log.warn("Warning: replica {} tried to PSYNC with an offset that is greater than the master replication offset.",
                        name(client));
            }
            return false;
        }
        client.replicaFlags(client.replicaFlags() | ReplicaFlags.SYNCING);
        client.replyOff(true);
        Replica r = new Replica(client, true, now());
        boolean psync2 = (client.replicaFlags() & ReplicaFlags.CAPA_PSYNC2) != 0;
        client.channel().push(("+CONTINUE" + (psync2 ? " " + history.id() : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
        long missed = sendFrom(backlog, psyncOffset, client);
        r.streaming = true;
        r.state = "online";
        r.ackOffset = psyncOffset - 1;
        r.ackMs = now();
        replicas.add(r);
        log.info("Partial resynchronization request from {} accepted. Sending {} bytes of backlog starting from offset {}.",
                name(client), missed, psyncOffset);
        tickEverySecond();
        return true;
    }

    /** REPLCONF ACK offset from a replica: WAITs it completes are answered. */
    void ack(Client client, long ackOffset) {
        Replica r = find(client);
        if (r == null) return;
        if (ackOffset > r.ackOffset) r.ackOffset = ackOffset;
        r.ackMs = now();
        answerWaits();
    }

    /** A client blocked in WAIT: until numReplicas acknowledged target. */
    private record Wait(Client client, long target, long numReplicas) { }

    private final List<Wait> waits = new ArrayList<>();

    /** WAIT blocked client until numReplicas replicas acknowledged target (then answered with their count). */
    void waitFor(Client client, long target, long numReplicas) {
        // A client blocks once at a time: an entry left by a WAIT that ended otherwise goes.
        waits.removeIf(w -> w.client == client);
        waits.add(new Wait(client, target, numReplicas));
        askForAcks();
    }

    private void answerWaits() {
        for (java.util.Iterator<Wait> i = waits.iterator(); i.hasNext(); ) {
            Wait w = i.next();
            if (!w.client.blocked()) {
                i.remove(); // timed out, unblocked or gone
                continue;
            }
            int acked = acknowledged(w.target);
            if (acked < w.numReplicas) continue;
            i.remove();
            server.blocked().answer(w.client, "wait", out -> out.integer(acked));
        }
    }

    /** The stream so far includes every write already run: what a WAIT now waits for its replicas to reach. */
    long offsetNow() {
        server.feed().flushTap();
        return history.offset();
    }

    @Override
    public int goodReplicas(long maxLagSeconds) {
        int n = 0;
        long nowMs = now();
        for (Replica r : replicas) if (r.streaming && !r.client.closing() && (nowMs - r.ackMs) / 1000 <= maxLagSeconds) n++;
        return n;
    }

    @Override
    public void toReplicasOnly(byte[][] argv) {
        if (!streamIsOurs()) return;
        server.feed().flushTap();
        emit(io.cinnabar.persistence.RespCommandBuffer.encode(argv));
    }

    @Override
    public void disconnectAll() {
        for (Replica r : replicas) r.client.channel().close();
        dropClosed();
    }

    @Override
    public boolean inSync() {
        dropClosed();
        long end = offsetNow();
        for (Replica r : replicas) if (r.ackOffset != end) return false;
        return true;
    }

    @Override
    public void logLagging() {
        dropClosed();
        if (replicas.isEmpty()) return;
        long end = offsetNow();
        int lagging = 0;
        for (Replica r : replicas) {
            if (r.ackOffset == end) continue;
            lagging++;
            long lag = r.streaming ? (now() - r.ackMs) / 1000 : 0;
            log.warn("Lagging replica {} reported offset {} behind master, lag={}, state={}.", name(r.client), end - r.ackOffset, lag, r.state);
        }
        log.info("{} of {} replicas are in sync when shutting down.", replicas.size() - lagging, replicas.size());
    }

    /** A replica as FAILOVER sees it: its address, the port it listens on, and how far it acknowledged the stream. */
    record Target(String host, int port, boolean online, long ackOffset) { }

    /** The replica at host (the address it connected from) and port (its listening port), as Redis's findReplica; or null. */
    Target at(String host, int port) {
        dropClosed();
        for (Replica r : replicas) {
            if (host.equalsIgnoreCase(host(r.client)) && port == r.client.replicaPort()) {
                return new Target(host(r.client), port, r.streaming, r.ackOffset);
            }
        }
        return null;
    }

    /** The first replica online that acknowledged the whole stream, or null. */
    Target caughtUp() {
        dropClosed();
        long end = offsetNow();
        for (Replica r : replicas) {
            if (r.streaming && r.ackOffset == end) return new Target(host(r.client), r.client.replicaPort(), true, r.ackOffset);
        }
        return null;
    }

    boolean none() {
        dropClosed();
        return replicas.isEmpty();
    }

    @Override
    public boolean hasReplicas() {
        return !none();
    }

    /** Replicas online whose acknowledged offset reached target (WAIT's count). */
    int acknowledged(long target) {
        int n = 0;
        for (Replica r : replicas) if (r.streaming && !r.client.closing() && r.ackOffset >= target) n++;
        return n;
    }

    /** Asks every replica for its offset now (a blocked WAIT, a shutdown), through the stream as Redis does. */
    @Override
    public void askForAcks() {
        if (!streamIsOurs()) return;
        server.feed().flushTap();
        emit(GETACK);
    }

    /** Whether this server writes the stream (a master with a backlog), rather than passing its master's on. */
    private boolean streamIsOurs() {
        return history.backlog() != null && server.masterLink().host() == null;
    }

    private Replica find(Client client) {
        for (Replica r : replicas) if (r.client == client) return r;
        return null;
    }

    private void tickEverySecond() {
        if (everySecond == null) everySecond = server.timers().at(now() + 1000, this::everySecond);
    }

    /** The server's clock, which a test may move: waits, newlines and pings follow it, as Redis's cron follows unixtime. */
    private long now() {
        return server.keyspace().mstime();
    }

    /**
     * replicationCron's part: a PING into the stream every repl-ping-replica-period seconds,
     * newlines to whom waits, replicas gone silent past repl-timeout dropped, the diskless
     * transfer once it waited enough.
     */
    private void everySecond() {
        everySecond = null;
        secondsTicked++;
        dropClosed();
        long nowMs = now();
        // No PING while a FAILOVER waits for a replica to acknowledge the whole stream: it would move the end.
        boolean failoverWaits = Failover.running(server) && Failover.of(server).waiting();
        if (!replicas.isEmpty() && streamIsOurs() && !failoverWaits
                && secondsTicked % config().getLong(Config.option("repl-ping-replica-period")) == 0) {
            server.feed().flushTap();
            emit(PING);
        }
        for (Replica w : waiting) w.client.channel().push(NEWLINE);
        for (Replica w : onDisk) w.client.channel().push(NEWLINE);
        long timeoutMs = config().getLong(Config.option("repl-timeout")) * 1000;
        for (Replica r : replicas) {
            // A replica that came with SYNC (redis-cli --replica) sends no ACKs: Redis's CLIENT_PRE_PSYNC.
            if (r.streaming && r.psync && nowMs - r.ackMs > timeoutMs) {
                log.warn("Disconnecting timedout replica (streaming sync): {}", name(r.client));
                r.client.channel().close();
            }
        }
        if (!diskless.isEmpty() && diskless.stream().allMatch(r -> r.client.closing())) {
            log.warn("Diskless rdb transfer, last replica dropped, killing fork child.");
            server.persistence().rdb().killBgsave();
        }
        if (!waiting.isEmpty()) {
            long idleSeconds = (nowMs - waiting.get(0).sinceMs) / 1000;
            long most = config().getLong(Config.option("repl-diskless-sync-max-replicas"));
            if (!diskless() || (most > 0 && waiting.size() >= most) || idleSeconds >= delaySeconds()) startIfIdle();
        }
        if (!replicas.isEmpty() || history.backlog() != null) tickEverySecond();
    }

    private void dropClosed() {
        if (replicas.removeIf(r -> r.client.closing())) keepOwedStream();
        waiting.removeIf(w -> w.client.closing());
        onDisk.removeIf(w -> w.client.closing());
    }

    /** The backlog keeps the stream from the oldest byte a replica waiting for its payload is owed. */
    private void keepOwedStream() {
        ReplicationBacklog backlog = history.backlog();
        if (backlog == null) return;
        long oldest = Long.MAX_VALUE;
        for (Replica r : replicas) if (r.owedFrom >= 0 && !r.client.closing()) oldest = Math.min(oldest, r.owedFrom);
        backlog.keepFrom(oldest);
    }

    /** The backlog from offset on, to client, a block at a time; returns the bytes sent. */
    private static long sendFrom(ReplicationBacklog backlog, long offset, Client client) {
        long[] sent = {0};
        backlog.from(offset, (bytes, off, len) -> {
            client.channel().push(Arrays.copyOfRange(bytes, off, off + len));
            sent[0] += len;
        });
        return sent[0];
    }

    /**
     * The bytes waiting to reach the replicas, which share them: the most any one replica has
     * not been sent yet (its connection's queue), as Redis's replicas refer to one buffer.
     */
    @Override
    public long pendingBytes() {
        long most = 0;
        for (Replica r : replicas) if (r.streaming && !r.client.closing()) most = Math.max(most, r.client.channel().pendingOutputBytes());
        return most;
    }

    /**
     * startBgsaveForReplication, once no snapshot runs: the replicas that want what the first one
     * wants (everything, or the functions only) share one; diskless when the config or a filter
     * asks for it and every one of them takes the EOF-marked payload. The stream of those that
     * want one starts where the snapshot does.
     */
    private void startIfIdle() {
        dropClosed();
        if (waiting.isEmpty() || server.persistence().snapshotRunning()) return;
        int wanted = waiting.get(0).client.replicaFlags() & ReplicaFlags.FUNCTIONS_ONLY;
        List<Replica> group = new ArrayList<>();
        boolean allTakeEof = true;
        for (Replica w : waiting) {
            if ((w.client.replicaFlags() & ReplicaFlags.FUNCTIONS_ONLY) != wanted) continue;
            group.add(w);
            allTakeEof &= (w.client.replicaFlags() & ReplicaFlags.CAPA_EOF) != 0;
        }
        boolean socket = (diskless() || wanted != 0) && allTakeEof;
        String id = history.id();
        // What was run before the snapshot goes to the replicas already streaming, not to these;
        // their stream starts with a SELECT, whichever database the feed's last command was in.
        // A replica passes its master's stream on as it came: the payload says which database
        // that stream is in (repl-stream-db).
        server.feed().flushTap();
        server.feed().forceSelect();
        long start = history.offset();
        ReplicationPoint where = new ReplicationPoint(id, start, server.masterLink().streamDb());
        if (!server.persistence().rdb().startForReplicas(!socket, wanted != 0, where, file -> send(group, socket, file))) return;
        waiting.removeAll(group);
        (socket ? diskless : onDisk).addAll(group);
        for (Replica w : group) {
            if (!w.rdbOnly()) w.owedFrom = start + 1;
        }
        keepOwedStream();
        byte[] fullResync = ("+FULLRESYNC " + id + " " + start + "\r\n").getBytes(StandardCharsets.US_ASCII);
        for (Replica w : group) {
            if (w.psync) w.client.channel().push(fullResync);
            w.ackOffset = start;
        }
    }

    /** Bytes this server adds to the stream (PING, GETACK, PUBLISH): counted and kept as its writes are, and sent. */
    private void emit(byte[] part) {
        history.write(part);
    }

    /**
     * Bytes of the stream: to the replicas streaming; those whose payload is not out yet find
     * them in the backlog, which counts against their output limit as Redis counts its shared
     * buffer from the block a replica refers to.
     */
    private void push(byte[] part) {
        long hardLimit = replicaHardLimit();
        for (Replica r : replicas) {
            if (r.streaming) {
                r.client.channel().push(part);
            } else if (r.owedFrom >= 0) {
                if (hardLimit > 0 && history.offset() + 1 - r.owedFrom >= hardLimit && !r.client.closing()) {
                    log.warn("Client {} scheduled to be closed ASAP for overcoming of output buffer limits.", name(r.client));
                    r.client.channel().close();
                }
            }
        }
    }

    /** The snapshot is written (file), or failed (null): each replica gets it; rdb-only ones are let go after it. */
    private void send(List<Replica> group, boolean socket, Path file) {
        onDisk.removeAll(group);
        diskless.removeAll(group);
        FileChannel channel = null;
        if (file != null) {
            try {
                channel = FileChannel.open(file, StandardOpenOption.READ);
            } catch (IOException e) {
                log.warn("Can't open the RDB file {} to send it to replicas: {}", file, e.toString());
            }
        }
        byte[] head = null, tail = null;
        try {
            if (channel != null && socket) {
                tail = randomMark();
                head = ("$EOF:" + new String(tail, StandardCharsets.US_ASCII) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            } else if (channel != null) {
                tail = new byte[0];
                head = ("$" + channel.size() + "\r\n").getBytes(StandardCharsets.US_ASCII);
            }
        } catch (IOException e) {
            head = null;
        }
        AtomicInteger sending = new AtomicInteger(group.size());
        FileChannel open = channel;
        Runnable oneDone = () -> {
            if (sending.decrementAndGet() > 0) return;
            try {
                if (open != null) open.close();
            } catch (IOException ignored) {
                // read only
            }
            if (socket) deleteQuietly(file);
        };
        for (Replica w : group) {
            if (head == null || w.client.closing()) {
                // Redis drops the replicas of a snapshot that failed.
                w.client.channel().close();
                oneDone.run();
                continue;
            }
            if (!socket) w.state = "send_bulk";
            boolean thenClose = w.rdbOnly();
            w.client.channel().sendFile(head, channel, tail, thenClose, () -> {
                oneDone.run();
                if (!thenClose) server.thread().execute(() -> online(w));
            });
        }
        if (channel == null && socket) deleteQuietly(file);
        // The next group (replicas that want another payload) may start now.
        startIfIdle();
    }

    /** The payload is out: what the backlog kept for it goes after it, then the stream as it comes. */
    private void online(Replica r) {
        if (r.client.closing() || r.owedFrom < 0) return;
        ReplicationBacklog backlog = history.backlog();
        if (backlog == null || !backlog.holdsFrom(r.owedFrom)) {
            log.warn("The stream after the snapshot of replica {} is gone: disconnecting it", name(r.client));
            r.client.channel().close();
            return;
        }
        sendFrom(backlog, r.owedFrom, r.client);
        r.owedFrom = -1;
        keepOwedStream();
        r.streaming = true;
        r.state = "online";
        r.ackMs = now();
        log.info("Synchronization with replica {} succeeded", name(r.client));
    }

    /** INFO replication's slaveN values, in the order the replicas asked. */
    List<String> infoLines() {
        dropClosed();
        List<String> lines = new ArrayList<>(replicas.size());
        long nowMs = now();
        for (Replica r : replicas) {
            long lag = r.streaming ? (nowMs - r.ackMs) / 1000 : 0;
            lines.add("ip=" + host(r.client) + ",port=" + r.client.replicaPort() + ",state=" + r.state + ",offset=" + r.ackOffset + ",lag=" + lag);
        }
        return lines;
    }

    /** ROLE's replicas: [ip, port, offset] of each past the wait for its snapshot. */
    List<List<String>> roleEntries() {
        dropClosed();
        List<List<String>> out = new ArrayList<>();
        for (Replica r : replicas) {
            if (waiting.contains(r)) continue;
            out.add(List.of(host(r.client), Integer.toString(r.client.replicaPort()), Long.toString(r.ackOffset)));
        }
        return out;
    }

    private long replicaHardLimit() {
        return ClientOutputBufferLimit.hardLimit(config(), ClientOutputBufferLimit.Limits.REPLICA);
    }

    private static byte[] randomMark() {
        byte[] mark = new byte[MARK_SIZE];
        for (int i = 0; i < MARK_SIZE; i++) mark[i] = (byte) "0123456789abcdef".charAt(RANDOM.nextInt(16));
        return mark;
    }

    private static void deleteQuietly(Path file) {
        try {
            if (file != null) Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // nothing more to do about a temp file we cannot delete
        }
    }

    /** replicationGetSlaveName: the listening port it gave, else "<unknown-replica-port>". */
    private static String name(Client client) {
        int port = client.replicaPort();
        return host(client) + ":" + (port > 0 ? Integer.toString(port) : "<unknown-replica-port>");
    }

    private static String host(Client client) {
        String address = client.channel().remoteAddress();
        int colon = address.lastIndexOf(':');
        return colon < 0 ? address : address.substring(0, colon);
    }

    private boolean diskless() {
        return config().getBool(Config.option("repl-diskless-sync"));
    }

    private long delaySeconds() {
        return config().getLong(Config.option("repl-diskless-sync-delay"));
    }

    private Config config() {
        return server.config();
    }
}
