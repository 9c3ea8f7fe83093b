package io.cinnabar.command.server;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClockTimers;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Full syncs for replicas that want the RDB and nothing after it (REPLCONF rdb-only 1, as
 * redis-cli --rdb and --functions-rdb send), served as a Redis 7.0 master serves them: the client
 * waits, sent a newline a second, until a snapshot starts for it (a diskless one only after
 * repl-diskless-sync-delay seconds, so that other replicas can join, as Redis waits), then gets
 * "+FULLRESYNC id offset" if it asked with PSYNC, the payload ("$EOF:mark" ... mark when both
 * sides take diskless transfers, else "$length" and the dump file), and is disconnected. Cinnabar
 * has no replication stream yet, so replicas that want one are still refused. Keyspace thread only.
 */
final class ReplicaSyncs {
    private static final Logger log = LoggerFactory.getLogger(ReplicaSyncs.class);

    /** Client.replicaFlags bits: REPLCONF capa eof, rdb-only 1, rdb-filter-only functions; SYNC taken. */
    static final int CAPA_EOF = 1, RDB_ONLY = 2, FUNCTIONS_ONLY = 4, SYNCING = 8;
    /** Redis's RDB_EOF_MARK_SIZE. */
    private static final int MARK_SIZE = 40;
    private static final byte[] NEWLINE = {'\n'};
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A client that took SYNC; state as INFO's slaveN field says it. */
    private static final class Replica {
        final Client client;
        final boolean psync;
        final long sinceMs;
        String state = "wait_bgsave";

        Replica(Client client, boolean psync, long sinceMs) {
            this.client = client;
            this.psync = psync;
            this.sinceMs = sinceMs;
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

    private ReplicaSyncs(ServerContext server) {
        this.server = server;
    }

    static ReplicaSyncs of(ServerContext server) {
        return server.component(ReplicaSyncs.class, () -> new ReplicaSyncs(server));
    }

    /** SYNC, or PSYNC (then answered +FULLRESYNC first), from a client that asked REPLCONF rdb-only 1. */
    void add(Client client, boolean psync) {
        client.replicaFlags(client.replicaFlags() | SYNCING);
        // A replica's own commands get no replies (Redis's prepareClientToWrite): they would land in the payload.
        client.replyOff(true);
        log.info("Replica {} asks for synchronization", name(client));
        Replica replica = new Replica(client, psync, now());
        replicas.add(replica);
        waiting.add(replica);
        // syncCommand starts at once unless a diskless transfer waits for more replicas first.
        boolean waitsForOthers = diskless() && (client.replicaFlags() & CAPA_EOF) != 0 && delaySeconds() > 0;
        if (!waitsForOthers) startIfIdle();
        tickEverySecond();
    }

    private void tickEverySecond() {
        if (everySecond == null) everySecond = server.timers().at(now() + 1000, this::everySecond);
    }

    /** The server's clock, which a test may move: the wait and the newlines follow it, as Redis's cron follows unixtime. */
    private long now() {
        return server.keyspace().mstime();
    }

    /** replicationCron's part: newlines to whom waits, and the diskless transfer once it waited enough. */
    private void everySecond() {
        everySecond = null;
        waiting.removeIf(w -> w.client.closing());
        onDisk.removeIf(w -> w.client.closing());
        for (Replica w : waiting) w.client.channel().push(NEWLINE);
        for (Replica w : onDisk) w.client.channel().push(NEWLINE);
        if (!diskless.isEmpty() && diskless.stream().allMatch(r -> r.client.closing())) {
            log.warn("Diskless rdb transfer, last replica dropped, killing fork child.");
            server.persistence().rdb().killBgsave();
        }
        if (!waiting.isEmpty()) {
            long idleSeconds = (now() - waiting.get(0).sinceMs) / 1000;
            long most = config().getLong(Config.option("repl-diskless-sync-max-replicas"));
            if (!diskless() || (most > 0 && waiting.size() >= most) || idleSeconds >= delaySeconds()) startIfIdle();
        }
        if (!waiting.isEmpty() || !onDisk.isEmpty() || !diskless.isEmpty()) tickEverySecond();
    }

    /**
     * startBgsaveForReplication, once no snapshot runs: the replicas that want what the first one
     * wants (everything, or the functions only) share one; diskless when the config or a filter
     * asks for it and every one of them takes the EOF-marked payload.
     */
    private void startIfIdle() {
        waiting.removeIf(w -> w.client.closing());
        if (waiting.isEmpty() || server.persistence().snapshotRunning()) return;
        int wanted = waiting.get(0).client.replicaFlags() & FUNCTIONS_ONLY;
        List<Replica> group = new ArrayList<>();
        boolean allTakeEof = true;
        for (Replica w : waiting) {
            if ((w.client.replicaFlags() & FUNCTIONS_ONLY) != wanted) continue;
            group.add(w);
            allTakeEof &= (w.client.replicaFlags() & CAPA_EOF) != 0;
        }
        boolean socket = (diskless() || wanted != 0) && allTakeEof;
        String id = server.replicationId();
        if (!server.persistence().rdb().startForReplicas(!socket, wanted != 0, id, file -> send(group, socket, file))) return;
        waiting.removeAll(group);
        (socket ? diskless : onDisk).addAll(group);
        byte[] fullResync = ("+FULLRESYNC " + id + " 0\r\n").getBytes(StandardCharsets.US_ASCII);
        for (Replica w : group) if (w.psync) w.client.channel().push(fullResync);
    }

    /** The snapshot is written (file), or failed (null): each replica gets it and is let go. */
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
        if (channel == null) {
            // Redis drops the replicas of a snapshot that failed.
            for (Replica w : group) w.client.channel().close();
            if (socket) deleteQuietly(file);
            startIfIdle();
            return;
        }
        byte[] head, tail;
        try {
            if (socket) {
                tail = randomMark();
                head = ("$EOF:" + new String(tail, StandardCharsets.US_ASCII) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            } else {
                tail = new byte[0];
                head = ("$" + channel.size() + "\r\n").getBytes(StandardCharsets.US_ASCII);
            }
        } catch (IOException e) {
            head = tail = null;
        }
        AtomicInteger sending = new AtomicInteger(group.size());
        FileChannel open = channel;
        Runnable oneDone = () -> {
            if (sending.decrementAndGet() > 0) return;
            try {
                open.close();
            } catch (IOException ignored) {
                // read only
            }
            if (socket) deleteQuietly(file);
        };
        for (Replica w : group) {
            if (head == null || w.client.closing()) {
                w.client.channel().close();
                oneDone.run();
                continue;
            }
            if (!socket) w.state = "send_bulk";
            w.client.channel().sendFileThenClose(head, channel, tail, oneDone);
        }
        // The next group (replicas that want another payload) may start now.
        startIfIdle();
    }

    /** INFO replication's slaveN values, in the order the replicas asked: lag is 0 for a replica not online yet, as all of these. */
    List<String> infoLines() {
        replicas.removeIf(r -> r.client.closing());
        List<String> lines = new ArrayList<>(replicas.size());
        for (Replica r : replicas) lines.add("ip=" + host(r.client) + ",port=0,state=" + r.state + ",offset=0,lag=0");
        return lines;
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

    /** replicationGetSlaveName for a replica that gave no listening port. */
    private static String name(Client client) {
        return host(client) + ":<unknown-replica-port>";
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
