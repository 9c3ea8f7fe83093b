package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.ClockControl;
import io.cinnabar.command.CommandError;

/**
 * CINNABAR CLOCK NOW | ADVANCE ms | SET unix-ms: reads or moves the server's clock. Moving it
 * needs {@code clock manual}; the move returns once what became due (expiry, blocking timeouts)
 * has happened, so the reply comes after it.
 */
final class ClockSubcommand implements CinnabarSubcommand {
    static final String NOT_MANUAL = "ERR the clock is the system's: start the server with 'clock manual' to move it";

    @Override
    public void run(Call c) {
        if (c.argCount() < 3) throw wrongArity();
        if (c.argIs(2, "NOW")) {
            if (c.argCount() != 3) throw wrongArity();
            c.reply().integer(c.mstime());
            return;
        }
        boolean advance = c.argIs(2, "ADVANCE");
        if (!advance && !c.argIs(2, "SET")) {
            throw new CommandError("ERR unknown CLOCK subcommand '" + c.argString(2) + "'. Use NOW, ADVANCE <ms> or SET <unix-ms>.");
        }
        if (c.argCount() != 4) throw wrongArity();
        long ms = c.longArg(3);
        ClockControl clock = c.server().manualClock();
        if (clock == null) throw new CommandError(NOT_MANUAL);
        if (advance) {
            if (ms < 0) throw new CommandError("ERR the clock only advances: ms must not be negative");
            clock.advance(ms);
        } else {
            clock.set(ms);
        }
        c.reply().integer(c.mstime());
    }

    private static CommandError wrongArity() {
        return new CommandError("ERR wrong number of arguments for 'cinnabar|clock' command");
    }

    @Override
    public String[] help() {
        return new String[] {
            "CLOCK NOW",
            "    Returns the server's clock in unix milliseconds.",
            "CLOCK ADVANCE <milliseconds>",
            "    Moves a manual clock forward (clock manual); returns once what became due has happened.",
            "CLOCK SET <unix-milliseconds>",
            "    Sets a manual clock (clock manual).",
        };
    }
}
