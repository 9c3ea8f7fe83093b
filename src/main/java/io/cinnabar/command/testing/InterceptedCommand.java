package io.cinnabar.command.testing;

import io.cinnabar.command.Client;

/** A command as a {@link CommandInterceptor} sees it, before it runs. */
public final class InterceptedCommand extends ClientCommand {
    private final String name;

    InterceptedCommand(Client client, byte[][] argv, String name) {
        super(client, argv);
        this.name = name;
    }

    /** The command's name upper-cased ("GET"; a subcommand as "CONFIG|SET"). */
    public String name() {
        return name;
    }
}
