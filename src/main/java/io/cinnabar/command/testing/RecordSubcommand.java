package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.protocol.Reply;

import java.util.List;

/** CINNABAR RECORD ON | OFF | GET [count] | CLEAR: the command {@link Recorder}. */
final class RecordSubcommand implements CinnabarSubcommand {
    @Override
    public void run(Call c) {
        if (c.argCount() < 3) throw CommandError.subcommandSyntax(c.args());
        Recorder recorder = CinnabarCommands.controls(c).recorder();
        String action = c.option(2);
        if (action.equals("GET")) {
            get(c, recorder);
            return;
        }
        if (c.argCount() != 3) throw CommandError.syntax();
        switch (action) {
            case "ON" -> recorder.start();
            case "OFF" -> recorder.stop();
            case "CLEAR" -> recorder.clear();
            default -> throw CommandError.syntax();
        }
        c.reply().ok();
    }

    /** RECORD GET [count]: [time-ms, client-name, db, command, args...] per command, oldest first. */
    private static void get(Call c, Recorder recorder) {
        if (c.argCount() > 4) throw CommandError.syntax();
        long count = Long.MAX_VALUE;
        if (c.argCount() == 4) {
            count = c.longArg(3);
            if (count < 0) throw new CommandError("ERR count should be greater than or equal to 0");
        }
        List<RecordedCommand> entries = recorder.last(count);
        Reply r = c.reply();
        r.array(entries.size());
        for (RecordedCommand e : entries) {
            byte[][] argv = e.argv();
            r.array(argv.length + 3);
            r.integer(e.timeMs());
            r.bulk(e.clientName());
            r.integer(e.db());
            for (byte[] a : argv) r.bulk(a);
        }
    }

    @Override
    public String[] help() {
        return new String[] {
            "RECORD ON|OFF",
            "    Starts or stops recording the commands clients send.",
            "RECORD GET [<count>]",
            "    Returns the recorded commands as [time-ms, client-name, db, command, args...].",
            "RECORD CLEAR",
            "    Forgets the recorded commands.",
        };
    }
}
