package io.cinnabar.command.connection;

import io.cinnabar.command.Call;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.protocol.Reply;
import io.cinnabar.protocol.RespConstants;
import io.cinnabar.util.Numbers;


import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_AUTH;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET. */
public final class ConnectionCommands implements CommandFamily {
    private static final byte[] RESET_REPLY = RespConstants.ascii("+RESET\r\n");
    private static final byte[] DEFAULT_USER = RespConstants.ascii("default");
    private static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

    @Override
    public String group() {
        return "connection";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("PING", -1, FAST).refusedOnDiskError().allowedWhileSubscribed().tips("request_policy:all_shards", "response_policy:all_succeeded")
                .doc("1.0.0", "Ping the server", "O(1)"), this::ping);
        t.add(spec("ECHO", 2, LOADING, STALE, FAST).doc("1.0.0", "Echo the given string", "O(1)"), this::echo);
        t.add(spec("HELLO", -1, NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, ALLOW_BUSY).runsWhileBusy().doc("6.0.0", "Handshake with Redis", "O(1)")
                .history("6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."), this::hello);
        t.add(spec("AUTH", -2, NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, ALLOW_BUSY).runsWhileBusy()
                .doc("1.0.0", "Authenticate to the server", "O(N) where N is the number of passwords defined for the user")
                .history("6.0.0", "Added ACL style (username and password)."), this::auth);
        t.add(spec("SELECT", 2, LOADING, STALE, FAST).doc("1.0.0", "Change the selected database for the current connection", "O(1)"), this::select);
        t.add(spec("QUIT", -1, ALLOW_BUSY, NOSCRIPT, LOADING, STALE, FAST, NO_AUTH).runsWhileBusy().allowedWhileSubscribed()
                .doc("1.0.0", "Close the connection", "O(1)"), this::quit);
        t.add(spec("RESET", 1, NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, ALLOW_BUSY).allowedWhileSubscribed()
                .doc("6.2.0", "Reset the connection", "O(1)"), this::reset);
    }

    /** PING [message] */
    private void ping(Call c) {
        if (c.argCount() > 2) throw new CommandError("ERR wrong number of arguments for 'ping' command");
        if (c.client().subscribed() && c.client().protocol() == 2) {
            // Subscriber mode in RESP2 answers like a message: ["pong", message or ""].
            c.reply().array(2);
            c.reply().bulk("pong");
            c.reply().bulk(c.argCount() == 1 ? new byte[0] : c.arg(1));
        } else if (c.argCount() == 1) {
            c.reply().raw(RespConstants.PONG);
        } else {
            c.reply().bulk(c.arg(1));
        }
    }

    /** ECHO message */
    private void echo(Call c) {
        c.reply().bulk(c.arg(1));
    }

    /** HELLO [protover [AUTH username password] [SETNAME clientname]] */
    private void hello(Call c) {
        Client client = c.client();
        int protocol = client.protocol();
        int i = 1;
        if (c.argCount() >= 2) {
            long[] v = new long[1];
            if (!Numbers.parseLong(c.arg(1), v)) {
                throw new CommandError("ERR Protocol version is not an integer or out of range");
            }
            if (v[0] < 2 || v[0] > 3) throw new CommandError("NOPROTO unsupported protocol version");
            protocol = (int) v[0];
            i = 2;
        }
        for (; i < c.argCount(); i++) {
            int more = c.argCount() - i - 1;
            if (c.argIs(i, "AUTH") && more >= 2) {
                c.redact(i + 1);
                c.redact(i + 2);
                // As Redis: authenticated at once, even if a later option is refused.
                if (!c.server().acl().authenticate(client, c.arg(i + 1), c.arg(i + 2), c.arg(0))) throw new CommandError(WRONGPASS);
                i += 2;
            } else if (c.argIs(i, "SETNAME") && more >= 1) {
                // As Redis (clientSetNameOrReply in the loop): named at once, even if a later option is
                // refused or the client is left unauthenticated; "" clears the name.
                byte[] name = c.arg(i + 1);
                ClientNames.validate(name);
                client.name(name.length == 0 ? null : name);
                i += 1;
            } else {
                throw new CommandError("ERR Syntax error in HELLO option '" + c.quoted(i) + "'");
            }
        }
        if (!client.authenticated()) {
            throw new CommandError("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    + "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
                    + "the RESP protocol version at the same time");
        }
        c.switchProtocol(protocol);
        Reply r = c.reply();
        r.map(7);
        r.bulk("server");
        r.bulk("redis");
        r.bulk("version");
        r.bulk(io.cinnabar.Version.REDIS_VERSION);
        r.bulk("proto");
        r.integer(protocol);
        r.bulk("id");
        r.integer(client.id());
        r.bulk("mode");
        r.bulk(c.server().cluster() != null ? "cluster" : "standalone");
        r.bulk("role");
        r.bulk("master");
        r.bulk("modules");
        r.emptyArray();
    }

    /** AUTH [username] password */
    private void auth(Call c) {
        if (c.argCount() > 3) throw CommandError.syntax();
        // Passwords (and the user name with them) never reach MONITOR.
        for (int i = 1; i < c.argCount(); i++) c.redact(i);
        byte[] user = c.argCount() == 3 ? c.arg(1) : null;
        byte[] pass = c.arg(c.argCount() - 1);
        var acl = c.server().acl();
        if (user == null && acl.defaultUser().nopass()) {
            throw new CommandError("ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?");
        }
        if (!acl.authenticate(c.client(), user == null ? DEFAULT_USER : user, pass, c.arg(0))) {
            throw new CommandError(WRONGPASS);
        }
        c.reply().ok();
    }

    /** SELECT index */
    private void select(Call c) {
        int db = c.intArg(1);
        if (c.server().cluster() != null && db != 0) throw new CommandError("ERR SELECT is not allowed in cluster mode");
        if (db < 0 || db >= c.keyspace().databaseCount()) throw new CommandError("ERR DB index is out of range");
        c.client().db(db);
        c.reply().ok();
    }

    /** QUIT */
    private void quit(Call c) {
        c.reply().ok();
        c.client().closeAfterReply();
    }

    /**
     * RESET: the connection becomes as new (Redis's clearClientConnectionState): out of MONITOR,
     * transaction and WATCHes dropped, database 0, RESP2, default user, no name, replies on,
     * plus what other families registered (subscriptions, tracking). NO-EVICT is kept, as in Redis 7.0.
     */
    private void reset(Call c) {
        Client client = c.client();
        c.server().monitors().remove(client);
        c.server().connectionReset(client);
        client.multi(null);
        if (client.watch() != null) client.watch().unwatchAll();
        client.repliesOn();
        client.clearClusterFlags();
        client.db(0);
        client.name(null);
        // CLIENT NO-EVICT stays on: clearClientConnectionState leaves CLIENT_NO_EVICT alone.
        client.aclUser(null);
        client.authenticated(!c.server().requirePass());
        c.switchProtocol(2);
        c.reply().raw(RESET_REPLY);
    }
}
