package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.LatencyHistogram;
import io.cinnabar.command.LatencyMonitor;
import io.cinnabar.protocol.Reply;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** LATENCY DOCTOR, GRAPH, HISTORY, LATEST, RESET, HISTOGRAM and HELP, as Redis's latency.c. */
public final class LatencyCommand implements CommandFamily {
    private static final String[] SPECIAL = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special"};

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("LATENCY", -2).doc("2.8.13", "A container for latency diagnostics commands", "Depends on subcommand.")
                .sub(spec("DOCTOR", 2, ADMIN, NOSCRIPT, LOADING, STALE).tips(SPECIAL)
                        .doc("2.8.13", "Return a human readable latency analysis report.", "O(1)"),
                        c -> c.reply().verbatim("txt", LatencyDoctor.report(c.server()).getBytes(StandardCharsets.UTF_8)))
                .sub(spec("GRAPH", 3, ADMIN, NOSCRIPT, LOADING, STALE).tips(SPECIAL)
                        .doc("2.8.13", "Return a latency graph for the event.", "O(1)"), this::graph)
                .sub(spec("HISTORY", 3, ADMIN, NOSCRIPT, LOADING, STALE).tips(SPECIAL)
                        .doc("2.8.13", "Return timestamp-latency samples for the event.", "O(1)"), this::history)
                .sub(spec("LATEST", 2, ADMIN, NOSCRIPT, LOADING, STALE).tips(SPECIAL)
                        .doc("2.8.13", "Return the latest latency samples for all events.", "O(1)"), this::latest)
                .sub(spec("RESET", -2, ADMIN, NOSCRIPT, LOADING, STALE)
                        .tips("request_policy:all_nodes", "response_policy:all_succeeded")
                        .doc("2.8.13", "Reset latency data for one or more events.", "O(1)"), this::reset)
                .sub(spec("HISTOGRAM", -2, ADMIN, NOSCRIPT, LOADING, STALE).tips(SPECIAL)
                        .doc("7.0.0", "Return the cumulative distribution of latencies of a subset of commands or all.",
                                "O(N) where N is the number of commands with latency information being retrieved."),
                        this::histogram)
                .sub(spec("HELP", 2, LOADING, STALE).doc("2.8.13", "Show helpful text about the different subcommands.", "O(1)"),
                        c -> HelpReply.reply(c,
                                "DOCTOR",
                                "    Return a human readable latency analysis report.",
                                "GRAPH <event>",
                                "    Return an ASCII latency graph for the <event> class.",
                                "HISTORY <event>",
                                "    Return time-latency samples for the <event> class.",
                                "LATEST",
                                "    Return the latest latency samples for all events.",
                                "RESET [<event> ...]",
                                "    Reset latency data of one or more <event> classes.",
                                "    (default: reset all data for all event classes)",
                                "HISTOGRAM [COMMAND ...]",
                                "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
                                "    If no commands are specified then all histograms are replied.")), null);
    }

    /** LATENCY HISTORY event: [time, latency] from oldest to newest. */
    private void history(Call c) {
        LatencyMonitor.Series s = c.server().latencyMonitor().series(c.argString(2));
        Reply r = c.reply();
        if (s == null) {
            r.array(0);
            return;
        }
        List<Integer> slots = filledSlots(s);
        r.array(slots.size());
        for (int slot : slots) {
            r.array(2);
            r.integer(s.time(slot));
            r.integer(s.latency(slot));
        }
    }

    private static List<Integer> filledSlots(LatencyMonitor.Series s) {
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < LatencyMonitor.HISTORY; i++) {
            int slot = s.slot(i);
            if (s.time(slot) != 0) slots.add(slot);
        }
        return slots;
    }

    /** LATENCY LATEST: [event, time, latency, all-time max] per event. */
    private void latest(Call c) {
        Map<String, LatencyMonitor.Series> events = c.server().latencyMonitor().events();
        Reply r = c.reply();
        r.array(events.size());
        for (Map.Entry<String, LatencyMonitor.Series> e : events.entrySet()) {
            LatencyMonitor.Series s = e.getValue();
            int last = s.last();
            r.array(4);
            r.bulk(e.getKey());
            r.integer(s.time(last));
            r.integer(s.latency(last));
            r.integer(s.max());
        }
    }

    /** LATENCY RESET [event ...] */
    private void reset(Call c) {
        LatencyMonitor monitor = c.server().latencyMonitor();
        if (c.argCount() == 2) {
            c.reply().integer(monitor.reset(null));
            return;
        }
        int resets = 0;
        for (int i = 2; i < c.argCount(); i++) resets += monitor.reset(c.argString(i));
        c.reply().integer(resets);
    }

    /** LATENCY GRAPH event: Redis's sparkline of the event's samples. */
    private void graph(Call c) {
        String event = c.argString(2);
        LatencyMonitor monitor = c.server().latencyMonitor();
        LatencyMonitor.Series s = monitor.series(event);
        if (s == null) throw new CommandError("ERR No samples available for event '" + event + "'");
        c.reply().verbatim("txt", LatencyGraph.render(event, s, monitor.nowSeconds()).getBytes(StandardCharsets.UTF_8));
    }

    /** LATENCY HISTOGRAM [command ...]: a map of command to its calls and cumulative distribution. */
    private void histogram(Call c) {
        List<CommandSpec> chosen = new ArrayList<>();
        if (c.argCount() == 2) {
            for (CommandSpec spec : c.server().commands().allWithSubcommands()) {
                if (spec.stats().histogram != null) chosen.add(spec);
            }
        } else {
            for (int i = 2; i < c.argCount(); i++) {
                CommandSpec spec = c.server().commands().byFullName(c.argString(i));
                if (spec == null) continue;
                if (spec.stats().histogram != null) chosen.add(spec);
                for (CommandSpec sub : spec.subcommands().values()) {
                    if (sub.stats().histogram != null) chosen.add(sub);
                }
            }
        }
        Reply r = c.reply();
        r.map(chosen.size());
        for (CommandSpec spec : chosen) {
            r.bulk(spec.fullName());
            LatencyHistogram h = spec.stats().histogram;
            r.map(2);
            r.bulk("calls");
            r.integer(h.totalCount());
            r.bulk("histogram_usec");
            List<long[]> steps = new ArrayList<>();
            h.cumulativeSteps((micros, cumulative) -> steps.add(new long[] {micros, cumulative}));
            r.map(steps.size());
            for (long[] step : steps) {
                r.integer(step[0]);
                r.integer(step[1]);
            }
        }
    }
}
