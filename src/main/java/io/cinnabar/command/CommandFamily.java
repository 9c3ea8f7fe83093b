package io.cinnabar.command;

/** A group of related commands (strings, keys, server...), registered once into the table. */
public interface CommandFamily {
    /** The COMMAND DOCS group name: "string", "generic", "connection", "server"... */
    String group();

    void register(CommandTable table);
}
