package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandFlag;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyFlag;
import io.cinnabar.command.KeyRefs;
import io.cinnabar.command.KeySpec;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** COMMAND and its subcommands, generated from the specs. */
public final class CommandCommands implements CommandFamily {
    private static final String[] HELP = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command."
    };

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("COMMAND", -1, LOADING, STALE).acl("@connection").tips("nondeterministic_output_order")
                .doc("2.8.13", "Get array of Redis command details", "O(N) where N is the total number of Redis commands")
                .sub(spec("COUNT", 2, LOADING, STALE).acl("@connection").doc("2.8.13", "Get total number of Redis commands", "O(1)"), this::count)
                .sub(spec("INFO", -2, LOADING, STALE).acl("@connection").tips("nondeterministic_output_order")
                        .doc("2.8.13", "Get array of specific Redis command details, or all when no argument is given.",
                                "O(N) where N is the number of commands to look up")
                        .history("7.0.0", "Allowed to be called with no argument to get info on all commands."), this::info)
                .sub(spec("DOCS", -2, LOADING, STALE).acl("@connection").tips("nondeterministic_output_order")
                        .doc("7.0.0", "Get array of specific Redis command documentation",
                                "O(N) where N is the number of commands to look up"), this::docs)
                .sub(spec("LIST", -2, LOADING, STALE).acl("@connection").tips("nondeterministic_output_order")
                        .doc("7.0.0", "Get an array of Redis command names", "O(N) where N is the total number of Redis commands"), this::list)
                .sub(spec("GETKEYS", -4, LOADING, STALE).acl("@connection").doc("2.8.13", "Extract keys given a full Redis command",
                                "O(N) where N is the number of arguments to the command"), c -> getKeys(c, false))
                .sub(spec("GETKEYSANDFLAGS", -4, LOADING, STALE).acl("@connection")
                        .doc("7.0.0", "Extract keys and access flags given a full Redis command",
                                "O(N) where N is the number of arguments to the command"), c -> getKeys(c, true))
                .sub(spec("HELP", 2, LOADING, STALE).acl("@connection")
                        .doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help),
                this::all);
    }

    /** COMMAND */
    private void all(Call c) {
        c.reply().array(c.server().commands().size());
        for (CommandSpec s : c.server().commands().all()) commandInfo(c.reply(), s);
    }

    /** COMMAND COUNT */
    private void count(Call c) {
        c.reply().integer(c.server().commands().size());
    }

    /** COMMAND INFO [command-name ...] */
    private void info(Call c) {
        if (c.argCount() == 2) {
            all(c);
            return;
        }
        c.reply().array(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) {
            CommandSpec s = c.server().commands().byFullName(c.argString(i));
            if (s == null) c.reply().nullBulk(); else commandInfo(c.reply(), s);
        }
    }

    /** COMMAND DOCS [command-name ...] */
    private void docs(Call c) {
        List<CommandSpec> found = new ArrayList<>();
        if (c.argCount() == 2) {
            found.addAll(c.server().commands().all());
        } else {
            for (int i = 2; i < c.argCount(); i++) {
                CommandSpec s = c.server().commands().byFullName(c.argString(i));
                if (s != null) found.add(s);
            }
        }
        c.reply().map(found.size());
        for (CommandSpec s : found) {
            c.reply().bulk(s.fullName());
            commandDocs(c.reply(), s);
        }
    }

    /** COMMAND LIST [FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern] */
    private void list(Call c) {
        String filter = null;
        byte[] value = null;
        for (int i = 2; i < c.argCount(); i++) {
            if (c.argIs(i, "FILTERBY") && c.argCount() - 1 - i == 2) {
                if (c.argIs(i + 1, "MODULE")) filter = "module";
                else if (c.argIs(i + 1, "ACLCAT")) filter = "aclcat";
                else if (c.argIs(i + 1, "PATTERN")) filter = "pattern";
                else throw CommandError.syntax();
                value = c.arg(i + 2);
                i += 2;
            } else {
                throw CommandError.syntax();
            }
        }
        List<String> names = new ArrayList<>();
        String category = value == null ? null : "@" + BinaryText.decode(value).toLowerCase(Locale.ROOT);
        for (CommandSpec s : c.server().commands().allWithSubcommands()) {
            if (filter == null
                    || (filter.equals("aclcat") && s.aclCategories().contains(category))
                    || (filter.equals("pattern") && GlobMatcher.matches(value, s.fullName().getBytes(StandardCharsets.UTF_8), true))) {
                names.add(s.fullName());
            }
        }
        c.reply().array(names.size());
        for (String n : names) c.reply().bulk(n);
    }

    /** COMMAND GETKEYS command [arg ...] / COMMAND GETKEYSANDFLAGS command [arg ...] */
    private void getKeys(Call c, boolean withFlags) {
        CommandSpec s = c.server().commands().lookup(c.arg(2));
        if (s != null && !s.subcommands().isEmpty() && c.argCount() >= 4) s = subcommand(s, c.argString(3));
        if (s == null) throw new CommandError("ERR Invalid command specified");
        if (!s.hasKeys()) throw new CommandError("ERR The command has no key arguments");
        int argc = c.argCount() - 2;
        if ((s.arity() > 0 && s.arity() != argc) || argc < -s.arity()) {
            throw new CommandError("ERR Invalid number of arguments specified for command");
        }
        byte[][] argv = Arrays.copyOfRange(c.args(), 2, c.argCount());
        KeyRefs keys = new KeyRefs();
        s.keysWithFlags(argv, keys);
        if (keys.size() == 0) {
            if (!s.hasFlag(CommandFlag.NO_MANDATORY_KEYS)) throw new CommandError("ERR Invalid arguments specified for command");
            c.reply().emptyArray();
            return;
        }
        c.reply().array(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            if (withFlags) c.reply().array(2);
            c.reply().bulk(argv[keys.position(i)]);
            if (!withFlags) continue;
            List<String> flags = KeyFlag.names(keys.flags(i));
            c.reply().set(flags.size());
            for (String f : flags) c.reply().simple(f);
        }
    }

    /** COMMAND HELP */
    private void help(Call c) {
        HelpReply.reply(c, HELP);
    }

    // ---- shapes ----

    /** Redis's addReplyCommandInfo: the 10-element array. */
    private static void commandInfo(Reply r, CommandSpec s) {
        int first = s.firstKey(), last = s.lastKey(), step = s.keyStep();
        r.array(10);
        r.bulk(s.fullName());
        r.integer(s.arity());
        List<String> flags = new ArrayList<>();
        for (CommandFlag f : s.flags()) {
            // Redis hides these two from COMMAND's output.
            if (f == CommandFlag.MAY_REPLICATE || f == CommandFlag.PROTECTED) continue;
            flags.add(f.wireName());
        }
        r.set(flags.size());
        for (String f : flags) r.simple(f);
        r.integer(first);
        r.integer(last);
        r.integer(step);
        List<String> cats = orderedCategories(s);
        r.set(cats.size());
        for (String cat : cats) r.simple(cat);
        r.set(s.tips().size());
        for (String tip : s.tips()) r.bulk(tip);
        r.set(s.keySpecs().size());
        for (KeySpec k : s.keySpecs()) k.reply(r);
        if (s.subcommands().isEmpty()) {
            r.set(0);
        } else {
            r.array(s.subcommands().size());
            for (CommandSpec sub : s.subcommands().values()) commandInfo(r, sub);
        }
    }

    /** Redis's addReplyCommandDocs. */
    private static void commandDocs(Reply r, CommandSpec s) {
        boolean hasSummary = s.summary() != null && !s.summary().isEmpty();
        boolean hasSubs = !s.subcommands().isEmpty();
        List<String> docFlags = s.docFlags();
        List<DocArguments.Argument> arguments = DocArguments.of(s.fullName().toLowerCase(Locale.ROOT));
        r.map(2 + (hasSummary ? 1 : 0) + (s.complexity() != null ? 1 : 0) + (docFlags.isEmpty() ? 0 : 1)
                + (s.deprecatedSince() != null ? 1 : 0) + (s.replacedBy() != null ? 1 : 0)
                + (s.history().isEmpty() ? 0 : 1) + (arguments != null ? 1 : 0) + (hasSubs ? 1 : 0));
        if (hasSummary) {
            r.bulk("summary");
            r.bulk(s.summary());
        }
        r.bulk("since");
        r.bulk(s.since());
        r.bulk("group");
        r.bulk(s.group() == null ? "server" : s.group());
        if (s.complexity() != null) {
            r.bulk("complexity");
            r.bulk(s.complexity());
        }
        if (!docFlags.isEmpty()) {
            r.bulk("doc_flags");
            r.set(docFlags.size());
            for (String f : docFlags) r.simple(f);
        }
        if (s.deprecatedSince() != null) {
            r.bulk("deprecated_since");
            r.bulk(s.deprecatedSince());
        }
        if (s.replacedBy() != null) {
            r.bulk("replaced_by");
            r.bulk(s.replacedBy());
        }
        if (!s.history().isEmpty()) {
            r.bulk("history");
            r.set(s.history().size());
            for (String[] h : s.history()) {
                r.array(2);
                r.bulk(h[0]);
                r.bulk(h[1]);
            }
        }
        if (arguments != null) {
            r.bulk("arguments");
            DocArguments.replyList(r, arguments);
        }
        if (hasSubs) {
            r.bulk("subcommands");
            r.map(s.subcommands().size());
            for (CommandSpec sub : s.subcommands().values()) {
                r.bulk(sub.fullName());
                commandDocs(r, sub);
            }
        }
    }

    private static List<String> orderedCategories(CommandSpec s) {
        List<String> out = new ArrayList<>();
        List<String> names = io.cinnabar.command.AclCategories.NAMES;
        for (int i = 0; i < names.size(); i++) if ((s.categoryBits() & (1L << i)) != 0) out.add("@" + names.get(i));
        return out;
    }

    private static CommandSpec subcommand(CommandSpec container, String name) {
        return container.subcommands().get(name.toLowerCase(Locale.ROOT));
    }
}
