package io.cinnabar.command;

import io.cinnabar.config.Config;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.LongDouble;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One command being executed: its arguments, the client, the reply and the server. The
 * Dispatcher keeps one instance per nesting level (a command, an EXEC's queued command, a
 * script's redis.call) and reuses it for the next command at that level, so a nested run never
 * touches its caller's Call and plain commands allocate none.
 */
public final class Call {
    private final ServerContext server;
    private final Dispatcher dispatcher;
    private final long[] parsed = new long[1];
    byte[][] args;
    Client client;
    Reply reply;
    CommandSpec spec;
    /** What the command asked to propagate instead of its argv (Redis's rewriteClientCommandVector). */
    byte[][] propagateAs;
    boolean propagationPrevented, propagationForced;
    /** args as MONITOR shows them: a copy with secrets replaced once the handler redacts one. */
    byte[][] shownArgs;
    private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

    Call(ServerContext server, Dispatcher dispatcher) {
        this.server = server;
        this.dispatcher = dispatcher;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /** False inside MULTI/EXEC (and scripts): blocking commands then act as their non-blocking twins. */
    public boolean mayBlock() {
        return dispatcher.mayBlock();
    }

    /** True inside EXEC: Redis's server.in_exec (background saves are then scheduled, not started). */
    public boolean inExec() {
        return !dispatcher.mayBlock();
    }

    /** Replies of this client not on the socket yet: earlier commands of a pipeline, or the EXEC this runs in. */
    public boolean repliesPending() {
        return dispatcher.repliesPending(client);
    }

    /** True when this run is a blocked client's retry after one of its keys got data. */
    public boolean isRetry() {
        return server.blocked().isRetry(client);
    }

    /** When {@link #isRetry}: the key that got data. */
    public byte[] readyKey() {
        return server.blocked().retryKey();
    }

    /**
     * Blocks this client on keys (in its current database) until one of them gets data, when the
     * command runs again; at deadlineMs (0 = never) timeoutReply answers instead. The handler
     * returns right after calling this, without replying.
     */
    public void block(byte[][] keys, long deadlineMs, java.util.function.Consumer<io.cinnabar.protocol.Reply> timeoutReply) {
        server.blocked().block(client, spec, args, keys, deadlineMs, timeoutReply, false);
    }

    /**
     * As {@link #block}, and the command also runs again when one of the keys is deleted, replaced
     * or flushed away (Redis's signalDeletedKeyAsReady: XREADGROUP then fails, as its group is gone).
     */
    public void blockUntilDataOrGone(byte[][] keys, long deadlineMs, java.util.function.Consumer<io.cinnabar.protocol.Reply> timeoutReply) {
        server.blocked().block(client, spec, args, keys, deadlineMs, timeoutReply, true);
    }

    /**
     * Shows this command to MONITOR clients now, ahead of the commands it runs (EVAL, FCALL:
     * their skip_monitor flag keeps them out of the usual feed after a command).
     */
    public void showToMonitors() {
        if (!server.keyspace().isLoading()) server.monitors().feed(client, client.db, args);
    }

    /** Tells clients blocked on key in this database that it got data (if it was not just created). */
    public void signalReady(byte[] key) {
        server.blocking().signal(client.db, key);
    }

    /**
     * Tells clients blocked on keys of database db that their keys may have changed (SWAPDB,
     * FLUSHDB). A key is there as scanDatabaseForReadyKeys's dictFind sees it, expired or not: an
     * expired one is deleted (and the DEL propagated) only when the client is served, after the command.
     */
    public void signalDatabase(int db) {
        server.blocking().signalDatabase(db, key -> server.keyspace().db(db).containsPhysically(key));
    }

    /**
     * A blocking command's timeout argument in seconds (decimals allowed) as an absolute deadline
     * in unix ms, 0 for "forever"; Redis's errors for bad values. Read as getTimeoutFromObjectOrReply
     * does, in long double: (long long) ceill(seconds * 1000.0), so that 1e-400 waits 1 ms, -0.001
     * and -1e-400 round up to 0 (forever), and 1e400 or inf cast to LLONG_MIN ("negative").
     */
    public long timeoutArg(int i) {
        long ms = wholeSecondsAsMs(args[i]);
        if (ms < 0) {
            LongDouble seconds = LongDouble.parse(args[i]);
            if (seconds == null) throw new CommandError("ERR timeout is not a float or out of range");
            ms = seconds.multiply(THOUSAND).ceilToLong();
            if (ms < 0) throw new CommandError("ERR timeout is negative");
        }
        if (ms == 0) return 0;
        long deadline = ms + now();
        // Redis adds without a check: a sum past LLONG_MAX wraps negative, and its timeout checks
        // compare deadlines as unsigned, so that client waits forever.
        return deadline < 0 ? 0 : deadline;
    }

    private static final LongDouble THOUSAND = LongDouble.of(1000);

    /**
     * The usual timeout, up to nine plain digits of whole seconds, in ms without the exact long
     * double arithmetic (a queue's worker may send one with every BLPOP); -1 for anything else.
     */
    private static long wholeSecondsAsMs(byte[] a) {
        if (a.length == 0 || a.length > 9) return -1;
        long n = 0;
        for (byte b : a) {
            if (b < '0' || b > '9') return -1;
            n = n * 10 + (b - '0');
        }
        return n * 1000;
    }

    /** Replies from here on use RESP version p (HELLO). */
    public void switchProtocol(int p) {
        dispatcher.switchProtocol(client, p);
    }

    /** Fires keyspace event (class type, e.g. {@link KeyspaceEvents#LIST}) on key of the client's database. */
    public void notify(int type, String event, byte[] key) {
        server.events().fire(type, event, key, client.db);
    }

    /** Fires keyspace event on key of database db (MOVE's and COPY's target). */
    public void notify(int type, String event, byte[] key, int db) {
        server.events().fire(type, event, key, db);
    }

    // ---- propagation (AOF, later replication): what this command's execution amounts to ----

    /**
     * Propagates argv instead of the command as it was sent, when the command changed the data:
     * EXPIRE as PEXPIREAT, SETEX as SET ... PXAT, INCRBYFLOAT as SET with the result...
     */
    public void propagateAs(byte[]... argv) {
        propagateAs = argv;
    }

    /**
     * The rest of the command runs on argv instead, and argv is what propagates (Redis's
     * replaceClientCommandVector): GEOADD hands ZADD its arguments with the scores worked out.
     * MONITOR and the command's stats still see the command as sent.
     */
    public void replaceArgs(byte[]... argv) {
        args = argv;
        propagateAs = argv;
    }

    /** Propagates argv (run in the client's database) before the command itself (Redis's alsoPropagate). */
    public void alsoPropagate(byte[]... argv) {
        dispatcher.alsoPropagate(client.db, argv);
    }

    /**
     * Whether anything takes what commands propagate (an AOF, replicas): arguments made only to
     * be propagated need not be made otherwise.
     */
    public boolean propagates() {
        return dispatcher.propagates();
    }

    /** The command's own argv is not propagated, even if it changed the data (it said so with alsoPropagate). */
    public void preventPropagation() {
        propagationPrevented = true;
    }

    /** Propagates the command even though it changed nothing (FLUSHALL of an empty server). */
    public void forcePropagation() {
        propagationForced = true;
    }

    /**
     * Replies with error but keeps what the command already changed, which still propagates (a
     * thrown CommandError undoes the propagation): MIGRATE after some keys moved and then the
     * target refused one. Counted as a failed call and an error reply, as Redis's call() does.
     */
    public void errorAfterChanges(String error) {
        reply.error(error);
        spec.stats.failedCalls++;
        server.stats().errorReply(error);
    }

    /** Argument i is a secret (a password): MONITOR shows "(redacted)" instead (Redis's redactClientCommandArgument). */
    public void redact(int i) {
        if (shownArgs == args) shownArgs = args.clone();
        shownArgs[i] = REDACTED;
    }

    public byte[] arg(int i) {
        return args[i];
    }

    public byte[][] args() {
        return args;
    }

    public int argCount() {
        return args.length;
    }

    public String argString(int i) {
        return BinaryText.decode(args[i]);
    }

    /** The argument as an error quotes it: Redis formats it with %s, which stops at a NUL byte. */
    public String quoted(int i) {
        return BinaryText.decodeCString(args[i]);
    }

    /** The argument upper-cased as ASCII, for matching options like "NX". */
    public String option(int i) {
        return new String(args[i], StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
    }

    /**
     * True when argument i equals word, ignoring ASCII case, as Redis's strcasecmp compares them:
     * up to a NUL byte ("NX\0junk" is NX).
     */
    public boolean argIs(int i, String word) {
        byte[] a = args[i];
        int n = word.length();
        if (a.length != n && (a.length < n || a[n] != 0)) return false;
        for (int k = 0; k < n; k++) {
            int c = a[k];
            if (c >= 'a' && c <= 'z') c -= 32;
            int w = word.charAt(k);
            if (w >= 'a' && w <= 'z') w -= 32;
            if (c != w) return false;
        }
        return true;
    }

    /** Argument i as a long, or "ERR value is not an integer or out of range". */
    public long longArg(int i) {
        if (!Numbers.parseLong(args[i], parsed)) throw CommandError.notInteger();
        return parsed[0];
    }

    /** Argument i as a long, or the given error text. */
    public long longArg(int i, String error) {
        if (!Numbers.parseLong(args[i], parsed)) throw new CommandError(error);
        return parsed[0];
    }

    /**
     * Argument i as an int, as Redis's getIntFromObjectOrReply reads it (SELECT, MOVE, COPY DB): not a
     * long, "ERR value is not an integer or out of range"; past an int, "ERR value is out of range,
     * value must between -2147483648 and 2147483647".
     */
    public int intArg(int i) {
        long v = longArg(i);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new CommandError("ERR value is out of range, value must between -2147483648 and 2147483647");
        }
        return (int) v;
    }

    /** Argument i as an int, or the given error text for both a non-number and one past an int (getIntFromObjectOrReply with a message). */
    public int intArg(int i, String error) {
        long v = longArg(i, error);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new CommandError(error);
        return (int) v;
    }

    /** Argument i as a double, or "ERR value is not a valid float". */
    public double doubleArg(int i) {
        double d = Numbers.parseDouble(args[i]);
        if (Double.isNaN(d)) throw new CommandError(CommandError.NOT_FLOAT);
        return d;
    }

    public Client client() {
        return client;
    }

    public Reply reply() {
        return reply;
    }

    public CommandSpec spec() {
        return spec;
    }

    public ServerContext server() {
        return server;
    }

    public Config config() {
        return server.config();
    }

    public Keyspace keyspace() {
        return server.keyspace();
    }

    /** The client's selected database. */
    public Database db() {
        return server.keyspace().db(client.db);
    }

    /**
     * Redis's checkAlreadyExpired: an absolute expiry time (unix ms) that deletes the key instead
     * of setting a TTL. Not while loading (the AOF's later commands may still need the key), nor
     * on a replica (the master's DEL will come, and until then the key is there for its stream).
     */
    public boolean alreadyExpired(long whenMs) {
        return whenMs <= mstime() && !server.keyspace().isLoading() && server.masterLink().host() == null;
    }

    /** Unix ms at this instant, as Redis's mstime(), for times relative to now (EXPIRE, SET EX). */
    public long mstime() {
        return server.keyspace().mstime();
    }

    /** The current command time, fixed for the whole command (unix ms). */
    public long now() {
        return server.keyspace().now();
    }
}
