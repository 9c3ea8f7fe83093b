package io.cinnabar.command.server;

import io.cinnabar.command.ReplicaFlags;

import io.cinnabar.command.tracking.TrackingCommands;
import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.Client;
import io.cinnabar.command.ClientPause;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.connection.ClientNames;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** CLIENT subcommands. */
public final class ClientCommands implements CommandFamily {
    private static final String[] HELP = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction."
    };

    @Override
    public String group() {
        return "connection";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CLIENT", -2).doc("2.4.0", "A container for client connection commands", "Depends on subcommand.")
                .sub(spec("ID", 2, NOSCRIPT, LOADING, STALE).doc("5.0.0", "Returns the client ID for the current connection", "O(1)"), this::id)
                .sub(spec("SETNAME", 3, NOSCRIPT, LOADING, STALE).doc("2.6.9", "Set the current connection name", "O(1)"), this::setname)
                .sub(spec("GETNAME", 2, NOSCRIPT, LOADING, STALE).doc("2.6.9", "Get the current connection name", "O(1)"), this::getname)
                .sub(spec("INFO", 2, NOSCRIPT, LOADING, STALE).tips("nondeterministic_output")
                        .doc("6.2.0", "Returns information about the current client connection.", "O(1)"), this::info)
                .sub(spec("LIST", -2, ADMIN, NOSCRIPT, LOADING, STALE).tips("nondeterministic_output")
                        .doc("2.4.0", "Get the list of client connections", "O(N) where N is the number of client connections")
                        .history("2.8.12", "Added unique client `id` field.",
                                "5.0.0", "Added optional `TYPE` filter.",
                                "6.0.0", "Added `user` field.",
                                "6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter.",
                                "7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields.",
                                "7.0.3", "Added `ssub` field."), this::list)
                .sub(spec("KILL", -3, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("2.4.0", "Kill the connection of a client", "O(N) where N is the number of client connections")
                        .history("2.8.12", "Added new filter format.",
                                "2.8.12", "`ID` option.",
                                "3.2.0", "Added `master` type in for `TYPE` option.",
                                "5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility.",
                                "6.2.0", "`LADDR` option."), this::kill)
                .sub(spec("NO-EVICT", 3, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("7.0.0", "Set client eviction mode for the current connection", "O(1)"), this::noEvict)
                .sub(spec("UNBLOCK", -3, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("5.0.0", "Unblock a client blocked in a blocking command from a different connection",
                                "O(log N) where N is the number of client connections"), this::unblock)
                .sub(spec("REPLY", 3, NOSCRIPT, LOADING, STALE).doc("3.2.0", "Instruct the server whether to reply to commands", "O(1)"), this::reply)
                .sub(spec("PAUSE", -3, ADMIN, NOSCRIPT, LOADING, STALE).doc("2.9.50", "Stop processing commands from clients for some time", "O(1)")
                        .history("6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option."), this::pause)
                .sub(spec("UNPAUSE", 2, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("6.2.0", "Resume processing of clients that were paused", "O(N) Where N is the number of paused clients"), this::unpause)
                .sub(spec("TRACKING", -3, NOSCRIPT, LOADING, STALE).doc("6.0.0", "Enable or disable server assisted client side caching support",
                                "O(1). Some options may introduce additional complexity."), TrackingCommands::trackingCommand)
                .sub(spec("CACHING", 3, NOSCRIPT, LOADING, STALE)
                        .doc("6.0.0", "Instruct the server about tracking or not keys in the next request", "O(1)"), TrackingCommands::caching)
                .sub(spec("GETREDIR", 2, NOSCRIPT, LOADING, STALE)
                        .doc("6.0.0", "Get tracking notifications redirection client ID if any", "O(1)"), TrackingCommands::getredir)
                .sub(spec("TRACKINGINFO", 2, NOSCRIPT, LOADING, STALE)
                        .doc("6.2.0", "Return information about server assisted client side caching for the current connection",
                                "O(1)"), TrackingCommands::trackingInfo)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help), null);
    }

    /** CLIENT ID */
    private void id(Call c) {
        c.reply().integer(c.client().id());
    }

    /** CLIENT SETNAME connection-name */
    private void setname(Call c) {
        byte[] name = c.arg(2);
        ClientNames.validate(name);
        c.client().name(name.length == 0 ? null : name);
        c.reply().ok();
    }

    /** CLIENT GETNAME */
    private void getname(Call c) {
        if (c.client().name() == null) c.reply().nullBulk(); else c.reply().bulk(c.client().name());
    }

    /** CLIENT INFO */
    private void info(Call c) {
        StringBuilder sb = new StringBuilder(256);
        ClientInfo.append(sb, c.client(), c.client(), c.args(), c.now());
        sb.append('\n');
        c.reply().verbatim("txt", sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]] */
    private void list(Call c) {
        StringBuilder sb = new StringBuilder(256);
        long now = c.now();
        if (c.argCount() == 4 && c.argIs(2, "TYPE")) {
            String type = clientType(c.quoted(3));
            for (Client cl : c.server().clients()) {
                if (cl.closing() || !typeOf(cl).equals(type)) continue;
                ClientInfo.append(sb, cl, c.client(), c.args(), now).append('\n');
            }
        } else if (c.argCount() > 3 && c.argIs(2, "ID")) {
            long[] id = new long[1];
            for (int i = 3; i < c.argCount(); i++) {
                if (!Numbers.parseLong(c.arg(i), id)) throw new CommandError("ERR Invalid client ID");
            }
            for (int i = 3; i < c.argCount(); i++) {
                Numbers.parseLong(c.arg(i), id);
                Client cl = c.server().client(id[0]);
                if (cl != null && !cl.closing()) ClientInfo.append(sb, cl, c.client(), c.args(), now).append('\n');
            }
        } else if (c.argCount() != 2) {
            throw CommandError.syntax();
        } else {
            for (Client cl : c.server().clients()) {
                if (!cl.closing()) ClientInfo.append(sb, cl, c.client(), c.args(), now).append('\n');
            }
        }
        c.reply().verbatim("txt", sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * CLIENT KILL ip:port | CLIENT KILL [ID id] [TYPE type] [USER user] [ADDR ip:port]
     * [LADDR ip:port] [SKIPME yes/no]
     */
    private void kill(Call c) {
        String addr = null, laddr = null, type = null, user = null;
        long id = 0;
        boolean skipMe = true;
        boolean oldForm = c.argCount() == 3;
        if (oldForm) {
            addr = c.argString(2);
            skipMe = false;
        } else {
            for (int i = 2; i < c.argCount(); i += 2) {
                boolean more = i + 1 < c.argCount();
                if (c.argIs(i, "ID") && more) {
                    long[] v = new long[1];
                    if (!Numbers.parseLong(c.arg(i + 1), v) || v[0] < 1) {
                        throw new CommandError("ERR client-id should be greater than 0");
                    }
                    id = v[0];
                } else if (c.argIs(i, "TYPE") && more) {
                    type = clientType(c.quoted(i + 1));
                } else if (c.argIs(i, "ADDR") && more) {
                    addr = c.argString(i + 1);
                } else if (c.argIs(i, "LADDR") && more) {
                    laddr = c.argString(i + 1);
                } else if (c.argIs(i, "USER") && more) {
                    user = c.argString(i + 1);
                    if (c.server().acl().user(user) == null) throw new CommandError("ERR No such user '" + user + "'");
                } else if (c.argIs(i, "SKIPME") && more) {
                    if (c.argIs(i + 1, "YES")) skipMe = true;
                    else if (c.argIs(i + 1, "NO")) skipMe = false;
                    else throw CommandError.syntax();
                } else {
                    throw CommandError.syntax();
                }
            }
        }
        Client me = c.client();
        List<Client> victims = new ArrayList<>();
        for (Client cl : c.server().clients()) {
            if (cl.closing()) continue;
            if (addr != null && !addr.equals(cl.channel().remoteAddress())) continue;
            if (laddr != null && !laddr.equals(cl.channel().localAddress())) continue;
            if (type != null && !typeOf(cl).equals(type)) continue;
            if (id != 0 && cl.id() != id) continue;
            if (user != null && !user.equals(cl.user())) continue;
            if (cl == me && skipMe) continue;
            victims.add(cl);
        }
        boolean killMe = false;
        var dispatcher = c.dispatcher();
        for (Client v : victims) {
            if (v == me) {
                killMe = true;
            } else {
                dispatcher.disconnected(v);
                v.kill();
            }
        }
        if (oldForm) {
            if (victims.isEmpty()) throw new CommandError("ERR No such client");
            c.reply().ok();
        } else {
            c.reply().integer(victims.size());
        }
        // Only after the reply is queued, as Redis's CLIENT_CLOSE_AFTER_REPLY.
        if (killMe) me.closeAfterReply();
    }

    /** CLIENT REPLY ON|OFF|SKIP */
    private void reply(Call c) {
        if (c.argIs(2, "ON")) {
            c.client().replyOff(false);
            c.reply().ok();
        } else if (c.argIs(2, "OFF")) {
            c.client().replyOff(true);
        } else if (c.argIs(2, "SKIP")) {
            c.client().replySkipNext();
        } else {
            throw CommandError.syntax();
        }
    }

    /** CLIENT PAUSE timeout [WRITE | ALL] */
    private void pause(Call c) {
        // Redis's CLIENT command falls through to its generic answer for an unknown form.
        if (c.argCount() > 4) throw CommandError.subcommandSyntax(c.args());
        ClientPause.Mode mode = ClientPause.Mode.ALL;
        if (c.argCount() == 4) {
            if (c.argIs(3, "WRITE")) mode = ClientPause.Mode.WRITE;
            else if (!c.argIs(3, "ALL")) throw new CommandError("ERR CLIENT PAUSE mode must be WRITE or ALL");
        }
        long timeout = c.longArg(2, "ERR timeout is not an integer or out of range");
        if (timeout < 0) throw new CommandError("ERR timeout is negative");
        // Redis's getTimeoutFromObjectOrReply: 0 is an end time in the past, the pause ends at once.
        long end = timeout > 0 ? c.now() + timeout : 0;
        if (end < 0) end = Long.MAX_VALUE;
        c.server().pause().pause(end, mode);
        c.reply().ok();
    }

    /** CLIENT UNPAUSE */
    private void unpause(Call c) {
        c.server().pause().unpause();
        c.reply().ok();
    }

    /** CLIENT NO-EVICT ON|OFF */
    private void noEvict(Call c) {
        c.client().noEvict(onOff(c));
        c.reply().ok();
    }

    private static boolean onOff(Call c) {
        if (c.argIs(2, "ON")) return true;
        if (c.argIs(2, "OFF")) return false;
        throw CommandError.syntax();
    }

    /** CLIENT UNBLOCK client-id [TIMEOUT | ERROR] */
    private void unblock(Call c) {
        // As PAUSE: a form Redis's CLIENT does not know, its generic answer.
        if (c.argCount() > 4) throw CommandError.subcommandSyntax(c.args());
        boolean withError = false;
        if (c.argCount() == 4) {
            if (c.argIs(3, "ERROR")) withError = true;
            else if (!c.argIs(3, "TIMEOUT")) throw new CommandError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
        }
        Client target = c.server().client(c.longArg(2));
        c.reply().integer(target != null && c.server().blocked().unblock(target, withError) ? 1 : 0);
    }

    /** CLIENT HELP */
    private void help(Call c) {
        HelpReply.reply(c, HELP);
    }

    /** Redis's getClientTypeByName (strcasecmp: the name up to a NUL), as the name typeOf returns. */
    private static String clientType(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "normal": return "normal";
            case "slave":
            case "replica": return "replica";
            case "pubsub": return "pubsub";
            case "master": return "master";
            default: throw new CommandError("ERR Unknown client type '" + name + "'");
        }
    }

    /** Redis's getClientType: a client that took SYNC is a replica, a subscribed one (in RESP2 or RESP3) of type pubsub. */
    private static String typeOf(Client c) {
        if ((c.replicaFlags() & ReplicaFlags.MASTER) != 0) return "master";
        if ((c.replicaFlags() & ReplicaFlags.SYNCING) != 0) return "replica";
        return c.subscribed() ? "pubsub" : "normal";
    }
}
