package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** COMMAND and its subcommands, generated from the specs. */
public final class CommandCommands implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("COMMAND", -1, LOADING, STALE).doc("2.8.13", "Get array of Redis command details")
                .sub(spec("COUNT", 2, LOADING, STALE).doc("2.8.13", "Get total number of Redis commands"), this::count),
                c -> c.reply().emptyArray());
    }

    /** COMMAND COUNT */
    private void count(Call c) {
        c.reply().integer(c.server().commands().size());
    }
}
