package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/**
 * CINNABAR: the test controls over the protocol, for tests in any language. Registered only with
 * enable-test-commands yes; otherwise the name is unknown, as any command Redis lacks. What it
 * changes is never propagated as itself (an AOF must load on a server without test commands).
 */
public final class CinnabarCommands implements CommandFamily {
    /** The subcommands by upper-case name: the one place they are listed. */
    private final Map<String, CinnabarSubcommand> subcommands = Map.of(
            "FAULT", new FaultSubcommand(),
            "RECORD", new RecordSubcommand(),
            "RESET", new ResetSubcommand(),
            "HELP", CinnabarCommands::help);

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CINNABAR", -2, NOSCRIPT, LOADING, STALE).acl("@dangerous")
                .doc("7.0.0", "Cinnabar's test controls: faults, recorder, reset", "Depends on subcommand."), this::run);
    }

    private void run(Call c) {
        c.preventPropagation();
        String name = new String(c.arg(1), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        CinnabarSubcommand sub = subcommands.get(name);
        if (sub == null) {
            throw new CommandError("ERR unknown subcommand '" + c.argString(1) + "'. Try CINNABAR HELP.");
        }
        sub.run(c);
    }

    /** The server's test controls, for a subcommand. */
    static TestControls controls(Call c) {
        return TestControls.of(c.server(), c.dispatcher());
    }

    /** CINNABAR HELP */
    private static void help(Call c) {
        if (c.argCount() != 2) throw CommandError.subcommandSyntax(c.args());
        HelpReply.reply(c,
                "FAULT ADD <command> [KEY <pattern>] [CLIENT <name-pattern>] [NTH <n>] [TIMES <n>] ERROR <text> | DELAY <ms> | DROP | CLOSE",
                "    Install a fault rule for <command> (\"*\" for all); returns its id.",
                "FAULT DEL <id>",
                "    Remove a fault rule.",
                "FAULT LIST",
                "    List the fault rules.",
                "FAULT CLEAR",
                "    Remove every fault rule.",
                "RECORD ON|OFF",
                "    Start or stop recording the commands clients send.",
                "RECORD GET [<count>]",
                "    Return the last <count> recorded commands (default all), oldest first, each as",
                "    [time-ms, client-name, db, command, args...].",
                "RECORD CLEAR",
                "    Forget the recorded commands.",
                "RESET",
                "    Put the server back to how it started: data, config, scripts, faults, recorder.");
    }
}
