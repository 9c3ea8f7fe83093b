package io.cinnabar.command.testing;

import io.cinnabar.command.Call;

/** One subcommand of CINNABAR; c.arg(1) is its name, its own arguments follow. */
interface CinnabarSubcommand {
    void run(Call c);

    /** Its lines of CINNABAR HELP: the syntax, then what it does, indented as Redis's help is. */
    String[] help();
}
