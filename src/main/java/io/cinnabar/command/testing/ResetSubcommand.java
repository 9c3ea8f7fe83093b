package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;

/** CINNABAR RESET: see {@link ServerReset}. */
final class ResetSubcommand implements CinnabarSubcommand {
    @Override
    public void run(Call c) {
        if (c.argCount() != 2) throw CommandError.subcommandSyntax(c.args());
        try {
            CinnabarCommands.controls(c).reset();
        } catch (IllegalStateException e) {
            throw new CommandError("ERR " + e.getMessage());
        }
        c.reply().ok();
    }

    @Override
    public String[] help() {
        return new String[] {
            "RESET",
            "    Puts data, config, scripts, clients' state, clock, faults and recorder back as at start.",
        };
    }
}
