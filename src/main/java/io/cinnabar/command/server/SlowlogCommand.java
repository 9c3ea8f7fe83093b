package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.SlowLog;
import io.cinnabar.protocol.Reply;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** SLOWLOG GET, LEN, RESET and HELP (see SlowLog). */
public final class SlowlogCommand implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SLOWLOG", -2).doc("2.2.12", "A container for slow log commands", "Depends on subcommand.")
                .sub(spec("GET", -2, ADMIN, LOADING, STALE).tips("request_policy:all_nodes", "nondeterministic_output")
                        .doc("2.2.12", "Get the slow log's entries", "O(N) where N is the number of entries returned")
                        .history("4.0.0", "Added client IP address, port and name to the reply."), this::get)
                .sub(spec("LEN", 2, ADMIN, LOADING, STALE)
                        .tips("request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output")
                        .doc("2.2.12", "Get the slow log's length", "O(1)"), c -> c.reply().integer(c.server().slowLog().size()))
                .sub(spec("RESET", 2, ADMIN, LOADING, STALE).tips("request_policy:all_nodes", "response_policy:all_succeeded")
                        .doc("2.2.12", "Clear all entries from the slow log", "O(N) where N is the number of entries in the slowlog"),
                        c -> {
                            c.server().slowLog().reset();
                            c.reply().ok();
                        })
                .sub(spec("HELP", 2, LOADING, STALE).doc("6.2.0", "Show helpful text about the different subcommands", "O(1)"),
                        c -> HelpReply.reply(c,
                                "GET [<count>]",
                                "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                                "    Entries are made of:",
                                "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                                "    client name",
                                "LEN",
                                "    Return the length of the slowlog.",
                                "RESET",
                                "    Reset the slowlog.")), null);
    }

    /** SLOWLOG GET [count] */
    private void get(Call c) {
        SlowLog log = c.server().slowLog();
        long count = 10;
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        if (c.argCount() == 3) {
            String error = "ERR count should be greater than or equal to -1";
            count = c.longArg(2, error);
            if (count < -1) throw new CommandError(error);
            if (count == -1) count = log.size();
        }
        Reply r = c.reply();
        int n = (int) Math.min(count, log.size());
        r.array(n);
        for (SlowLog.Entry e : log.entries()) {
            if (n-- == 0) break;
            r.array(6);
            r.integer(e.id());
            r.integer(e.unixSeconds());
            r.integer(e.micros());
            r.array(e.args().length);
            for (byte[] a : e.args()) r.bulk(a);
            r.bulk(e.peer());
            r.bulk(e.clientName());
        }
    }
}
