package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandSpec.spec;

/** Expiry commands. */
public final class ExpireCommands implements CommandFamily {
    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("TTL", 2, READONLY, FAST).keys(1, 1, 1).doc("1.0.0", "Get the time to live for a key in seconds"), this::ttl);
    }

    /** TTL key */
    private void ttl(Call c) {
        long at = c.db().expireAt(c.arg(1));
        c.reply().integer(at < 0 ? at : Math.max(0, (at - c.now() + 500) / 1000));
    }
}
