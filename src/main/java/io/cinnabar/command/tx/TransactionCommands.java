package io.cinnabar.command.tx;

import io.cinnabar.command.Call;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.Transaction;
import io.cinnabar.keyspace.WatchState;

import java.util.List;

import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.SKIP_SLOWLOG;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeySpec.at;

/**
 * MULTI, EXEC, DISCARD, WATCH, UNWATCH. Queueing itself is the Dispatcher's (it already knows
 * arity and unknown commands, which make the transaction dirty); this family starts, runs and
 * drops the queue and keeps the WATCH registrations.
 */
public final class TransactionCommands implements CommandFamily {
    private static final String EXECABORT = "EXECABORT Transaction discarded because of previous errors.";

    @Override
    public String group() {
        return "transactions";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MULTI", 1, NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY).runsWhileBusy()
                .doc("1.2.0", "Mark the start of a transaction block", "O(1)"), this::multi);
        t.add(spec("EXEC", 1, NOSCRIPT, LOADING, STALE, SKIP_SLOWLOG).propagatesInnerCommands()
                .doc("1.2.0", "Execute all commands issued after MULTI", "Depends on commands in the transaction"), this::exec);
        t.add(spec("DISCARD", 1, NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY)
                .doc("2.0.0", "Discard all commands issued after MULTI", "O(N), when N is the number of queued commands"), this::discard);
        t.add(spec("WATCH", -2, NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY).keys(at(1, RO).range(-1, 1))
                .doc("2.2.0", "Watch the given keys to determine execution of the MULTI/EXEC block", "O(1) for every key."), this::watch);
        t.add(spec("UNWATCH", 1, NOSCRIPT, LOADING, STALE, FAST, ALLOW_BUSY)
                .doc("2.2.0", "Forget about all watched keys", "O(1)"), this::unwatch);
    }

    /** MULTI */
    private void multi(Call c) {
        if (c.client().multi() != null) throw new CommandError("ERR MULTI calls can not be nested");
        c.client().multi(new Transaction());
        c.reply().ok();
    }

    /** EXEC */
    private void exec(Call c) {
        Client client = c.client();
        Transaction tx = client.multi();
        if (tx == null) throw new CommandError("ERR EXEC without MULTI");
        WatchState watch = client.watch();
        boolean casFailed = watch != null && (watch.isDirty() || watch.anyWatchedKeyExpired());
        client.multi(null);
        if (watch != null) watch.unwatchAll();
        if (tx.dirty()) throw new CommandError(EXECABORT);
        if (casFailed) {
            c.reply().nullArray();
            return;
        }
        List<byte[][]> queued = tx.queued();
        List<CommandSpec> specs = tx.specs();
        var dispatcher = c.dispatcher();
        // A CLIENT REPLY queued here switches replies on or off from that command on (Redisson's
        // skipResult batches queue OFF last and expect the array's header and the replies before it).
        int mark = dispatcher.replyMark();
        c.reply().array(queued.size());
        dispatcher.settleReplies(client, mark);
        var acl = c.server().acl();
        client.executing(queued);
        c.server().keyspace().keepArguments(true);
        try {
            for (int i = 0; i < queued.size(); i++) {
                mark = dispatcher.replyMark();
                // Rules may have changed since the command was queued (Redis checks again here).
                String denied = acl.execRefusal(client, specs.get(i), queued.get(i));
                if (denied != null) {
                    c.reply().error(denied);
                    c.server().stats().errorReply(denied);
                } else {
                    dispatcher.run(client, specs.get(i), queued.get(i));
                }
                dispatcher.settleReplies(client, mark);
            }
        } finally {
            client.executing(null);
            c.server().keyspace().keepArguments(false);
        }
    }

    /** DISCARD */
    private void discard(Call c) {
        Client client = c.client();
        if (client.multi() == null) throw new CommandError("ERR DISCARD without MULTI");
        client.multi(null);
        if (client.watch() != null) client.watch().unwatchAll();
        c.reply().ok();
    }

    /** WATCH key [key ...] */
    private void watch(Call c) {
        Client client = c.client();
        if (client.multi() != null) throw new CommandError("ERR WATCH inside MULTI is not allowed");
        WatchState w = client.watchState();
        // No point in watching more once a watched key was touched.
        if (!w.isDirty()) {
            for (int i = 1; i < c.argCount(); i++) w.watch(c.db(), c.arg(i));
        }
        c.reply().ok();
    }

    /** UNWATCH */
    private void unwatch(Call c) {
        if (c.client().watch() != null) c.client().watch().unwatchAll();
        c.reply().ok();
    }
}
