package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** MONITOR: the client receives a line for every command the server runs (see Monitors). */
public final class MonitorCommand implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MONITOR", 1, ADMIN, NOSCRIPT, LOADING, STALE)
                .doc("1.0.0", "Listen for all requests received by the server in real time"), this::monitor);
    }

    /** MONITOR */
    private void monitor(Call c) {
        // Inside EXEC a reply per queued command is expected: a stream of lines cannot be one.
        if (c.inExec()) throw new CommandError("ERR MONITOR isn't allowed for DENY BLOCKING client");
        // Redis answers a second MONITOR with nothing at all.
        if (c.server().monitors().add(c.client())) c.reply().ok();
    }
}
