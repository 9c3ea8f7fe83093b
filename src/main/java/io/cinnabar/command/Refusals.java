package io.cinnabar.command;

import io.cinnabar.config.ConfigOption;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** The texts of processCommand's first refusals, as Redis words them: unknown command, arity, auth. */
final class Refusals {
    private Refusals() {}

    static final String NOAUTH = "NOAUTH Authentication required.";

    static String unknownCommand(byte[][] args) {
        StringBuilder list = new StringBuilder();
        for (int i = 1; i < args.length && list.length() < 128; i++) {
            String a = new String(args[i], StandardCharsets.UTF_8);
            int room = 128 - list.length();
            list.append('\'').append(a, 0, Math.min(a.length(), room)).append("' ");
        }
        return "ERR unknown command '" + clip(args[0]) + "', with args beginning with: " + list;
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

    /** True when client must authenticate before it may run spec. */
    static boolean needsAuth(ServerContext server, Client client, CommandSpec spec) {
        return !client.authenticated && !spec.noAuth && server.requirePass();
    }

    private static String clip(byte[] b) {
        String s = new String(b, StandardCharsets.UTF_8);
        return s.length() > 128 ? s.substring(0, 128) : s;
    }
}
