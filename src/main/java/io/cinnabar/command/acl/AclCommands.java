package io.cinnabar.command.acl;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** ACL and its subcommands (Redis's aclCommand). */
public final class AclCommands implements CommandFamily {
    private static final String NO_ACL_FILE = "ERR This Redis instance is not configured to use an ACL file. You may want to "
            + "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
            + "configuration file set) in order to store users in the Redis configuration.";
    private static final int GENPASS_MAX_BITS = 4096;
    private static final SecureRandom RANDOM = new SecureRandom();

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("ACL", -2).doc("6.0.0", "A container for Access List Control commands ", "Depends on subcommand.")
                .sub(spec("CAT", -2, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "List the ACL categories or the commands inside a category",
                        "O(1) since the categories and commands are a fixed set."), this::cat)
                .sub(spec("DELUSER", -3, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "Remove the specified ACL users and the associated rules",
                        "O(1) amortized time considering the typical user."), this::deluser)
                .sub(spec("DRYRUN", -4, ADMIN, NOSCRIPT, LOADING, STALE).doc("7.0.0",
                        "Returns whether the user can execute the given command without executing the command.", "O(1)."), this::dryrun)
                .sub(spec("GENPASS", -2, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "Generate a pseudorandom secure password to use for ACL users", "O(1)"), this::genpass)
                .sub(spec("GETUSER", 3, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0", "Get the rules for a specific ACL user",
                        "O(N). Where N is the number of password, command and pattern rules that the user has.")
                        .history("6.2.0", "Added Pub/Sub channel patterns.", "7.0.0", "Added selectors and changed the format "
                                + "of key and channel patterns from a list to their rule representation."), this::getuser)
                .sub(spec("HELP", 2, LOADING, STALE).doc("6.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help)
                .sub(spec("LIST", 2, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "List the current ACL rules in ACL config file format",
                        "O(N). Where N is the number of configured users."), this::list)
                .sub(spec("LOAD", 2, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0", "Reload the ACLs from the configured ACL file",
                        "O(N). Where N is the number of configured users."), this::load)
                .sub(spec("LOG", -2, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "List latest events denied because of ACLs in place",
                        "O(N) with N being the number of entries shown."), this::log)
                .sub(spec("SAVE", 2, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0", "Save the current ACL rules in the configured ACL file",
                        "O(N). Where N is the number of configured users."), this::save)
                .sub(spec("SETUSER", -3, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "Modify or create the rules for a specific ACL user",
                        "O(N). Where N is the number of rules provided.")
                        .history("6.2.0", "Added Pub/Sub channel patterns.", "7.0.0", "Added selectors and key based permissions."), this::setuser)
                .sub(spec("USERS", 2, ADMIN, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "List the username of all the configured ACL rules",
                        "O(N). Where N is the number of configured users."), this::users)
                .sub(spec("WHOAMI", 2, NOSCRIPT, LOADING, STALE).doc("6.0.0",
                        "Return the name of the user associated to the current connection", "O(1)"), this::whoami), null);
    }

    private static Acl acl(Call c) {
        return c.server().acl();
    }

    /** ACL SETUSER username [rule ...] */
    private void setuser(Call c) {
        for (int i = 2; i < c.argCount(); i++) c.redact(i);
        String name = c.argString(2);
        if (AclSelector.hasSpaces(name)) throw new CommandError("ERR Usernames can't contain spaces or null characters");
        List<byte[]> rules = new ArrayList<>();
        for (int i = 3; i < c.argCount(); i++) rules.add(c.arg(i));
        String error = acl(c).setUser(name, rules, c.client());
        if (error != null) throw new CommandError(error);
        c.reply().ok();
    }

    /** ACL DELUSER username [username ...] */
    private void deluser(Call c) {
        for (int i = 2; i < c.argCount(); i++) {
            if (c.argString(i).equals("default")) throw new CommandError("ERR The 'default' user cannot be removed");
        }
        int deleted = 0;
        for (int i = 2; i < c.argCount(); i++) if (acl(c).deleteUser(c.argString(i), c.client())) deleted++;
        c.reply().integer(deleted);
    }

    /** ACL GETUSER username: flags, passwords, the root selector's commands/keys/channels, then the other selectors. */
    private void getuser(Call c) {
        Acl acl = acl(c);
        AclUser u = acl.user(c.argString(2));
        Reply r = c.reply();
        if (u == null) {
            r.nullBulk();
            return;
        }
        r.map(6);
        r.bulk("flags");
        List<String> flags = new ArrayList<>();
        for (int j = 0; j < AclUser.FLAG_NAMES.length; j++) if (u.has(1 << j)) flags.add(AclUser.FLAG_NAMES[j]);
        r.set(flags.size());
        for (String f : flags) r.bulk(f);
        r.bulk("passwords");
        r.array(u.passwords.size());
        for (String p : u.passwords) r.bulk(p);
        describeSelector(r, u.root(), acl);
        r.bulk("selectors");
        r.array(u.selectors.size() - 1);
        for (AclSelector s : u.selectors.subList(1, u.selectors.size())) {
            r.map(3);
            describeSelector(r, s, acl);
        }
    }

    private static void describeSelector(Reply r, AclSelector s, Acl acl) {
        r.bulk("commands");
        r.bulk(AclDescription.commandRules(s, acl));
        r.bulk("keys");
        r.bulk(AclDescription.keys(s));
        r.bulk("channels");
        r.bulk(AclDescription.channels(s));
    }

    /** ACL LIST */
    private void list(Call c) {
        Acl acl = acl(c);
        c.reply().array(acl.users().size());
        for (AclUser u : acl.users()) c.reply().bulk("user " + u.name() + " " + AclDescription.user(u, acl));
    }

    /** ACL USERS */
    private void users(Call c) {
        Acl acl = acl(c);
        c.reply().array(acl.users().size());
        for (AclUser u : acl.users()) c.reply().bulk(u.name());
    }

    /** ACL WHOAMI */
    private void whoami(Call c) {
        c.reply().bulk(c.client().user());
    }

    /** ACL LOAD */
    private void load(Call c) {
        String file = c.config().getString(ConfigOptions.ACLFILE);
        if (file.isEmpty()) throw new CommandError(NO_ACL_FILE);
        String errors = AclFile.load(acl(c), file, c.client());
        if (errors != null) throw new CommandError("ERR " + errors);
        c.reply().ok();
    }

    /** ACL SAVE */
    private void save(Call c) {
        String file = c.config().getString(ConfigOptions.ACLFILE);
        if (file.isEmpty()) throw new CommandError(NO_ACL_FILE);
        if (!AclFile.save(acl(c), file)) {
            throw new CommandError("ERR There was an error trying to save the ACLs. Please check the server logs for more information");
        }
        c.reply().ok();
    }

    /** ACL CAT [category] */
    private void cat(Call c) {
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        if (c.argCount() == 2) {
            c.reply().array(Acl.categories().size());
            for (String name : Acl.categories()) c.reply().bulk(name);
            return;
        }
        // Looked up with strcasecmp and quoted with "%.128s": both end at a NUL byte.
        byte[] arg = c.arg(2);
        int length = BinaryText.cLength(arg);
        long bit = io.cinnabar.command.AclCategories.bit(BinaryText.decode(arg, 0, length));
        if (bit == 0) {
            throw new CommandError("ERR Unknown category '" + BinaryText.decode(arg, 0, Math.min(length, 128)) + "'");
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec s : acl(c).all()) if ((s.categoryBits() & bit) != 0) names.add(s.fullName());
        c.reply().array(names.size());
        for (String n : names) c.reply().bulk(n);
    }

    /** ACL GENPASS [bits] */
    private void genpass(Call c) {
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        long bits = c.argCount() == 3 ? c.longArg(2) : 256;
        if (bits <= 0 || bits > GENPASS_MAX_BITS) {
            throw new CommandError("ERR ACL GENPASS argument must be the number of bits for the output password, "
                    + "a positive number up to " + GENPASS_MAX_BITS);
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] random = new byte[(chars + 1) / 2];
        RANDOM.nextBytes(random);
        c.reply().bulk(HexFormat.of().formatHex(random).substring(0, chars));
    }

    /** ACL LOG [count | RESET] */
    private void log(Call c) {
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        long count = 10;
        if (c.argCount() == 3) {
            if (c.argIs(2, "RESET")) {
                acl(c).log.reset();
                c.reply().ok();
                return;
            }
            count = c.longArg(2);
        }
        acl(c).log.reply(c.reply(), count);
    }

    /** ACL DRYRUN username command [arg ...] */
    private void dryrun(Call c) {
        Acl acl = acl(c);
        AclUser u = acl.user(c.argString(2));
        if (u == null) throw new CommandError("ERR User '" + c.quoted(2) + "' not found");
        byte[][] argv = java.util.Arrays.copyOfRange(c.args(), 3, c.argCount());
        CommandSpec spec = c.server().commands().resolve(argv);
        if (spec == null) throw new CommandError("ERR Command '" + c.quoted(3) + "' not found");
        int arity = spec.arity();
        if ((arity > 0 && arity != argv.length) || argv.length < -arity) {
            throw new CommandError("ERR wrong number of arguments for '" + spec.fullName() + "' command");
        }
        int[] pos = new int[1];
        int result = acl.check(u, spec, argv, pos);
        switch (result) {
            case Acl.OK -> c.reply().ok();
            case AclSelector.DENIED_CMD -> c.reply().bulk("This user has no permissions to run the '" + spec.fullName() + "' command");
            case AclSelector.DENIED_KEY -> c.reply().bulk("This user has no permissions to access the '"
                    + BinaryText.decode(argv[pos[0]]) + "' key");
            default -> c.reply().bulk("This user has no permissions to access the '"
                    + BinaryText.decode(argv[pos[0]]) + "' channel");
        }
    }

    /** ACL HELP */
    private void help(Call c) {
        HelpReply.reply(c,
                "CAT [<category>]",
                "    List all commands that belong to <category>, or all command categories",
                "    when no category is specified.",
                "DELUSER <username> [<username> ...]",
                "    Delete a list of users.",
                "DRYRUN <username> <command> [<arg> ...]",
                "    Returns whether the user can execute the given command without executing the command.",
                "GETUSER <username>",
                "    Get the user's details.",
                "GENPASS [<bits>]",
                "    Generate a secure 256-bit user password. The optional `bits` argument can",
                "    be used to specify a different size.",
                "LIST",
                "    Show users details in config file format.",
                "LOAD",
                "    Reload users from the ACL file.",
                "LOG [<count> | RESET]",
                "    Show the ACL log entries.",
                "SAVE",
                "    Save the current config to the ACL file.",
                "SETUSER <username> <attribute> [<attribute> ...]",
                "    Create or modify a user with the specified attributes.",
                "USERS",
                "    List all the registered usernames.",
                "WHOAMI",
                "    Return the current connection username.");
    }
}
