package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;

/** DEBUG subcommands the test suite and operators use; the rest answer like Redis's unknown ones. */
final class DebugCommand {
    /** DEBUG SLEEP seconds | DEBUG SET-ACTIVE-EXPIRE 0|1 | ... */
    void debug(Call c) {
        if (c.argIs(1, "SLEEP") && c.argCount() == 3) {
            double seconds = c.doubleArg(2);
            try {
                // Blocking the keyspace thread is the point: it simulates a slow command.
                Thread.sleep((long) (seconds * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            c.reply().ok();
        } else if (c.argIs(1, "SET-ACTIVE-EXPIRE") && c.argCount() == 3) {
            c.server().activeExpireEnabled(c.longArg(2) != 0);
            c.reply().ok();
        } else if (c.argIs(1, "HELP")) {
            String[] lines = {
                "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "SET-ACTIVE-EXPIRE <0|1>",
                "    Setting it to 0 disables expiring keys in background when they are not accessed.",
                "SLEEP <seconds>",
                "    Stop the server for <seconds>. Decimals allowed.",
                "HELP",
                "    Print this help."
            };
            c.reply().array(lines.length);
            for (String l : lines) c.reply().simple(l);
        } else {
            throw new CommandError("ERR unknown subcommand '" + c.argString(1) + "'. Try DEBUG HELP.");
        }
    }
}
