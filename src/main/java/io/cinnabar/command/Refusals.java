package io.cinnabar.command;

import io.cinnabar.config.ConfigOption;
import io.cinnabar.util.BinaryText;

import java.util.Locale;

/** The texts of processCommand's first refusals, as Redis words them: unknown command, arity, auth. */
final class Refusals {
    private Refusals() {}

    static final String NOAUTH = "NOAUTH Authentication required.";

    /**
     * As Redis formats it: the name and each argument as C strings ("%.128s", "'%.*s' "), so each
     * stops at a NUL byte, and the list of arguments stops once it holds 128 bytes.
     */
    static String unknownCommand(byte[][] args) {
        java.io.ByteArrayOutputStream list = new java.io.ByteArrayOutputStream();
        for (int i = 1; i < args.length && list.size() < 128; i++) {
            int room = 128 - list.size();
            list.write('\'');
            list.write(args[i], 0, Math.min(BinaryText.cLength(args[i]), room));
            list.write('\'');
            list.write(' ');
        }
        return "ERR unknown command '" + clip(args[0]) + "', with args beginning with: "
                + BinaryText.decode(list.toByteArray());
    }

    static String unknownSubcommand(CommandSpec container, byte[] name) {
        return "ERR unknown subcommand '" + clip(name) + "'. Try " + container.name.toUpperCase(Locale.ROOT) + " HELP.";
    }

    static String wrongArity(CommandSpec spec) {
        return "ERR wrong number of arguments for '" + spec.fullName + "' command";
    }

    /**
     * Redis's CMD_PROTECTED check: DEBUG and MODULE's loading run only as the spec's enable-*
     * option allows (yes, or local for a loopback client); null when allowed.
     */
    static String protectedCommand(ServerContext server, Client client, CommandSpec spec) {
        ConfigOption setting = spec.protectedBy;
        if (setting == null || server.config().allowsProtectedAction(setting, client.channel().loopback())) return null;
        // MODULE LOAD's refusal names MODULE, as Redis's does.
        String name = (spec.parent() != null ? spec.parent() : spec).name.toUpperCase(Locale.ROOT);
        return "ERR " + name + " command not allowed. If the " + setting.name() + " option is set to \"local\", "
                + "you can run it from a local connection, otherwise you need to set this option "
                + "in the configuration file, and then restart the server.";
    }

    /** A RESP2 subscriber runs only (P|S)SUBSCRIBE, their UNSUBSCRIBEs, PING, QUIT and RESET: the error, else null. */
    static String subscribedContext(Client client, CommandSpec spec) {
        if (!client.subscribed || client.protocol != 2 || spec.allowedWhileSubscribed) return null;
        return "ERR Can't execute '" + spec.fullName + "': only (P|S)SUBSCRIBE / "
                + "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
    }

    /** True when client must authenticate before it may run spec. */
    static boolean needsAuth(ServerContext server, Client client, CommandSpec spec) {
        return !client.authenticated && !spec.noAuth && server.requirePass();
    }

    /** "%.128s" of b: up to its first NUL byte, at most 128 bytes. */
    private static String clip(byte[] b) {
        return BinaryText.decode(b, 0, Math.min(BinaryText.cLength(b), 128));
    }
}
