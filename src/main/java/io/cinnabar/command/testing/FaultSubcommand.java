package io.cinnabar.command.testing;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.protocol.Reply;

import java.time.Duration;
import java.util.List;

/**
 * CINNABAR FAULT ADD | DEL | LIST | CLEAR: the {@link Faults} over the protocol.
 * ADD &lt;command&gt; [KEY pattern] [CLIENT name-pattern] [NTH n] [TIMES n] then one action:
 * ERROR text... (the remaining words, joined by spaces), DELAY ms, DROP or CLOSE.
 */
final class FaultSubcommand implements CinnabarSubcommand {
    @Override
    public void run(Call c) {
        if (c.argCount() < 3) throw CommandError.subcommandSyntax(c.args());
        Faults faults = CinnabarCommands.controls(c).faults();
        switch (c.option(2)) {
            case "ADD" -> c.reply().integer(add(c, faults).id());
            case "DEL" -> {
                if (c.argCount() != 4) throw CommandError.syntax();
                c.reply().integer(faults.remove(c.longArg(3)) ? 1 : 0);
            }
            case "LIST" -> {
                if (c.argCount() != 3) throw CommandError.syntax();
                list(c.reply(), faults.list());
            }
            case "CLEAR" -> {
                if (c.argCount() != 3) throw CommandError.syntax();
                faults.clear();
                c.reply().ok();
            }
            default -> throw CommandError.syntax();
        }
    }

    private static Fault add(Call c, Faults faults) {
        if (c.argCount() < 5) throw CommandError.syntax();
        FaultBuilder rule = faults.on(c.argString(3));
        for (int i = 4; i < c.argCount(); i++) {
            String word = c.option(i);
            boolean hasValue = i + 1 < c.argCount();
            switch (word) {
                case "KEY" -> rule.withKey(value(c, ++i, hasValue));
                case "CLIENT" -> rule.fromClient(value(c, ++i, hasValue));
                case "NTH" -> rule.onCall(positive(c, ++i, hasValue));
                case "TIMES" -> rule.times(positive(c, ++i, hasValue));
                case "ERROR" -> {
                    if (!hasValue) throw CommandError.syntax();
                    StringBuilder text = new StringBuilder();
                    for (int k = i + 1; k < c.argCount(); k++) text.append(k > i + 1 ? " " : "").append(c.argString(k));
                    return rule.replyError(text.toString());
                }
                case "DELAY" -> {
                    long ms = positiveOrZero(c, ++i, hasValue);
                    if (i + 1 != c.argCount()) throw CommandError.syntax();
                    return rule.delay(Duration.ofMillis(ms));
                }
                case "DROP", "CLOSE" -> {
                    if (hasValue) throw CommandError.syntax();
                    return word.equals("DROP") ? rule.drop() : rule.closeConnection();
                }
                default -> throw CommandError.syntax();
            }
        }
        // Options without an action.
        throw CommandError.syntax();
    }

    private static String value(Call c, int i, boolean present) {
        if (!present) throw CommandError.syntax();
        return c.argString(i);
    }

    private static long positive(Call c, int i, boolean present) {
        long n = positiveOrZero(c, i, present);
        if (n == 0) throw new CommandError(CommandError.NOT_INTEGER);
        return n;
    }

    private static long positiveOrZero(Call c, int i, boolean present) {
        if (!present) throw CommandError.syntax();
        long n = c.longArg(i);
        if (n < 0) throw new CommandError(CommandError.NOT_INTEGER);
        return n;
    }

    /** FAULT LIST: one map per rule, in the order rules are tried. */
    private static void list(Reply r, List<Fault> rules) {
        r.array(rules.size());
        for (Fault f : rules) {
            r.map(8);
            r.bulk("id");
            r.integer(f.id());
            r.bulk("command");
            r.bulk(f.command());
            r.bulk("key");
            bulkOrNull(r, f.keyPattern());
            r.bulk("client");
            bulkOrNull(r, f.clientPattern());
            r.bulk("nth");
            r.integer(f.nth());
            r.bulk("times");
            r.integer(f.times());
            r.bulk("fired");
            r.integer(f.fired());
            r.bulk("action");
            r.bulk(f.action().toString());
        }
    }

    private static void bulkOrNull(Reply r, String s) {
        if (s == null) r.nullBulk(); else r.bulk(s);
    }

    @Override
    public String[] help() {
        return new String[] {
            "FAULT ADD <command> [KEY <pattern>] [CLIENT <name-pattern>] [NTH <n>] [TIMES <n>] ERROR <text> | DELAY <ms> | DROP | CLOSE",
            "    Adds a rule for the command; returns its id.",
            "FAULT DEL <id>",
            "    Removes a rule.",
            "FAULT LIST",
            "    Returns the rules.",
            "FAULT CLEAR",
            "    Removes every rule.",
        };
    }
}
