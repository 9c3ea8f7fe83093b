package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.persistence.AppendOnly;
import io.cinnabar.persistence.Persistence;
import io.cinnabar.persistence.RdbSaves;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_ASYNC_LOADING;
import static io.cinnabar.command.CommandFlag.NO_MULTI;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE: snapshots and AOF rewrites on demand. */
public final class PersistenceCommands implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SAVE", 1, ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI)
                .doc("1.0.0", "Synchronously save the dataset to disk", "O(N) where N is the total number of keys in all databases"), this::save);
        t.add(spec("BGSAVE", -1, ADMIN, NOSCRIPT, NO_ASYNC_LOADING)
                .doc("1.0.0", "Asynchronously save the dataset to disk", "O(1)")
                .history("3.2.2", "Added the `SCHEDULE` option."), this::bgsave);
        t.add(spec("BGREWRITEAOF", 1, ADMIN, NOSCRIPT, NO_ASYNC_LOADING)
                .doc("1.0.0", "Asynchronously rewrite the append-only file", "O(1)"), this::bgrewriteaof);
        t.add(spec("LASTSAVE", 1, LOADING, STALE, FAST).acl("@admin", "@dangerous").tips("nondeterministic_output")
                .doc("1.0.0", "Get the UNIX time stamp of the last successful save to disk", "O(1)"), this::lastsave);
    }

    /** SAVE */
    private void save(Call c) {
        String error = c.server().persistence().rdb().save();
        if (error == null) {
            c.reply().ok();
        } else if (error.equals("Background save already in progress")) {
            throw new CommandError("ERR " + error);
        } else {
            throw new CommandError("ERR");
        }
    }

    /** BGSAVE [SCHEDULE] */
    private void bgsave(Call c) {
        boolean schedule = false;
        if (c.argCount() > 1) {
            if (c.argCount() == 2 && c.argIs(1, "SCHEDULE")) schedule = true;
            else throw CommandError.syntax();
        }
        Persistence p = c.server().persistence();
        RdbSaves.Start started = p.rdb().bgsave(schedule || c.inExec(), p.aof().rewriteInProgress() || c.inExec());
        switch (started) {
            case STARTED -> c.reply().simple("Background saving started");
            case SCHEDULED -> c.reply().simple("Background saving scheduled");
            case ALREADY_RUNNING -> throw new CommandError("ERR Background save already in progress");
            default -> throw new CommandError("ERR Another child process is active (AOF?): can't BGSAVE right now. "
                    + "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
        }
    }

    /** BGREWRITEAOF */
    private void bgrewriteaof(Call c) {
        Persistence p = c.server().persistence();
        AppendOnly.Start started = p.aof().bgrewrite(p.rdb().bgsaveInProgress() || c.inExec());
        switch (started) {
            case STARTED -> c.reply().simple("Background append only file rewriting started");
            case SCHEDULED -> c.reply().simple("Background append only file rewriting scheduled");
            default -> throw new CommandError("ERR Background append only file rewriting already in progress");
        }
    }

    /** LASTSAVE */
    private void lastsave(Call c) {
        c.reply().integer(c.server().persistence().rdb().lastSaveSeconds());
    }
}
