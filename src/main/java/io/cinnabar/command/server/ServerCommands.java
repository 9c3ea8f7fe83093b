package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.persistence.Persistence;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_MULTI;
import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;

/** DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, TIME, LASTSAVE, DEBUG, SHUTDOWN. */
public final class ServerCommands implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("DBSIZE", 1, READONLY, FAST).acl("@keyspace").tips("request_policy:all_shards", "response_policy:agg_sum")
                .doc("1.0.0", "Return the number of keys in the selected database", "O(1)"), this::dbsize);
        t.add(spec("FLUSHDB", -1, WRITE).acl("@keyspace", "@dangerous").tips("request_policy:all_shards", "response_policy:all_succeeded")
                .doc("1.0.0", "Remove all keys from the current database", "O(N) where N is the number of keys in the selected database")
                .history("4.0.0", "Added the `ASYNC` flushing mode modifier.", "6.2.0", "Added the `SYNC` flushing mode modifier."), this::flushdb);
        t.add(spec("FLUSHALL", -1, WRITE).acl("@keyspace", "@dangerous").tips("request_policy:all_shards", "response_policy:all_succeeded")
                .doc("1.0.0", "Remove all keys from all databases", "O(N) where N is the total number of keys in all databases")
                .history("4.0.0", "Added the `ASYNC` flushing mode modifier.", "6.2.0", "Added the `SYNC` flushing mode modifier."), this::flushall);
        t.add(spec("SWAPDB", 3, WRITE, FAST).acl("@keyspace", "@dangerous").doc("4.0.0", "Swaps two Redis databases",
                        "O(N) where N is the count of clients watching or blocking on keys from both databases."), this::swapdb);
        t.add(spec("TIME", 1, LOADING, STALE, FAST).tips("nondeterministic_output")
                .doc("2.6.0", "Return the current server time", "O(1)"), this::time);
        t.add(spec("DEBUG", -2, ADMIN, NOSCRIPT, LOADING, STALE).protectedBy(ConfigOptions.ENABLE_DEBUG_COMMAND)
                .doc("1.0.0", "A container for debugging commands", "Depends on subcommand.")
                .syscmd(), new DebugCommand()::debug);
        t.add(spec("SHUTDOWN", -1, ADMIN, NOSCRIPT, LOADING, STALE, NO_MULTI, ALLOW_BUSY).runsWhileBusy()
                .doc("1.0.0", "Synchronously save the dataset to disk and then shut down the server",
                        "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)")
                .history("7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers."), this::shutdown);
    }

    /** DBSIZE */
    private void dbsize(Call c) {
        c.reply().integer(c.db().size());
    }

    /** FLUSHDB [ASYNC|SYNC] */
    private void flushdb(Call c) {
        boolean lazy = flushIsAsync(c);
        long dropped = c.db().clear();
        if (lazy) c.keyspace().lazyFree().databaseDropped(dropped);
        HeapReturn.afterFlush(dropped);
        c.signalDatabase(c.client().db());
        c.server().tracking().flushed();
        // Propagated even when the database was empty already, as Redis does.
        c.forcePropagation();
        c.reply().ok();
    }

    /**
     * FLUSHALL [ASYNC|SYNC]: as Redis's flushAllDataAndResetRDB, a running BGSAVE is stopped and,
     * with save points set, the empty data set is saved at once (so the dirty counter is 0).
     */
    private void flushall(Call c) {
        boolean lazy = flushIsAsync(c);
        long dropped = c.keyspace().flushAll();
        if (lazy) c.keyspace().lazyFree().databaseDropped(dropped);
        HeapReturn.afterFlush(dropped);
        for (int db = 0; db < c.keyspace().databaseCount(); db++) c.signalDatabase(db);
        c.server().tracking().flushed();
        Persistence p = c.server().persistence();
        p.rdb().killBgsave();
        if (!c.config().getString(ConfigOptions.SAVE).isEmpty()) p.rdb().save();
        c.forcePropagation();
        c.reply().ok();
    }

    /** Redis's getFlushCommandFlags: ASYNC, SYNC, or lazyfree-lazy-user-flush when neither is given. */
    private static boolean flushIsAsync(Call c) {
        if (c.argCount() > 2) throw CommandError.syntax();
        if (c.argCount() == 1) return c.config().getBool(ConfigOptions.LAZYFREE_LAZY_USER_FLUSH);
        if (c.argIs(1, "ASYNC")) return true;
        if (c.argIs(1, "SYNC")) return false;
        throw CommandError.syntax();
    }

    /** SWAPDB index1 index2 */
    private void swapdb(Call c) {
        if (c.server().cluster() != null) throw new CommandError("ERR SWAPDB is not allowed in cluster mode");
        Keyspace ks = c.keyspace();
        int a = c.intArg(1, "ERR invalid first DB index");
        int b = c.intArg(2, "ERR invalid second DB index");
        if (a < 0 || a >= ks.databaseCount() || b < 0 || b >= ks.databaseCount()) {
            throw new CommandError("ERR DB index is out of range");
        }
        if (a != b) {
            ks.swap(a, b);
            ks.dirty(1);
            // Clients blocked on keys of either database get served, or told their stream is gone.
            c.signalDatabase(a);
            c.signalDatabase(b);
        }
        c.reply().ok();
    }

    /** TIME */
    private void time(Call c) {
        // A clock moved by hand is the server's time (scripts that read TIME follow the test).
        long micros = c.server().manualClock() != null ? c.mstime() * 1000
                : java.time.temporal.ChronoUnit.MICROS.between(java.time.Instant.EPOCH, java.time.Instant.now());
        c.reply().array(2);
        c.reply().bulk(micros / 1_000_000);
        c.reply().bulk(micros % 1_000_000);
    }

    /** SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] */
    private void shutdown(Call c) {
        boolean nosave = false, save = false, force = false, abort = false, now = false, flags = false;
        for (int i = 1; i < c.argCount(); i++) {
            if (c.argIs(i, "NOSAVE")) nosave = flags = true;
            else if (c.argIs(i, "SAVE")) save = flags = true;
            else if (c.argIs(i, "NOW")) now = flags = true;
            else if (c.argIs(i, "FORCE")) force = flags = true;
            else if (c.argIs(i, "ABORT")) abort = true;
            else throw CommandError.syntax();
        }
        if ((abort && flags) || (nosave && save)) throw CommandError.syntax();
        if (abort) {
            if (!c.server().abortShutdown()) throw new CommandError("ERR No shutdown in progress.");
            c.reply().ok();
            return;
        }
        if (c.dispatcher().busy()) {
            // A script owns the keyspace past busy-reply-threshold: NOSAVE stops it, then the server.
            // The answer waits for that: the listeners close before this connection does.
            if (!nosave) throw new CommandError(c.server().busyError());
            var server = c.server();
            var client = c.client();
            boolean forced = force;
            server.abortLongRun();
            server.thread().execute(() -> {
                String error = server.shutdown(false, true, forced);
                if (error == null) {
                    client.channel().send(new byte[0], true);
                    return;
                }
                io.cinnabar.protocol.RespWriter reply = new io.cinnabar.protocol.RespWriter(64);
                reply.error("ERR " + error);
                client.channel().send(reply, false);
            });
            return;
        }
        if (!now && c.server().shutdownAfterReplicas(save, nosave, force)) {
            // It waits for lagging replicas: the connection closes with the server, or gets the error.
            c.block(new byte[0][], 0, r -> { });
            c.server().waitForShutdown(c.client());
            return;
        }
        String error = c.server().shutdown(save, nosave, force);
        if (error != null) throw new CommandError("ERR " + error);
        // Redis replies nothing on success: the connection just closes.
        c.client().closeAfterReply();
    }
}
