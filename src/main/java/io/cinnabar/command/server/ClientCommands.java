package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.connection.ClientNames;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** CLIENT subcommands. */
public final class ClientCommands implements CommandFamily {
    @Override
    public String group() {
        return "connection";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CLIENT", -2).doc("2.4.0", "A container for client connection commands")
                .sub(spec("ID", 2, NOSCRIPT, LOADING, STALE).doc("5.0.0", "Returns the client ID for the current connection"), this::id)
                .sub(spec("SETNAME", 3, NOSCRIPT, LOADING, STALE).doc("2.6.9", "Set the current connection name"), this::setname)
                .sub(spec("GETNAME", 2, NOSCRIPT, LOADING, STALE).doc("2.6.9", "Get the current connection name"), this::getname), null);
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
}
