package io.cinnabar.command.testing;

import io.cinnabar.command.Client;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.KeyRefs;
import io.cinnabar.keyspace.GlobMatcher;

import java.nio.charset.StandardCharsets;

/**
 * One installed fault rule: which calls it matches (command, optionally a key pattern, a client
 * name pattern, from the nth matching call on) and what it does to them, {@link #times} times or
 * until removed. An exhausted rule removes itself. Counters are written on the keyspace thread and
 * readable from any.
 */
public final class Fault {
    private static final byte[] NO_NAME = new byte[0];

    private final Faults owner;
    private final long id;
    /** Lower-case; "*" for every command, "config|set" for a subcommand. */
    private final String command;
    private final byte[] keyPattern;
    private final byte[] clientPattern;
    private final long nth;
    /** How many calls it acts on; -1 for no limit. */
    private final long times;
    private final Verdict action;
    private volatile long seen;
    private volatile long fired;

    Fault(Faults owner, long id, String command, String keyPattern, String clientPattern, long nth, long times, Verdict action) {
        this.owner = owner;
        this.id = id;
        this.command = command;
        this.keyPattern = keyPattern == null ? null : keyPattern.getBytes(StandardCharsets.UTF_8);
        this.clientPattern = clientPattern == null ? null : clientPattern.getBytes(StandardCharsets.UTF_8);
        this.nth = nth;
        this.times = times;
        this.action = action;
    }

    public long id() {
        return id;
    }

    /** Matching calls seen so far (those before the nth included). */
    public long seen() {
        return seen;
    }

    /** Calls it has acted on so far. */
    public long fired() {
        return fired;
    }

    /** Takes the rule out; calls it already acted on stay acted on. Any thread. */
    public void remove() {
        owner.remove(this);
    }

    String command() {
        return command;
    }

    String keyPattern() {
        return keyPattern == null ? null : new String(keyPattern, StandardCharsets.UTF_8);
    }

    String clientPattern() {
        return clientPattern == null ? null : new String(clientPattern, StandardCharsets.UTF_8);
    }

    long nth() {
        return nth;
    }

    long times() {
        return times;
    }

    Verdict action() {
        return action;
    }

    boolean exhausted() {
        return times >= 0 && fired >= times;
    }

    /** Counts the call if it matches; its action when this call is one it acts on, else null. Keyspace thread. */
    Verdict apply(Client client, CommandSpec spec, byte[][] argv, KeyRefs keys) {
        if (!matches(client, spec, argv, keys)) return null;
        seen++;
        if (seen < nth || exhausted()) return null;
        fired++;
        return action;
    }

    private boolean matches(Client client, CommandSpec spec, byte[][] argv, KeyRefs keys) {
        if (!command.equals("*")) {
            CommandSpec top = spec.parent() == null ? spec : spec.parent();
            if (!command.equals(top.name()) && !command.equals(spec.fullName())) return false;
        }
        if (clientPattern != null) {
            byte[] name = client.name();
            if (!GlobMatcher.matches(clientPattern, name == null ? NO_NAME : name, false)) return false;
        }
        if (keyPattern == null) return true;
        spec.keysWithFlags(argv, keys);
        for (int i = 0; i < keys.size(); i++) {
            if (GlobMatcher.matches(keyPattern, argv[keys.position(i)], false)) return true;
        }
        return false;
    }

    /** As FAULT LIST shows it. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("fault ").append(id).append(' ').append(command);
        if (keyPattern != null) s.append(" key=").append(keyPattern());
        if (clientPattern != null) s.append(" client=").append(clientPattern());
        if (nth > 1) s.append(" nth=").append(nth);
        if (times >= 0) s.append(" times=").append(times);
        return s.append(" fired=").append(fired).append(' ').append(action).toString();
    }
}
