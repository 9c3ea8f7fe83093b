package io.cinnabar.command;

import io.cinnabar.protocol.Request;
import io.cinnabar.protocol.RespWriter;

import java.util.List;

/**
 * Answers clients while a script owns the keyspace past busy-reply-threshold: BUSY, except for
 * Redis's ALLOW_BUSY commands. Those whose handlers touch nothing the keyspace owns run at once
 * (SCRIPT KILL, SHUTDOWN NOSAVE, MULTI, the connection handshake: HELLO, AUTH, QUIT); the others
 * (WATCH, UNWATCH, DISCARD, RESET, REPLCONF) while the script stands still at its next check,
 * where Redis runs them from the script's hook.
 */
final class BusyReplies {
    /** The BUSY error before a script says which kind it is (EVAL or FUNCTION). */
    static final String BUSY = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

    private final ServerContext server;
    private final RespWriter writer = new RespWriter(1024);
    private final Call call;
    private final LongCommandRunner longRuns;

    BusyReplies(ServerContext server, Dispatcher dispatcher, LongCommandRunner longRuns) {
        this.server = server;
        this.longRuns = longRuns;
        this.call = new Call(server, dispatcher);
        this.call.reply = writer;
    }

    /** Answers client's batch and sends the replies. */
    void answer(Client client, List<byte[][]> batch) {
        writer.protocol(client.protocol);
        for (byte[][] r : batch) {
            if (Request.isProtocolError(r)) {
                writer.error("ERR " + Request.errorMessage(r));
                client.closeAfterReply = true;
                break;
            }
            run(client, r);
            if (client.closeAfterReply || client.closing) break;
        }
        byte[] out = writer.takeBytes();
        if (!client.closing) client.channel().send(out, client.closeAfterReply);
    }

    /** HELLO while busy: the rest of its reply is in the protocol it chose. */
    void protocol(int protocol) {
        writer.protocol(protocol);
    }

    /**
     * Runs a command that is safe while busy (the connection handshake, SCRIPT KILL...); refuses
     * the others, after the checks Redis's processCommand makes before the busy one.
     */
    private void run(Client client, byte[][] args) {
        CommandSpec spec = server.commands().lookup(args[0]);
        if (spec == null) {
            writer.error(rejected(client, null, Refusals.unknownCommand(args)));
            return;
        }
        if (!spec.subcommands.isEmpty() && args.length >= 2) {
            CommandSpec sub = CommandTable.subcommand(spec, args[1]);
            if (sub == null) {
                writer.error(rejected(client, spec, Refusals.unknownSubcommand(spec, args[1])));
                return;
            }
            spec = sub;
        }
        // In Redis's processCommand order: a NO_MULTI command in MULTI is refused before the busy check,
        // and what passes that check (ALLOW_BUSY) is queued in MULTI like any command (SCRIPT KILL,
        // FUNCTION KILL, HELLO, UNWATCH: QUEUED, not run).
        // ACLs too, before BUSY: a user without SCRIPT KILL gets NOPERM and kills nothing. So are DEBUG
        // when not enabled and a RESP2 subscriber's commands refused with their own errors.
        String refusal = !spec.arityAccepts(args) ? Refusals.wrongArity(spec) : Refusals.protectedCommand(server, client, spec);
        if (refusal == null && Refusals.needsAuth(server, client, spec)) refusal = Refusals.NOAUTH;
        if (refusal == null && client.multi != null && spec.hasFlag(CommandFlag.NO_MULTI)) {
            refusal = "ERR Command not allowed inside a transaction";
        }
        if (refusal == null) refusal = server.acl().busyRefusal(client, spec, args, server.thread()::execute);
        if (refusal == null) refusal = Refusals.subscribedContext(client, spec);
        if (refusal == null && !spec.hasFlag(CommandFlag.ALLOW_BUSY)) refusal = server.busyError();
        if (refusal == null && client.multi != null && !TransactionControl.runsImmediately(spec)) {
            client.multi.queued.add(args);
            client.multi.specs.add(spec);
            writer.raw(io.cinnabar.protocol.RespConstants.QUEUED);
            return;
        }
        if (refusal != null) {
            writer.error(rejected(client, spec, refusal));
            return;
        }
        call.client = client;
        call.args = args;
        call.shownArgs = args;
        call.spec = spec;
        if (spec.runsWhileBusy) execute();
        else longRuns.runHeld(this::execute);
    }

    private void execute() {
        try {
            call.spec.handler().execute(call);
        } catch (CommandError e) {
            writer.error(e.getMessage());
        }
    }

    /**
     * As Redis's rejectCommand: a transaction the client is queueing is flagged (its EXEC will
     * abort), and a rejected EXEC aborts it now, its WATCHes dropped while the script stands still
     * (the watched-key tables belong to the keyspace, which the script owns).
     */
    private String rejected(Client client, CommandSpec spec, String error) {
        if (client.multi == null) return error;
        if (spec != null && TransactionControl.isExec(spec)) {
            client.multi = null;
            if (client.watch != null) longRuns.runHeld(client.watch::unwatchAll);
            return TransactionControl.execAbort(error);
        }
        client.multi.dirty = true;
        return error;
    }
}
