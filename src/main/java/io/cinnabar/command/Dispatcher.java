package io.cinnabar.command;

import io.cinnabar.command.CommandSpec.CallFlags;
import io.cinnabar.command.acl.Acl;
import io.cinnabar.command.acl.AclUser;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.persistence.WriteFeed;
import io.cinnabar.protocol.Reply;
import io.cinnabar.protocol.Request;
import io.cinnabar.protocol.RespConstants;
import io.cinnabar.protocol.RespWriter;
import io.cinnabar.command.testing.CommandWatch;
import io.cinnabar.command.testing.Verdict;
import io.cinnabar.command.tracking.Tracking;
import io.cinnabar.command.tracking.TrackingCommands;
import io.cinnabar.util.BinaryText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs batches of requests on the keyspace thread: looks each command up, checks arity, auth and
 * MULTI state once, centrally, with Redis's exact messages, runs the handler and hands the whole
 * batch's replies back to the connection in one piece. A client blocked on keys or paused is
 * resumed here with its own reply buffer ({@link #resume}); {@link BlockedClients} decides when.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final ServerContext server;
    private final CommandTable commands;
    private final Keyspace keyspace;
    private final Acl acl;
    private final RespWriter primary = new RespWriter(64 * 1024);
    private final RespWriter secondary = new RespWriter(4096);
    /** Where replies go now: the batch's writer, or a resumed blocked client's. */
    private RespWriter writer = primary;
    /** While the batch's client has a client-output-buffer-limit: its replies so far as Redis counts them. */
    private final io.cinnabar.protocol.ReplyListCount batchReplies = new io.cinnabar.protocol.ReplyListCount();
    private int batchRepliesFed;
    /** The writer's bytes, for batchReplies: made once, not per command. */
    private final io.cinnabar.protocol.ReplyListCount.ByteAt writerBytes = i -> writer.bytes()[i];
    /** calls[d] is the context of the run at nesting depth d+1: one per invocation level, never shared. */
    private Call[] calls = new Call[4];
    private final BlockedClients blocked;
    private final Propagation propagation;
    private final Tracking tracking;
    /** CLIENT: its subcommands keep a CLIENT CACHING choice for the next command; looked up when first needed. */
    private CommandSpec clientContainer;
    /** The spec of the command the current request ran (null when it was rejected before lookup). */
    private CommandSpec requestSpec;
    /** Nesting of run(): above 1 inside EXEC, where blocking commands must not block. */
    private int depth;
    private boolean replaying;
    private boolean secondaryInUse;
    /** The client whose batch (or resumed commands) is running. */
    private Client batchClient;
    /**
     * System.nanoTime() as the last command of the running batch ended, taken for its duration;
     * the next command of the batch starts from it instead of reading the clock again (a clock
     * read was 3.5% of a pipelined GET). 0 when the next command is not the batch's next.
     */
    private long batchClock;
    /**
     * The name of the last command looked up, and its spec: a pipeline mostly repeats one
     * command (the decoder hands a repeated name out as the same array). Names are never
     * written into, and renames happen before any command runs.
     */
    private byte[] lastName;
    private CommandSpec lastSpec;
    /** Pushes to the running client while its replies are switched off, written after the command. */
    private List<byte[]> keptPushes;
    /**
     * Where the replies EXEC has already kept or dropped end (0 outside EXEC): Redis decides at
     * each write, so a CLIENT REPLY OFF queued in the transaction silences only what follows it.
     */
    private int settledReplies;
    /** Runs commands that may run long (scripts) so that others get BUSY past busy-reply-threshold. */
    private final LongCommandRunner longRuns;
    /**
     * How long a command that may run long runs on this thread before it moves to the helper
     * ({@link #runLong}), and how quick its last run must have been for it to start here at all.
     */
    private static final long INLINE_BUDGET_NANOS = 10_000_000L;
    /** While a long command runs on this thread: the System.nanoTime() past which it should move; else 0. */
    private long inlineDeadline;
    /** Non-null while a long command runs past the threshold: what to resume when it ends. */
    private BusyRun busy;
    /**
     * Batches that arrived after the port opened and before loading at start-up showed: Redis
     * serves no client before it loads, and answers LOADING only while a long load lets it
     * process events. Null once loading ended or showed.
     */
    private List<Runnable> heldAtStart;
    /** The busy script was killed and ends at its next check: batches wait instead of getting BUSY. */
    private boolean busyKilled;
    private final BusyReplies busyReplies;
    /** Test controls (recorder, faults) while any is on; null otherwise, which is all a command pays. */
    private CommandWatch watch;
    /** This node's part in a cluster; null unless cluster-enabled, so a standalone server pays one null check. */
    private final io.cinnabar.command.cluster.ClusterMember cluster;

    public Dispatcher(ServerContext server) {
        this.cluster = server.cluster();
        this.server = server;
        this.commands = server.commands();
        this.keyspace = server.keyspace();
        this.acl = server.acl();
        this.longRuns = new LongCommandRunner(server.thread());
        this.busyReplies = new BusyReplies(server, this, longRuns);
        this.blocked = new BlockedClients(server, this);
        server.blocked(blocked);
        this.propagation = server.propagation();
        // The top-level command's Call exists before the first command: code the JIT compiled
        // while other servers ran (the standalone server's warm-up) never saw it missing, and
        // a new server's first command made Dispatcher.run fall back to the interpreter.
        calls[0] = new Call(server, this);
        if (keyspace.isLoading()) heldAtStart = new java.util.ArrayList<>();
        server.dataSets(new DataSets(server, this));
        server.pubSub(new io.cinnabar.command.pubsub.PubSub(this::push));
        this.tracking = new Tracking(server, this::push);
        server.tracking(tracking);
        server.events(new KeyspaceEvents(server.config(), server.pubSub()));
        KeyspaceHooks.install(server);
        server.pause().onResume(this::resumePostponed);
        server.inExec(() -> !mayBlock());
        server.onConnectionReset(c -> {
            server.pubSub().forgetClient(c);
            tracking.disable(c);
        });
    }

    /**
     * Bytes that answer no request of target (pub/sub messages): into the running batch when
     * target is the client being served, so they keep their place among its replies, as in
     * Redis's single output buffer; otherwise straight to its connection.
     */
    private void push(Client target, byte[] bytes) {
        if (target.silenced) return;
        if (target != batchClient) {
            if (!target.closing) target.channel().push(bytes);
        } else if (target.replyOff || target.replySkip) {
            // Kept through CLIENT REPLY OFF|SKIP, which drops the command's other replies.
            if (keptPushes == null) keptPushes = new java.util.ArrayList<>();
            keptPushes.add(bytes);
        } else {
            writer.raw(bytes);
        }
    }

    void alsoPropagate(int db, byte[][] argv) {
        propagation.also(db, argv);
    }

    boolean propagates() {
        return propagation.feed().enabled();
    }

    public ServerContext server() {
        return server;
    }

    /** Executes one client's batch and sends the replies. Keyspace thread only. */
    public void executeBatch(Client client, List<byte[][]> batch) {
        if (heldAtStart != null) {
            heldAtStart.add(() -> executeBatch(client, batch));
            return;
        }
        if (busy != null) {
            // After a successful SCRIPT or FUNCTION KILL the script is about to end: what comes
            // next runs after it, as in Redis, where the script stops in the pass that read the kill.
            // The master's stream waits for the script too (Redis stops reading it meanwhile).
            if (busyKilled || client.isMaster()) server.thread().defer(() -> executeBatch(client, batch));
            else busyReplies.answer(client, batch);
            return;
        }
        // A connection whose reply a fault dropped answers nothing more: its requests are dropped too.
        if (client.closing || client.silenced) return;
        // Once per batch read, as Redis stamps c->lastinteraction per read: a clock read per
        // command cost 2% of a pipelined SET.
        client.lastInteractionMs = keyspace.mstime();
        if (client.waiting()) {
            // A blocked, paused or delayed client's later requests wait until it is served.
            client.pending().addAll(batch);
            return;
        }
        writer.protocol(client.protocol);
        continueBatch(client, batch, 0, server.feed().offset());
    }

    /** Runs batch from request i on; stops early (returning) when a long command outlives the threshold. */
    private void continueBatch(Client client, List<byte[][]> batch, int i, long feedMark) {
        batchClient = client;
        batchClock = 0;
        long countLimit = client.channel().outputCountLimit();
        long byteLimit = countLimit == 0 ? client.channel().outputHardLimit() : 0;
        if (countLimit > 0) {
            batchReplies.reset();
            batchRepliesFed = 0;
        }
        for (int n = batch.size(); i < n; i++) {
            byte[][] r = batch.get(i);
            if (Request.isProtocolError(r)) {
                runRequest(client, r);
                break;
            }
            if (clientsGrew) {
                batchClock = 0;
                evictClientsIfNeeded();
                if (client.closing) break; // evicted itself: the command does not run
            }
            ClientMemory.notePeak(server, client, r);
            int mark = writer.size();
            boolean skipThis = client.replySkip;
            if (watch != null) watch.arrived(client, r);
            CommandSpec longRun = executeOne(client, r);
            if (longRun != null && !runLong(client, longRun, r)) {
                busy = new BusyRun(client, batch, i, feedMark, mark, skipThis);
                batchClock = 0;
                server.thread().lend();
                return;
            }
            afterCommand(client, mark, skipThis);
            if (client.isMaster()) server.masterLink().ran(client, r);
            if (byteLimit > 0 && writer.size() >= byteLimit || countLimit > 0 && batchRepliesCounted() >= countLimit) {
                // Redis checks the limit as replies are added: the client goes before its next
                // request, and before another client's CLIENT LIST in the same round sees it.
                client.closeForOutputLimit();
                break;
            }
            if (client.closeAfterReply || client.closing || client.silenced) break;
            if (client.waiting()) {
                for (int k = i + 1; k < n; k++) client.pending().add(batch.get(k));
                break;
            }
            if (writer.size() >= PART_REPLY_BYTES && i + 1 < n) {
                sendPart(client, feedMark);
                batchClock = 0;
            }
            serveBlocked();
        }
        batchClient = null;
        batchClock = 0;
        flush(client, feedMark);
        ClientMemory.evictIfNeeded(server, this);
    }

    /**
     * Runs a command that may run long (a script); true when it ended within busy-reply-threshold.
     * It first runs right here, as Redis runs it, until {@link #inlineDeadline}: handing every
     * script to the helper thread and waiting for it cost two thread switches each, on 2 cores
     * beside redis-benchmark about 9 us more CPU per EVALSHA than running it here (66k against
     * 93k requests a second).
     * One not known to be quick, or one that passes the deadline having only read, stops there
     * ({@link RunElsewhere}) and runs again from its start on the helper thread, which owns the
     * keyspace meanwhile. If that outlives the threshold, this thread goes back to serving
     * sockets, answering BUSY, until {@link #longRunEnded} resumes the batch. One that passed the
     * deadline after it wrote finishes here, without BUSY replies meanwhile.
     */
    private boolean runLong(Client client, CommandSpec spec, byte[][] args) {
        long threshold = server.config().getLong(io.cinnabar.config.ConfigOptions.BUSY_REPLY_THRESHOLD);
        if (threshold <= 0) {
            run(client, spec, args);
            return true;
        }
        long start = System.nanoTime();
        int mark = writer.size();
        inlineDeadline = (start + inlineBudgetNanos()) | 1;
        Monitors monitors = server.monitors();
        monitors.hold();
        boolean moved = false;
        try {
            run(client, spec, args);
            return true;
        } catch (RunElsewhere elsewhere) {
            moved = true;
            writer.truncate(mark);
        } finally {
            inlineDeadline = 0;
            monitors.release(!moved);
        }
        long leftMs = threshold - (System.nanoTime() - start) / 1_000_000;
        return longRuns.run(() -> run(client, spec, args), Math.max(0, leftMs), this::longRunEnded);
    }

    /**
     * A long command's check between two of its steps (a script's, with its kill check): where
     * the commands Redis runs while busy that touch the keyspace's tables (WATCH, RESET...) run
     * meanwhile, while it stands still.
     */
    public void holdPoint() {
        longRuns.holdPoint();
    }

    /** A command waits for the long command to stand still at its next {@link #holdPoint}. */
    public boolean holdAsked() {
        return longRuns.holdAsked();
    }

    /**
     * While a command that may run long runs on this thread ({@link #runLong}): the
     * System.nanoTime() past which it should throw {@link RunElsewhere} if it has only read.
     * 0 where it runs to its end wherever it is (the helper thread, EXEC, loading).
     */
    public long inlineDeadline() {
        return inlineDeadline;
    }

    /** How quick a long command's last run must have been for its next to start on this thread. */
    public long inlineBudgetNanos() {
        long threshold = server.config().getLong(io.cinnabar.config.ConfigOptions.BUSY_REPLY_THRESHOLD);
        return Math.min(INLINE_BUDGET_NANOS, Math.max(0, threshold) * 1_000_000L);
    }

    /** The long command that made the server busy ended: the keyspace is this thread's again. */
    private void longRunEnded() {
        BusyRun b = busy;
        busy = null;
        busyKilled = false;
        afterCommand(b.client, b.mark, b.skipThis);
        boolean more = !(b.client.closeAfterReply || b.client.closing || b.client.silenced) && b.client.blocked == null;
        serveBlocked();
        if (more) {
            continueBatch(b.client, b.batch, b.index + 1, b.feedMark);
        } else {
            flush(b.client, b.feedMark);
        }
        server.thread().reclaim();
    }

    /**
     * Start-up's loading ended, or has read enough to be shown (held batches then get LOADING):
     * the batches held since the port opened run, in arrival order.
     */
    void releaseHeldAtStart() {
        List<Runnable> held = heldAtStart;
        if (held == null) return;
        heldAtStart = null;
        for (Runnable r : held) r.run();
    }

    /** True while a long command (a script) runs past busy-reply-threshold. */
    public boolean busy() {
        return busy != null;
    }

    /** The server stopped: the helper thread of long commands ends. */
    public void close() {
        longRuns.close();
    }

    /** SCRIPT or FUNCTION KILL stopped the long-running script: batches arriving until it ends wait for it. */
    public void longRunKilled() {
        if (busy != null) busyKilled = true;
    }

    /** Replies of one batch that leave before it ends (see {@link #sendPart}). */
    private static final int PART_REPLY_BYTES = 1 << 20;

    /** Where a batch stopped when its long command outlived the threshold. */
    private record BusyRun(Client client, List<byte[][]> batch, int index, long feedMark, int mark, boolean skipThis) { }

    /** Runs one request; false when the client must not run more (closing, protocol error). */
    private boolean runRequest(Client client, byte[][] r) {
        if (Request.isProtocolError(r)) {
            writer.error("ERR " + Request.errorMessage(r));
            server.stats().errorReply("ERR");
            client.closeAfterReply = true;
            return false;
        }
        if (watch != null) watch.arrived(client, r);
        execute(client, r);
        return !(client.closeAfterReply || client.closing || client.silenced);
    }

    /**
     * Hands what the client's commands replied to its connection. With the AOF on, the replies of
     * commands that wrote (the feed grew past feedMark) leave once that is written (fsynced under
     * appendfsync always).
     */
    private void flush(Client client, long feedMark) {
        int size = writer.size();
        countOutput(size);
        if (client.closing) {
            writer.reset();
            return;
        }
        // A client blocked before replying anything keeps its connection waiting for this batch.
        if (client.waiting() && size == 0) {
            // One paused by CLIENT PAUSE first takes the requests its connection already holds, so
            // they run right after its postponed command, before other clients' (as in Redis).
            if (client.postponed != null && client.pending().isEmpty()) client.channel().send(writer, false);
            else writer.reset();
            return;
        }
        long fed = server.feed().offset();
        if (fed > feedMark && server.persistence().holdsWriteReplies()) {
            server.persistence().whenAcknowledged(fed, client.channel().executor(),
                    client.channel().delivery(writer, client.closeAfterReply));
            return;
        }
        client.channel().send(writer, client.closeAfterReply);
    }

    /**
     * Redis's count of this batch's replies so far (as if nothing were pending before them), fed
     * the writer's new bytes piece by piece.
     */
    private long batchRepliesCounted() {
        if (batchRepliesFed > writer.size()) batchRepliesFed = 0; // a part went out: the writer starts over
        batchReplies.writePieces(writerBytes, batchRepliesFed, writer.size());
        batchRepliesFed = writer.size();
        return batchReplies.counted();
    }

    /**
     * Replies of a batch still running leave once they pass {@link #PART_REPLY_BYTES}, unless
     * they answer writes whose replies wait for the AOF: a pipeline of 600 GETs of 1 MB values
     * otherwise grew one 600 MB reply buffer by doubling before the first byte left (8.4 s where
     * Redis took 1.6).
     */
    private void sendPart(Client client, long feedMark) {
        if (server.feed().offset() > feedMark && server.persistence().holdsWriteReplies()) return;
        countOutput(writer.size());
        client.channel().sendPart(writer);
    }

    private void countOutput(int size) {
        server.stats().netOutputBytes += size;
        if (size > 0) server.stats().writes++;
    }

    /** Runs one command for client, replying into the current batch (a resumed client's pending requests). */
    private void execute(Client client, byte[][] args) {
        int mark = writer.size();
        boolean skipThis = client.replySkip;
        client.lastInteractionMs = keyspace.mstime();
        CommandSpec longRun = executeOne(client, args);
        if (longRun != null) run(client, longRun, args);
        afterCommand(client, mark, skipThis);
    }

    private CommandSpec lookup(byte[] name) {
        if (name == lastName) return lastSpec;
        CommandSpec spec = commands.lookup(name);
        if (spec != null) {
            lastName = name;
            lastSpec = spec;
        }
        return spec;
    }

    private CommandSpec clientContainer() {
        if (clientContainer == null) clientContainer = commands.lookup("client".getBytes(StandardCharsets.US_ASCII));
        return clientContainer;
    }

    /** CLIENT REPLY OFF|SKIP: the command ran, then what it replied is dropped. */
    private void afterCommand(Client client, int mark, boolean skipThis) {
        int keep = client.silenced ? mark : Math.max(mark, settledReplies);
        settledReplies = 0;
        // CLIENT REPLY ON clears a pending skip and must itself be answered; a dropped reply is lost.
        if (client.replyOff || (skipThis && client.replySkip) || client.silenced) writer.truncate(keep);
        if (keptPushes != null) {
            for (byte[] p : keptPushes) writer.raw(p);
            keptPushes = null;
        }
        // Redis's resetClient: CLIENT CACHING applies to the next command (or transaction) only.
        if (client.tracking != null && client.multi == null
                && (requestSpec == null || requestSpec.parent() != clientContainer())) {
            TrackingCommands.commandDone(client);
        }
        if (skipThis) client.replySkip = false;
        // ASKING covers the command after it, or the transaction it opens up to EXEC.
        if (client.asking > 0 && client.multi == null) client.asking--;
        if (client.replySkipNext) {
            client.replySkip = true;
            client.replySkipNext = false;
        }
    }

    /**
     * Checks and runs one command; returns its spec instead of running it when it may run long
     * (a script at top level), for the caller to run where others can still be answered.
     */
    private CommandSpec executeOne(Client client, byte[][] args) {
        server.stats().totalCommandsProcessed++;
        requestSpec = null;
        CommandSpec spec = lookup(args[0]);
        if (spec == null) {
            reject(client, args, null, Refusals.unknownCommand(args));
            return null;
        }
        if (!spec.subcommands.isEmpty() && args.length >= 2) {
            CommandSpec sub = CommandTable.subcommand(spec, args[1]);
            if (sub == null) {
                // No command is found (Redis's lookupCommand answers NULL): no rejected call is counted.
                reject(client, args, null, Refusals.unknownSubcommand(spec, args[1]));
                return null;
            }
            spec = sub;
        }
        client.lastCommand = spec.fullName;
        requestSpec = spec;
        if (!spec.arityAccepts(args)) {
            reject(client, args, spec, Refusals.wrongArity(spec));
            return null;
        }
        if (watch != null && !client.delayServed) {
            Verdict v = watch.check(client, spec, args);
            if (v != null && !applyVerdict(client, spec, args, v)) return null;
        }
        String notAllowed = Refusals.protectedCommand(server, client, spec);
        if (notAllowed != null) {
            reject(client, args, spec, notAllowed);
            return null;
        }
        if (Refusals.needsAuth(server, client, spec)) {
            reject(client, args, spec, Refusals.NOAUTH);
            return null;
        }
        if (client.multi != null && spec.hasFlag(CommandFlag.NO_MULTI)) {
            reject(client, args, spec, "ERR Command not allowed inside a transaction");
            return null;
        }
        // The default user allows everything until told otherwise: one field read per command.
        AclUser user = client.aclUser != null ? client.aclUser : acl.defaultUser();
        if (!user.allowsEverything() && !client.isMaster()) {
            String denied = acl.refusal(client, user, spec, args);
            if (denied != null) {
                reject(client, args, spec, denied);
                return null;
            }
        }
        int flags = callFlags(client, spec, args);
        if (cluster != null && !routedHere(client, spec, args, flags)) return null;
        boolean write = (flags & CallFlags.WRITE) != 0;
        // In MULTI anything but what ends it may grow memory: the queue grows too.
        boolean mayGrowMemory = (flags & CallFlags.DENYOOM) != 0
                || (client.multi != null && !TransactionControl.endsOrLeavesTransaction(spec));
        // The master is obeyed (mustObeyClient): its stream is what the data must become.
        if (server.memoryLimit().beforeCommand(mayGrowMemory) && !client.isMaster()) {
            reject(client, args, spec, MemoryLimit.OOM);
            return null;
        }
        if (spec.refusedOnDiskError || write) {
            String diskError = server.persistence().writeDeniedError();
            if (diskError != null && !client.isMaster()) {
                reject(client, args, spec, diskError);
                return null;
            }
        }
        if (write && !GoodReplicas.enough(server)) {
            reject(client, args, spec, GoodReplicas.NOREPLICAS);
            return null;
        }
        if (write && MasterLink.refusesWrites(server, client)) {
            reject(client, args, spec, MasterLink.READONLY);
            return null;
        }
        String subscribed = Refusals.subscribedContext(client, spec);
        if (subscribed != null) {
            reject(client, args, spec, subscribed);
            return null;
        }
        if (MasterLink.deniesStale(server, flags)) {
            reject(client, args, spec, MasterLink.MASTERDOWN);
            return null;
        }
        MasterLink link = server.masterLink();
        if ((keyspace.isLoading() || link.loadingPayload()) && !spec.hasFlag(CommandFlag.LOADING)) {
            reject(client, args, spec, "LOADING Redis is loading the dataset in memory");
            return null;
        }
        if (link.asyncLoadingPayload() && deniedWhileAsyncLoading(client, spec)) {
            reject(client, args, spec, "LOADING Redis is loading the dataset in memory");
            return null;
        }
        // A MONITOR client is a replica to Redis: it may not touch data, and is never paused.
        boolean mayReplicate = (flags & (CallFlags.WRITE | CallFlags.MAY_REPLICATE)) != 0;
        if (client.monitor && (mayReplicate || (flags & CallFlags.READONLY) != 0)) {
            reject(client, args, spec, "ERR Replica can't interact with the keyspace");
            return null;
        }
        if (server.pause().isActive() && server.pause().postpones(client, mayReplicate)) {
            server.pause().postpone(client, args);
            return null;
        }
        if (client.multi != null && !TransactionControl.runsImmediately(spec)) {
            client.multi.queued.add(args);
            client.multi.specs.add(spec);
            writer.raw(RespConstants.QUEUED);
            return null;
        }
        if (spec.mayRunLong && depth == 0 && !replaying) return spec;
        run(client, spec, args);
        return null;
    }

    /** Redis's CMD_NO_ASYNC_LOADING: the command, or EXEC of a transaction holding one. */
    private static boolean deniedWhileAsyncLoading(Client client, CommandSpec spec) {
        if (spec.hasFlag(CommandFlag.NO_ASYNC_LOADING)) return true;
        if (client.multi == null || !TransactionControl.isExec(spec)) return false;
        for (CommandSpec queued : client.multi.specs) if (queued.hasFlag(CommandFlag.NO_ASYNC_LOADING)) return true;
        return false;
    }

    /**
     * Applies what a fault rule or interceptor decided for a command; true when the command is to
     * run on (a dropped reply's command runs, its reply and all later ones lost). See {@link Verdict}.
     */
    private boolean applyVerdict(Client client, CommandSpec spec, byte[][] args, Verdict v) {
        switch (v.kind()) {
            case DROP:
                client.silenced = true;
                return true;
            case CLOSE:
                client.closeAfterReply = true;
                return false;
            case DELAY:
                client.delayed = args;
                server.thread().schedule(v.delayMs(), () -> delayOver(client));
                return false;
            case ANSWER:
                spec.stats.rejectedCalls++;
                String error = v.errorText();
                if (error == null) {
                    int mark = writer.size();
                    try {
                        v.writeAnswer(writer);
                    } catch (RuntimeException e) {
                        writer.truncate(mark);
                        writer.error(Verdict.interceptorFailure(e));
                    }
                    return false;
                }
                writer.error(error);
                server.stats().errorReply(error);
                if (client.multi != null) {
                    // As a refused EXEC or DISCARD ends the transaction, a refused command inside dooms it.
                    if (TransactionControl.endsOrLeavesTransaction(spec)) {
                        client.multi = null;
                        if (client.watch != null) client.watch.unwatchAll();
                    } else {
                        client.multi.dirty = true;
                    }
                }
                return false;
            default:
                return true;
        }
    }

    /** A delayed command's time has come: it runs (past the faults that delayed it), then what waited behind it. */
    private void delayOver(Client c) {
        if (c.closing || c.delayed == null) return;
        resume(c, out -> {
            byte[][] argv = c.delayed;
            c.delayed = null;
            c.delayServed = true;
            try {
                execute(c, argv);
            } finally {
                c.delayServed = false;
            }
        });
        serveBlocked();
    }

    /**
     * Serves the clients blocked on keys that became ready; the deletions of expired keys met
     * there (a ready key that expired meanwhile) go out as a unit of their own at once, after the
     * command that readied the key, as Redis's handleClientsBlockedOnKeys propagates them.
     */
    private void serveBlocked() {
        blocked.serveReadyKeys();
        if (depth == 0) propagation.endUnit(false);
    }

    /** Installs (or with null removes) the test controls' watch over commands. Keyspace thread. */
    public void watch(CommandWatch w) {
        watch = w;
    }

    /**
     * Propagates argv (run in database db) for what test controls changed (reset, restore): with
     * the running command's writes, or as a unit of its own outside any command.
     */
    public void propagate(int db, byte[][] argv) {
        propagation.also(db, argv);
        if (depth == 0) propagation.endUnit(false);
    }

    /**
     * Runs an already-validated command (also used by EXEC for queued commands), replying into
     * the current batch. What a top-level run changed is propagated as one unit.
     */
    public void run(Client client, CommandSpec spec, byte[][] args) {
        run(client, spec, args, writer, WriteFeed.TO_ALL);
    }

    /** Where the running command's reply has got to, for {@link #settleReplies}. */
    public int replyMark() {
        return writer.size();
    }

    /**
     * EXEC: what was written since mark goes out unless CLIENT REPLY is OFF (or skipping) now, as
     * Redis checks at every write; afterCommand leaves it as settled here.
     */
    public void settleReplies(Client client, int mark) {
        if (client.replyOff || client.replySkip) writer.truncate(mark);
        settledReplies = writer.size();
    }

    /**
     * Runs a command inside the running one (redis.call): its reply goes to target, built
     * directly, and its writes are propagated to the feed's consumers propagateTo names
     * (redis.set_repl: {@link WriteFeed#TO_ALL}, ...).
     */
    public void runNested(Client client, CommandSpec spec, byte[][] args, NestedReply target, int propagateTo) {
        run(client, spec, args, target, propagateTo);
    }

    /**
     * Checks a command a script wants to run as Redis's scriptCall does, with its texts, and
     * returns its spec. A refusal counts as an error reply (and a rejected call of the command)
     * and throws CommandError with Redis's error buffer: a bare message (code ERR) or
     * "-CODE message".
     */
    public CommandSpec scriptCommand(Client caller, byte[][] args, boolean readOnlyScript, boolean wrote, boolean allowOom,
                                     boolean allowCrossSlot) {
        CommandSpec spec = commands.resolve(args);
        String refusal = scriptRefusal(caller, spec, args, readOnlyScript, wrote, allowOom);
        if (refusal == null && cluster != null) {
            refusal = cluster.scriptRefusal(caller, spec, args, spec.callFlags(server, args), allowCrossSlot, keyspace.db(0));
        }
        if (refusal == null) return spec;
        server.stats().errorReply(refusal.startsWith("-") ? refusal.substring(1) : "ERR " + refusal);
        if (spec != null) spec.stats.rejectedCalls++;
        throw new CommandError(refusal);
    }

    private String scriptRefusal(Client caller, CommandSpec spec, byte[][] args, boolean readOnlyScript, boolean wrote, boolean allowOom) {
        if (spec == null) return "Unknown Redis command called from script";
        if (!spec.arityAccepts(args)) return "Wrong number of args calling Redis command from script";
        if (spec.hasFlag(CommandFlag.NOSCRIPT) && !server.scriptsMayRunNoscript()) {
            return "This Redis command is not allowed from script";
        }
        // An AOF being replayed is obeyed, as checkBeforeRun lets its scripts run.
        if (!replaying && MasterLink.deniesStale(server, spec.callFlags(server, args))) {
            return "Can not execute the command on a stale replica";
        }
        String denied = acl.scriptRefusal(caller, spec, args);
        if (denied != null) return denied;
        if (readOnlyScript && (spec.write || spec.hasFlag(CommandFlag.MAY_REPLICATE))) {
            return "Write commands are not allowed from read-only scripts.";
        }
        // Server state refuses only a script's first write: after one, stopping halfway is worse.
        if (wrote) return null;
        if (spec.write) {
            // The AOF is obeyed as Redis obeys its master's stream (mustObeyClient).
            if (!replaying && MasterLink.refusesWrites(server, caller)) return "-" + MasterLink.READONLY;
            String diskError = server.persistence().writeDeniedError();
            if (diskError != null) return "-" + diskError;
            if (!GoodReplicas.enough(server)) return "-" + GoodReplicas.NOREPLICAS;
        }
        if (!allowOom && spec.denyOom && server.memoryLimit().outOfMemory()) return "-" + MemoryLimit.OOM;
        return null;
    }

    /**
     * Redis's clientHasPendingReplies: replies to client not on the socket yet, those of earlier
     * commands of the batch (a pipeline, EXEC's own array header) or waiting on the connection.
     */
    boolean repliesPending(Client client) {
        return writer.size() > 0 || client.channel().pendingOutputBytes() > 0;
    }

    /** Redis's mustObeyClient: the master's stream and an AOF being replayed run whatever the server's state. */
    public boolean obeys(Client client) {
        return replaying || client.isMaster();
    }

    /** The command (and subcommand) argv names, null when this server has none (redis.acl_check_cmd). */
    public CommandSpec resolve(byte[][] argv) {
        return commands.resolve(argv);
    }

    private Call callAt(int level) {
        if (level == calls.length) calls = java.util.Arrays.copyOf(calls, level * 2);
        Call c = calls[level];
        if (c == null) calls[level] = c = new Call(server, this);
        return c;
    }

    private void run(Client client, CommandSpec spec, byte[][] args, Reply target, int propagateTo) {
        // Deletions of expired keys met outside any command go out on their own first.
        if (depth == 0) {
            propagation.endUnit(false);
            tracking.commandStarted(client);
        }
        Call call = callAt(depth++);
        call.args = args;
        call.shownArgs = args;
        call.client = client;
        call.spec = spec;
        call.reply = target;
        call.propagateAs = null;
        call.propagationPrevented = call.propagationForced = false;
        long dirtyBefore = keyspace.dirty();
        boolean failed = true;
        boolean outermost = depth == 1;
        // As Redis's call(): the clock is read once per top-level command; EXEC and scripts see one time.
        long start;
        if (outermost && batchClock != 0) {
            start = batchClock;
            batchClock = 0;
        } else {
            start = System.nanoTime();
        }
        if (outermost) {
            keyspace.beginCommand(start);
        }
        int mark = target == writer ? writer.size() : 0;
        byte[][] shown = args;
        try {
            spec.handler().execute(call);
            failed = false;
        } catch (CommandError e) {
            fail(target, mark, spec, e.getMessage(), !e.alreadyCounted);
            if (client.replicaFlags() != 0) errorOnReplicationLink(client, spec, e.getMessage());
        } catch (WrongTypeException e) {
            fail(target, mark, spec, WrongTypeException.MESSAGE, true);
            if (client.replicaFlags() != 0) errorOnReplicationLink(client, spec, WrongTypeException.MESSAGE);
        } catch (RuntimeException | StackOverflowError e) {
            log.error("Unexpected error running {}", spec.fullName, e);
            fail(target, mark, spec, "ERR internal error: " + e, true);
        } catch (OutOfMemoryError e) {
            // The client gets Redis's answer instead of waiting forever for one.
            log.error("Out of memory running {}", spec.fullName, e);
            fail(target, mark, spec, MemoryLimit.OOM, true);
            HeapExhaustion.happened(e);
        } finally {
            if (failed) keyspace.commandFailed(); else keyspace.commandSucceeded();
            if (!failed && propagateTo != 0 && !replaying && !spec.propagatesInnerCommands && !call.propagationPrevented
                    && (call.propagationForced || keyspace.dirty() != dirtyBefore)) {
                propagation.also(client.db, call.propagateAs != null ? call.propagateAs : args, propagateTo);
            }
            // Redis rewrites the running command's argv (rewriteClientCommandArgument), and EXEC keeps
            // the rewritten argv of its own commands (depth 2; not a script's calls), INCRBYFLOAT's
            // stored result among it, until it ends.
            if (!failed && call.propagateAs != null && depth == 2 && client.executing() != null) {
                client.execRewrote(call.propagateAs);
            }
            if (tracking.active()) tracking.afterCommand(client, spec, args, failed, keyspace.dirty() != dirtyBefore, calls[0]);
            shown = call.shownArgs;
            call.args = null;
            call.shownArgs = null;
            call.client = null;
            call.reply = null;
            depth--;
            if (outermost) {
                propagation.endUnit(!spec.touchesArbitraryKeys);
                tracking.commandEnded(client);
                keyspace.endCommand();
                keyspace.touchEnabled(true);
            }
        }
        // Redis shows (and counts) a blocking command once, when first called, not when it is served.
        boolean retry = blocked.isRetry(client);
        if (!retry && !replaying) feedMonitors(client, spec, shown);
        if (!retry) spec.stats.calls++;
        long end = System.nanoTime();
        if (outermost && batchClient == client) batchClock = end;
        long nanos = end - start;
        long micros = nanos / 1000;
        spec.stats.addTime(nanos);
        // As Redis: a command that blocked is logged once it is served, with that run's time.
        boolean ran = retry ? !blocked.blockedAgain() : client.blocked == null;
        if (replaying) return;
        server.latencyMonitor().addSampleIfNeeded(spec.hasFlag(CommandFlag.FAST) ? "fast-command" : "command", micros / 1000);
        if (!ran) {
            if (!retry) client.blockedCallNanos = nanos;
            return;
        }
        // As Redis's updateStatsOnUnblock: a served blocked command's latency is both runs' time.
        long total = retry ? nanos + client.blockedCallNanos : nanos;
        if (server.config().getBool(io.cinnabar.config.ConfigOptions.LATENCY_TRACKING)) spec.stats.recordLatency(total);
        if (!spec.hasFlag(CommandFlag.SKIP_SLOWLOG)) server.slowLog().record(client, shown, micros);
    }

    /**
     * Redis's cluster redirection in processCommand: a command with keys (or an EXEC, for what it
     * queued) whose slot this node does not serve is answered MOVED, ASK, CROSSSLOT... instead;
     * false then. A refused EXEC discards its transaction; anything else refused in MULTI dooms it.
     */
    private boolean routedHere(Client client, CommandSpec spec, byte[][] args, int flags) {
        boolean exec = TransactionControl.isExec(spec);
        if (spec.keySpecs.isEmpty() && !spec.hasFlag(CommandFlag.MOVABLEKEYS) && !exec) {
            client.scriptSlot = -1;
            return true;
        }
        if (exec && client.multi == null) return true;
        int code = exec
                ? cluster.route(client, client.multi.specs, client.multi.queued, flags, false, false, keyspace.db(0))
                : cluster.route(client, List.of(spec), List.<byte[][]>of(args), flags, spec.keysAreChannels,
                        spec.hasFlag(CommandFlag.ASKING), keyspace.db(0));
        client.scriptSlot = cluster.slot();
        if (code == io.cinnabar.command.cluster.ClusterMember.NONE) return true;
        String error = cluster.error(code);
        if (exec) {
            client.multi = null;
            if (client.watch != null) client.watch.unwatchAll();
        } else if (client.multi != null) {
            client.multi.dirty = true;
        }
        writer.error(error);
        server.stats().errorReply(error);
        spec.stats.rejectedCalls++;
        return false;
    }

    /** A failed command's reply is its error alone. */
    private void fail(Reply target, int mark, CommandSpec spec, String error, boolean countError) {
        if (target == writer) writer.truncate(mark); else ((NestedReply) target).discard();
        target.error(error);
        spec.stats.failedCalls++;
        if (countError) server.stats().errorReply(error);
    }

    /** Redis's call(): shows what ran to MONITOR clients, except commands too sensitive to show. */
    private void feedMonitors(Client client, CommandSpec spec, byte[][] argv) {
        Monitors monitors = server.monitors();
        if (monitors.isEmpty() || keyspace.isLoading()) return;
        if (spec.admin || spec.hasFlag(CommandFlag.SKIP_MONITOR)) return;
        monitors.feed(client, client.db, argv, writer);
    }

    /** A client postponed by CLIENT PAUSE runs its command again (it may be paused anew). */
    private void resumePostponed(Client c) {
        resume(c, out -> {
            byte[][] argv = c.postponed;
            c.postponed = null;
            execute(c, argv);
        });
    }

    /** False inside EXEC (and scripts) and while replaying an AOF: blocking commands act as their non-blocking twins. */
    boolean mayBlock() {
        return depth <= 1 && !replaying;
    }

    /**
     * Runs a command read from an AOF as Redis's loader does: found by name, queued while its
     * client is in MULTI, run without the client checks, its reply dropped. Unknown commands
     * fail the load.
     */
    public void replay(Client client, byte[][] argv) {
        CommandSpec spec = commands.lookup(argv[0]);
        if (spec == null) throw io.cinnabar.persistence.aof.AofReplayException.unknownCommand(argv[0]);
        if (!spec.subcommands.isEmpty() && argv.length >= 2) {
            CommandSpec sub = CommandTable.subcommand(spec, argv[1]);
            if (sub != null) spec = sub;
        }
        replay(client, spec, argv);
    }

    /**
     * Runs a command of a fixture file as {@link #replay} does, after the name and arity checks a
     * client's command gets; returns null, or the error it was refused or failed with.
     */
    public String replayChecked(Client client, byte[][] argv) {
        CommandSpec spec = commands.lookup(argv[0]);
        if (spec == null) return Refusals.unknownCommand(argv);
        if (!spec.subcommands.isEmpty() && argv.length >= 2) {
            CommandSpec sub = CommandTable.subcommand(spec, argv[1]);
            if (sub == null) return Refusals.unknownSubcommand(spec, argv[1]);
            spec = sub;
        }
        if (!spec.arityAccepts(argv)) return Refusals.wrongArity(spec);
        return replay(client, spec, argv);
    }

    /** The error the replayed command replied (its first line, without the '-'), or null. */
    private String replay(Client client, CommandSpec spec, byte[][] argv) {
        int mark = writer.size();
        replaying = true;
        try {
            if (client.multi != null && !TransactionControl.isExec(spec)) {
                client.multi.queued.add(argv);
                client.multi.specs.add(spec);
            } else {
                run(client, spec, argv);
            }
            byte[] out = writer.bytes();
            if (writer.size() == mark || out[mark] != '-') return null;
            int end = mark + 1;
            while (end < writer.size() && out[end] != '\r') end++;
            return BinaryText.decode(out, mark + 1, end - mark - 1);
        } finally {
            replaying = false;
            writer.truncate(mark);
        }
    }

    /**
     * Runs firstStep for a blocked or paused client with its own reply buffer (given to firstStep),
     * then the requests it sent meanwhile, and sends it the replies; the interrupted batch's
     * output is left intact.
     */
    void resume(Client c, Consumer<RespWriter> firstStep) {
        RespWriter saved = writer;
        Client savedBatchClient = batchClient;
        batchClient = c;
        int savedProtocol = saved.protocol();
        int savedDepth = depth;
        boolean ownsSecondary = !secondaryInUse;
        RespWriter w = ownsSecondary ? secondary : new RespWriter(1024);
        secondaryInUse = true;
        writer = w;
        w.protocol(c.protocol);
        depth = 0;
        try {
            int mark = w.size();
            long feedMark = server.feed().offset();
            firstStep.accept(w);
            // CLIENT REPLY OFF also silences the late answer of a command that was blocked, as a
            // dropped reply silences the connection.
            if (c.replyOff || c.silenced) w.truncate(mark);
            while (!c.waiting() && !c.silenced && c.pending != null && !c.pending.isEmpty()) {
                if (!runRequest(c, c.pending.poll())) break;
            }
            flush(c, feedMark);
        } finally {
            depth = savedDepth;
            batchClient = savedBatchClient;
            batchClock = 0;
            if (ownsSecondary) secondaryInUse = false;
            writer = saved;
            saved.protocol(savedProtocol);
        }
    }

    /** Whether maxmemory-clients is set (any thread). */
    public boolean clientEvictionOn() {
        return ClientMemory.limit(server.config()) != 0;
    }

    /**
     * A client's buffers grew with no command run (a big read, output queued): maxmemory-clients
     * is looked at before the next command runs, as Redis's processCommand evicts first, and at
     * the end of the event loop's turn. Any thread.
     */
    public void clientBuffersGrew() {
        clientsGrew = true;
        server.thread().execute(evictClients);
    }

    private volatile boolean clientsGrew;
    private final Runnable evictClients = this::evictClientsIfNeeded;

    private void evictClientsIfNeeded() {
        if (busy != null) return;
        clientsGrew = false;
        ClientMemory.evictIfNeeded(server, this);
    }

    /** The client's socket closed: forget it and whatever it was waiting for. */
    public void disconnected(Client client) {
        blocked.release(client);
        server.pause().forget(client);
        server.monitors().remove(client);
        client.delayed = null;
        if (client.pending != null) client.pending.clear();
        client.closing = true;
        client.multi = null;
        if (client.watch != null) client.watch.unwatchAll();
        server.pubSub().forgetClient(client);
        tracking.disable(client);
        server.removeClient(client);
        server.memoryLimit().clientLeft(client);
    }

    /** Switches the protocol replies are written in, from the next byte on (HELLO). */
    public void switchProtocol(Client client, int protocol) {
        client.protocol = protocol;
        if (busy != null) busyReplies.protocol(protocol); else writer.protocol(protocol);
    }

    private void reject(Client client, byte[][] args, CommandSpec spec, String error) {
        if (spec != null && TransactionControl.isExec(spec)) {
            error = TransactionControl.execAbort(error);
            client.multi = null;
            if (client.watch != null) client.watch.unwatchAll();
            // Monitors saw MULTI: EXEC tells them the transaction is over (execCommandAbort).
            feedMonitors(client, spec, args);
        }
        writer.error(error);
        server.stats().errorReply(error);
        if (spec != null) spec.stats.rejectedCalls++;
        if (client.multi != null) client.multi.dirty = true;
        if (client.replicaFlags() != 0) errorOnReplicationLink(client, spec, error);
    }

    /**
     * Redis's afterErrorReply for the master's client on a replica and for a replica's on a
     * master: the error never reaches the other side (neither is answered), so it is logged, as
     * the data may now differ, and counted in INFO's unexpected_error_replies.
     */
    private void errorOnReplicationLink(Client client, CommandSpec spec, String error) {
        boolean master = client.isMaster();
        if (!master && (client.replicaFlags() & ReplicaFlags.SYNCING) == 0) return;
        String text = error.length() > 4096 ? error.substring(0, 4096) : error;
        log.warn("== CRITICAL == This {} is sending an error to its {}: '{}' after processing the command '{}'",
                master ? "replica" : "master", master ? "master" : "replica", text, spec != null ? spec.fullName : "<unknown>");
        server.stats().unexpectedErrorReplies++;
    }

    /**
     * Redis's getCommandFlags as processCommand uses them: the call's own (a script's shebang
     * decides for EVAL and FCALL), and for an EXEC also those of the commands it queued.
     */
    private int callFlags(Client client, CommandSpec spec, byte[][] args) {
        int flags = spec.callFlags(server, args);
        if (client.multi != null && TransactionControl.isExec(spec)) {
            // EXEC may do what any queued command does, and may run stale only if all of them may.
            for (int i = 0, n = client.multi.specs.size(); i < n; i++) {
                int queued = client.multi.specs.get(i).callFlags(server, client.multi.queued.get(i));
                flags = (flags | queued) & (queued | ~CallFlags.STALE);
            }
        }
        return flags;
    }
}
