package io.cinnabar.command;

import io.cinnabar.protocol.Request;
import io.cinnabar.protocol.RespWriter;

import java.util.List;

/**
 * Answers clients while a script owns the keyspace past busy-reply-threshold: BUSY, except for
 * the commands whose handlers are safe then (SCRIPT KILL, SHUTDOWN NOSAVE, MULTI). Touches no
 * data: the keyspace belongs to the script until it ends.
 */
final class BusyReplies {
    /** The BUSY error before a script says which kind it is (EVAL or FUNCTION). */
    static final String BUSY = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

    private final ServerContext server;
    private final RespWriter writer = new RespWriter(1024);
    private final Call call;

    BusyReplies(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.call = new Call(server, dispatcher);
        this.call.reply = writer;
    }

    /** Answers client's batch and sends the replies. */
    void answer(Client client, List<Request> batch) {
        writer.protocol(client.protocol);
        for (Request r : batch) {
            if (r.isProtocolError()) {
                writer.error("ERR " + r.protocolError);
                client.closeAfterReply = true;
                break;
            }
            CommandSpec spec = server.commands().resolve(r.args);
            if (spec == null || !spec.runsWhileBusy || !spec.arityAccepts(r.args)) {
                writer.error(rejected(client, spec));
                continue;
            }
            call.client = client;
            call.args = r.args;
            call.spec = spec;
            try {
                spec.handler().execute(call);
            } catch (CommandError e) {
                writer.error(e.getMessage());
            }
            if (client.closeAfterReply || client.closing) break;
        }
        byte[] out = writer.takeBytes();
        if (!client.closing) client.channel().send(out, client.closeAfterReply);
    }

    /**
     * The BUSY error, as Redis's rejectCommand gives it: a transaction the client is queueing is
     * flagged (its EXEC will abort), and a rejected EXEC aborts it now. Its WATCHes are dropped
     * once the script ends: the watched-key tables belong to the keyspace, which the script owns.
     */
    private String rejected(Client client, CommandSpec spec) {
        String error = server.busyError();
        if (client.multi == null) return error;
        if (spec != null && spec.propagatesInnerCommands) {
            client.multi = null;
            if (client.watch != null) server.thread().execute(client.watch::unwatchAll);
            return TransactionControl.EXEC_ABORT + error;
        }
        client.multi.dirty = true;
        return error;
    }
}
