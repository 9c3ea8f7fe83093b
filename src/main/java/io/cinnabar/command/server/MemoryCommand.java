package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.keyspace.Entry;

import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeySpec.at;

/** MEMORY USAGE and HELP. */
public final class MemoryCommand implements CommandFamily {
    /** Entry object plus the key array's header: what every key costs besides its bytes. */
    private static final long PER_KEY = 32 + 16;

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MEMORY", -2).doc("4.0.0", "A container for memory diagnostics commands", "Depends on subcommand.")
                .sub(spec("USAGE", -3, READONLY).keys(at(2, RO))
                        .doc("4.0.0", "Estimate the memory usage of a key", "O(N) where N is the number of samples."), this::usage)
                .sub(spec("HELP", 2).doc("4.0.0", "Show helpful text about the different subcommands", "O(1)"),
                        c -> HelpReply.reply(c,
                                "USAGE <key> [SAMPLES <count>]",
                                "    Return memory in bytes used by <key> and its value. Nested values are",
                                "    sampled up to <count> times (default: 5, 0 means sample all).")), null);
    }

    /** MEMORY USAGE key [SAMPLES count] */
    private void usage(Call c) {
        for (int i = 3; i < c.argCount(); i += 2) {
            if (c.argIs(i, "SAMPLES") && i + 1 < c.argCount()) {
                if (c.longArg(i + 1) < 0) throw CommandError.syntax();
            } else {
                throw CommandError.syntax();
            }
        }
        Entry e = c.db().lookup(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        c.reply().integer(PER_KEY + e.key().length + e.valueMemory());
    }
}
