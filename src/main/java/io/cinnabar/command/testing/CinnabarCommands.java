package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/**
 * CINNABAR: Cinnabar's test controls over the protocol, registered only with
 * {@code enable-test-commands yes} (otherwise an unknown command, as in Redis). The first
 * argument names the subcommand.
 */
public final class CinnabarCommands implements CommandFamily {
    /** Every subcommand by name, in one place. */
    private static final Map<String, CinnabarSubcommand> SUBCOMMANDS = new TreeMap<>(Map.of(
            "CLOCK", new ClockSubcommand(),
            "FAULT", new FaultSubcommand(),
            "RECORD", new RecordSubcommand(),
            "RESET", new ResetSubcommand()));

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CINNABAR", -2, NOSCRIPT, LOADING, STALE)
                .doc("7.0.0", "Cinnabar's test controls: CINNABAR " + String.join("|", SUBCOMMANDS.keySet()) + " ...", "O(1)"),
                CinnabarCommands::run);
    }

    /** CINNABAR subcommand [argument ...] */
    private static void run(Call c) {
        // Test controls act on this server only: an AOF must load on a server without them.
        c.preventPropagation();
        if (c.argCount() == 2 && "HELP".equals(c.option(1))) {
            HelpReply.reply(c, SUBCOMMANDS.values().stream().flatMap(s -> Arrays.stream(s.help())).toArray(String[]::new));
            return;
        }
        CinnabarSubcommand sub = SUBCOMMANDS.get(c.option(1));
        if (sub == null) throw CommandError.subcommandSyntax(c.args());
        sub.run(c);
    }

    /** The server's test controls (faults, recorder, reset), for a subcommand. */
    static TestControls controls(Call c) {
        return TestControls.of(c.server(), c.dispatcher());
    }
}
