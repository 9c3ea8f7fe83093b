package io.cinnabar.command;

import io.cinnabar.util.BinaryText;

import java.util.Locale;

/** Redis's addReplyHelp: the "<CMD> <subcommand> ..." header, the command's lines, then HELP. */
public final class HelpReply {
    private HelpReply() {}

    public static void reply(Call c, String... lines) {
        String command = BinaryText.decode(c.arg(0)).toUpperCase(Locale.ROOT);
        c.reply().array(lines.length + 3);
        c.reply().simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        for (String l : lines) c.reply().simple(l);
        c.reply().simple("HELP");
        c.reply().simple("    Prints this help.");
    }
}
