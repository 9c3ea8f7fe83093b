package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;

/** Generic key commands. */
public final class KeyCommands implements CommandFamily {
    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("DEL", -2, WRITE).keys(1, -1, 1).doc("1.0.0", "Delete a key"), this::del);
        t.add(spec("EXISTS", -2, READONLY, io.cinnabar.command.CommandFlag.FAST).keys(1, -1, 1).doc("1.0.0", "Determine if a key exists"), this::exists);
    }

    /** DEL key [key ...] */
    private void del(Call c) {
        long n = 0;
        for (int i = 1; i < c.argCount(); i++) if (c.db().delete(c.arg(i))) n++;
        c.reply().integer(n);
    }

    /** EXISTS key [key ...] */
    private void exists(Call c) {
        long n = 0;
        for (int i = 1; i < c.argCount(); i++) if (c.db().exists(c.arg(i))) n++;
        c.reply().integer(n);
    }
}
