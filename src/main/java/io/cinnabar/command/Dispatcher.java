package io.cinnabar.command;

import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.WrongTypeException;
import io.cinnabar.protocol.Request;
import io.cinnabar.protocol.RespConstants;
import io.cinnabar.protocol.RespWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * Runs batches of requests on the keyspace thread: looks each command up, checks arity, auth and
 * MULTI state once, centrally, with Redis's exact messages, runs the handler and hands the whole
 * batch's replies back to the connection in one piece.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

    private final ServerContext server;
    private final CommandTable commands;
    private final Keyspace keyspace;
    private final RespWriter writer = new RespWriter(64 * 1024);
    private final Call call;

    public Dispatcher(ServerContext server) {
        this.server = server;
        this.commands = server.commands();
        this.keyspace = server.keyspace();
        this.call = new Call(server, this);
        this.call.reply = writer;
    }

    public ServerContext server() {
        return server;
    }

    /** Executes one client's batch and sends the replies. Keyspace thread only. */
    public void executeBatch(Client client, List<Request> batch) {
        if (client.closing) return;
        writer.protocol(client.protocol);
        for (int i = 0, n = batch.size(); i < n; i++) {
            Request r = batch.get(i);
            if (r.isProtocolError()) {
                writer.error("ERR " + r.protocolError);
                server.stats().errorReply("ERR");
                client.closeAfterReply = true;
                break;
            }
            execute(client, r.args);
            if (client.closeAfterReply || client.closing) break;
        }
        byte[] out = writer.takeBytes();
        server.stats().netOutputBytes += out.length;
        if (!client.closing) client.channel().send(out, client.closeAfterReply);
    }

    /** Runs one command for client, replying into the current batch. */
    public void execute(Client client, byte[][] args) {
        // CLIENT REPLY OFF|SKIP: run the command, then drop what it replied.
        int mark = writer.size();
        boolean skipThis = client.replySkip;
        executeOne(client, args);
        // CLIENT REPLY ON clears a pending skip and must itself be answered.
        if (client.replyOff || (skipThis && client.replySkip)) writer.truncate(mark);
        if (skipThis) client.replySkip = false;
        if (client.replySkipNext) {
            client.replySkip = true;
            client.replySkipNext = false;
        }
    }

    private void executeOne(Client client, byte[][] args) {
        server.stats().totalCommandsProcessed++;
        client.lastInteractionMs = System.currentTimeMillis();
        CommandSpec spec = commands.lookup(args[0]);
        if (spec == null) {
            reject(client, null, unknownCommand(args));
            return;
        }
        if (!spec.subcommands.isEmpty() && args.length >= 2) {
            CommandSpec sub = lookupSub(spec, args[1]);
            if (sub == null) {
                reject(client, spec, "ERR unknown subcommand '" + clip(args[1]) + "'. Try "
                        + spec.name.toUpperCase(Locale.ROOT) + " HELP.");
                return;
            }
            spec = sub;
        }
        client.lastCommand = spec.fullName;
        if ((spec.arity > 0 && spec.arity != args.length) || args.length < -spec.arity) {
            reject(client, spec, "ERR wrong number of arguments for '" + spec.fullName + "' command");
            return;
        }
        if (!client.authenticated && !spec.noAuth && server.requirePass()) {
            reject(client, spec, "NOAUTH Authentication required.");
            return;
        }
        if (client.multi != null && spec.hasFlag(CommandFlag.NO_MULTI)) {
            reject(client, spec, "ERR Command not allowed inside a transaction");
            return;
        }
        if (client.multi != null && !TransactionControl.runsImmediately(spec)) {
            client.multi.queued.add(args);
            client.multi.specs.add(spec);
            writer.raw(RespConstants.QUEUED);
            return;
        }
        run(client, spec, args);
    }

    /** Runs an already-validated command (also used by EXEC for queued commands). */
    public void run(Client client, CommandSpec spec, byte[][] args) {
        call.args = args;
        call.client = client;
        call.spec = spec;
        keyspace.beginCommand();
        keyspace.touchEnabled(!client.noTouch);
        long start = System.nanoTime();
        int mark = writer.size();
        try {
            spec.handler().execute(call);
        } catch (CommandError e) {
            writer.truncate(mark);
            writer.error(e.getMessage());
            spec.stats.failedCalls++;
            server.stats().errorReply(e.getMessage());
        } catch (WrongTypeException e) {
            writer.truncate(mark);
            writer.error(WrongTypeException.MESSAGE);
            spec.stats.failedCalls++;
            server.stats().errorReply(WrongTypeException.MESSAGE);
        } catch (RuntimeException e) {
            log.error("Unexpected error running {}", spec.fullName, e);
            writer.truncate(mark);
            writer.error("ERR internal error: " + e);
            spec.stats.failedCalls++;
            server.stats().errorReply("ERR");
        } finally {
            keyspace.endCommand();
            keyspace.touchEnabled(true);
        }
        spec.stats.calls++;
        spec.stats.micros += (System.nanoTime() - start) / 1000;
    }

    /** The client's socket closed: forget it and whatever it was waiting for. */
    public void disconnected(Client client) {
        client.closing = true;
        client.multi = null;
        if (client.watch != null) client.watch.unwatchAll();
        server.removeClient(client);
    }

    /** Switches the protocol replies are written in, from the next byte on (HELLO). */
    public void switchProtocol(Client client, int protocol) {
        client.protocol = protocol;
        writer.protocol(protocol);
    }

    private void reject(Client client, CommandSpec spec, String error) {
        if (spec != null && spec.parent == null && spec.name.equals("exec")) {
            // Redis's execCommandAbort: a rejected EXEC also ends the transaction.
            error = "EXECABORT Transaction discarded because of: " + error;
            client.multi = null;
            if (client.watch != null) client.watch.unwatchAll();
        }
        writer.error(error);
        server.stats().errorReply(error);
        if (spec != null) spec.stats.rejectedCalls++;
        if (client.multi != null) client.multi.dirty = true;
    }

    private static CommandSpec lookupSub(CommandSpec container, byte[] name) {
        for (CommandSpec s : container.subcommands.values()) {
            if (CommandTable.equalsIgnoreCase(s.name, name)) return s;
        }
        return null;
    }

    private static String unknownCommand(byte[][] args) {
        StringBuilder list = new StringBuilder();
        for (int i = 1; i < args.length && list.length() < 128; i++) {
            String a = new String(args[i], StandardCharsets.UTF_8);
            int room = 128 - list.length();
            list.append('\'').append(a, 0, Math.min(a.length(), room)).append("' ");
        }
        return "ERR unknown command '" + clip(args[0]) + "', with args beginning with: " + list;
    }

    private static String clip(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        return s.length() > 128 ? s.substring(0, 128) : s;
    }
}
