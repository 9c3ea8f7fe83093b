package io.cinnabar.command.testing;

import io.cinnabar.command.Call;

/** One subcommand of CINNABAR (c.arg(1) names it). */
public interface CinnabarSubcommand {
    void run(Call c);
}
