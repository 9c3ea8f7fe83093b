package io.cinnabar.command.testing;

import io.cinnabar.command.Client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A command as a client sent it, with who sent it and in which database: what interceptors and the recorder see. Immutable. */
public abstract class ClientCommand {
    private final byte[][] argv;
    private final long clientId;
    private final String clientName;
    private final int db;

    /** Copies what it keeps of client now (its name and database may change later); argv is not modified afterwards. */
    ClientCommand(Client client, byte[][] argv) {
        byte[] name = client.name();
        this.argv = argv;
        this.clientId = client.id();
        this.clientName = name == null ? "" : new String(name, StandardCharsets.UTF_8);
        this.db = client.db();
    }

    public long clientId() {
        return clientId;
    }

    /** CLIENT SETNAME's name at the time, "" when none was set. */
    public String clientName() {
        return clientName;
    }

    /** The database the client had selected. */
    public int db() {
        return db;
    }

    /** The arguments after the command name, as UTF-8 text. */
    public List<String> args() {
        List<String> out = new ArrayList<>(argv.length - 1);
        for (int i = 1; i < argv.length; i++) out.add(argString(i));
        return Collections.unmodifiableList(out);
    }

    /** Word i as UTF-8 text; 0 is the command name as sent. */
    public String argString(int i) {
        return new String(argv[i], StandardCharsets.UTF_8);
    }

    /** Word i as sent (0 is the command name); a copy. */
    public byte[] arg(int i) {
        return argv[i].clone();
    }

    /** Words sent, the command name included. */
    public int argCount() {
        return argv.length;
    }

    byte[][] argv() {
        return argv;
    }

    /** The words as sent, separated by spaces: "SET user:1 ann". */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(argString(0));
        for (int i = 1; i < argv.length; i++) s.append(' ').append(argString(i));
        return s.toString();
    }
}
