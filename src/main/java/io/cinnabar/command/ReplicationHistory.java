package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;
import io.cinnabar.persistence.RespCommandBuffer;
import io.cinnabar.persistence.WriteFeed;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The replication stream this server's data is at, as Redis keeps it in replid, replid2,
 * second_replid_offset, master_repl_offset and repl_backlog: on a master, the bytes its writes
 * make (the write feed's, once a backlog exists); on a replica, its master's stream as it ran,
 * byte for byte, so that its offsets are its master's. A replica promoted keeps its master's id as
 * the second one, up to where it got: replicas of that master, and the old master itself, then
 * continue with it (PSYNC ... +CONTINUE) instead of starting over. Keyspace thread only.
 */
public final class ReplicationHistory implements WriteFeed.Tap {
    private static final String NO_ID = "0000000000000000000000000000000000000000";
    private static final int ENCODED_CAPACITY = 4096;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ReplicationHistory.class);
    private static final ConfigOption BACKLOG_SIZE = Config.option("repl-backlog-size");
    private static final ConfigOption BACKLOG_TTL = Config.option("repl-backlog-ttl");

    private final WriteFeed feed;
    private final Config config;
    /** master_replid, made when first asked for (see randomId); replid2 and second_repl_offset. */
    private String id, id2 = NO_ID;
    private long secondOffset = -1;
    /** master_repl_offset: the offset of the stream's last byte. */
    private long offset;
    private ReplicationBacklog backlog;
    /** Whether the stream is a master's, run here (then the feed's bytes are not part of it). */
    private boolean following;
    /** Since when a master's backlog has had no replica (repl-backlog-ttl counts from then); 0 while it has. */
    private long aloneSinceMs;
    /** Who sends the stream on (the replicas), or null; and whether it has anyone to send it to. */
    private Consumer<byte[]> onward;
    private BooleanSupplier onwardWanted;
    /** Where a replica's commands from its master are encoded for the backlog (see writeCommand). */
    private RespCommandBuffer encoded = new RespCommandBuffer(ENCODED_CAPACITY);

    ReplicationHistory(WriteFeed feed, Config config) {
        this.feed = feed;
        this.config = config;
        config.onChange(o -> {
            if (o == BACKLOG_SIZE) resizeBacklog();
        });
    }

    public String id() {
        if (id == null) id = randomId();
        return id;
    }

    public String secondId() {
        return id2;
    }

    public long secondOffset() {
        return secondOffset;
    }

    public long offset() {
        return offset;
    }

    /** The backlog, or null when there is none. */
    public ReplicationBacklog backlog() {
        return backlog;
    }

    /** Where the stream's bytes go on to, besides the backlog (the replicas), while wanted says there is anyone. */
    public void onward(Consumer<byte[]> to, BooleanSupplier wanted) {
        onward = to;
        onwardWanted = wanted;
    }

    /** Bytes of the stream, given away: counted, kept in the backlog, sent on. */
    public void write(byte[] part) {
        write(part, 0, part.length, false);
    }

    /**
     * A command of a master's stream, which a replica ran: its multibulk request, which is how
     * the master sent it, joins the stream. It is encoded where it is copied into the backlog
     * (an array of its own only for replicas of this one); returns its length in the stream.
     */
    public int writeCommand(byte[][] argv) {
        encoded.clear();
        encoded.command(argv);
        int n = encoded.size();
        write(encoded.array(), 0, n, true);
        if (encoded.array().length > 64 * ENCODED_CAPACITY) encoded = new RespCommandBuffer(ENCODED_CAPACITY);
        return n;
    }

    /** len bytes from off: lent ones are copied for whoever keeps them beyond the call. */
    private void write(byte[] bytes, int off, int len, boolean lent) {
        offset += len;
        if (backlog != null) backlog.append(bytes, off, len);
        if (onward != null && onwardWanted.getAsBoolean()) {
            onward.accept(lent || off != 0 || len != bytes.length ? Arrays.copyOfRange(bytes, off, off + len) : bytes);
        }
    }

    @Override
    public void bytes(byte[] bytes, int off, int len, long end) {
        if (!following) write(bytes, off, len, true);
    }

    /** Redis's syncCommand for a master's first replica: a backlog, under a new id (no replica of an older history continues from it). */
    public void startBacklog() {
        if (backlog != null) return;
        if (!following) {
            id = randomId();
            clearSecondId();
        }
        backlog = new ReplicationBacklog(backlogSize(), offset);
        tapFeed();
        log.info("Replication backlog created, my new replication IDs are '{}' and '{}'", id(), id2);
    }

    /**
     * Redis's repl-backlog-ttl, from the cron: a master's backlog that no replica used for that long
     * goes, and the feed stops feeding it (also one a restart kept for replicas that never came back).
     */
    public void expireIfUnused(long nowMs, boolean hasReplicas) {
        if (backlog == null || following || hasReplicas) {
            aloneSinceMs = 0;
            return;
        }
        if (aloneSinceMs == 0) aloneSinceMs = nowMs;
        long ttl = config.getLong(BACKLOG_TTL);
        if (ttl == 0 || nowMs - aloneSinceMs < ttl * 1000) return;
        log.info("Replication backlog freed after {} seconds without connected replicas.", ttl);
        backlog = null;
        aloneSinceMs = 0;
        tapFeed();
    }

    /** CONFIG SET repl-backlog-size, at once (Redis's resizeReplicationBacklog): the next PSYNC finds the new size. */
    private void resizeBacklog() {
        if (backlog != null && backlog.size() != backlogSize()) backlog.resize(backlogSize());
    }

    private long backlogSize() {
        return config.getLong(BACKLOG_SIZE);
    }

    /**
     * A full synchronisation from a master: its stream from offset on, under its id, with a backlog
     * from there (Redis's replica keeps one, to serve PSYNCs once promoted).
     */
    public void restartAt(String masterId, long masterOffset) {
        following = true;
        id = masterId;
        clearSecondId();
        offset = masterOffset;
        backlog = new ReplicationBacklog(backlogSize(), offset);
        tapFeed();
    }

    /**
     * A master restarted from a dump that was at offset of stream id (Redis's loadDataFromDisk):
     * a history of its own that keeps that one second, so that its replicas continue.
     */
    public void restoreAsMaster(String savedId, long savedOffset) {
        following = false;
        offset = savedOffset;
        id = savedId;
        shiftTo(randomId());
        backlog = new ReplicationBacklog(backlogSize(), offset);
        tapFeed();
    }

    /** The master's stream runs here from now on (REPLICAOF host port), where it continues or restarts. */
    public void follow() {
        following = true;
        tapFeed();
    }

    /**
     * +CONTINUE under another id (the master was promoted, or it failed over): the old id stays
     * second, as Redis's replica keeps it for its own replicas.
     */
    public void continueAs(String masterId) {
        if (masterId.equalsIgnoreCase(id())) return;
        shiftTo(masterId);
    }

    /** REPLICAOF NO ONE: a history of this server's own, the master's id kept second (Redis's shiftReplicationId). */
    public void promote() {
        following = false;
        shiftTo(randomId());
        tapFeed();
        log.warn("Setting secondary replication ID to {}, valid up to offset: {}. New replication ID is {}", id2, secondOffset, id);
    }

    /** DEBUG CHANGE-REPL-ID: a new replication id and none second (Redis's changeReplicationId, clearReplicationId2). */
    public void changeIds() {
        id = randomId();
        clearSecondId();
    }

    private void shiftTo(String newId) {
        id2 = id();
        secondOffset = offset + 1;
        id = newId;
    }

    private void clearSecondId() {
        id2 = NO_ID;
        secondOffset = -1;
    }

    /**
     * masterTryPartialResynchronization's test: whether a replica at replid, whose next byte is
     * psyncOffset, is of this history; null if so, else why not, as Redis logs it.
     */
    public String mismatch(String replid, long psyncOffset) {
        if (replid.equalsIgnoreCase(id())) return null;
        if (!replid.equalsIgnoreCase(id2)) {
            return "Replication ID mismatch (Replica asked for '" + replid + "', my replication IDs are '" + id()
                    + "' and '" + id2 + "')";
        }
        if (psyncOffset > secondOffset) {
            return "Requested offset for second ID was " + psyncOffset + ", but I can reply up to " + secondOffset;
        }
        return null;
    }

    /** A master with a backlog feeds it its writes; a replica's stream is its master's. */
    private void tapFeed() {
        feed.tap(backlog != null && !following ? this : null);
    }

    /**
     * 40 random hex characters, as Redis's getRandomHexChars. Not made at start-up: the first
     * SecureRandom in a JVM loads the security providers, ~10 ms of an embedded server's start.
     */
    static String randomId() {
        byte[] bytes = new byte[20];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
