package io.cinnabar.command.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A command as a {@link CommandInterceptor} sees it: what was sent, by whom, in which database. */
public final class InterceptedCommand {
    private final byte[][] argv;
    private final String name;
    private final long clientId;
    private final String clientName;
    private final int db;

    InterceptedCommand(byte[][] argv, String name, long clientId, String clientName, int db) {
        this.argv = argv;
        this.name = name;
        this.clientId = clientId;
        this.clientName = clientName;
        this.db = db;
    }

    /** The command's name upper-cased ("GET"; a subcommand as "CONFIG|SET"). */
    public String name() {
        return name;
    }

    /** The arguments after the command name, as sent. */
    public List<byte[]> args() {
        List<byte[]> out = new ArrayList<>(argv.length - 1);
        for (int i = 1; i < argv.length; i++) out.add(argv[i].clone());
        return Collections.unmodifiableList(out);
    }

    /** Argument i as UTF-8 text; 0 is the command name as sent. */
    public String argString(int i) {
        return new String(argv[i], StandardCharsets.UTF_8);
    }

    /** Number of words sent, the command name included. */
    public int argCount() {
        return argv.length;
    }

    public long clientId() {
        return clientId;
    }

    /** CLIENT SETNAME's name, "" when none was set. */
    public String clientName() {
        return clientName;
    }

    /** The client's selected database. */
    public int db() {
        return db;
    }

    /** The words as sent, separated by spaces: "GET user:1". */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(argString(0));
        for (int i = 1; i < argv.length; i++) s.append(' ').append(argString(i));
        return s.toString();
    }
}
