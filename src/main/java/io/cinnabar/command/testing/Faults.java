package io.cinnabar.command.testing;

import io.cinnabar.command.Client;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.KeyRefs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Fault injection: rules that make matching commands fail, wait, lose their reply or close the
 * connection, plus one general {@link CommandInterceptor}. Rules are tried in the order added; the
 * first that acts on a call decides, and the interceptor sees only calls no rule acted on.
 * {@code CINNABAR} commands themselves are never matched, so a test can always clear its faults.
 * The Java methods may be called from any thread: they run on the keyspace thread, so a rule
 * applies from the next command on.
 */
public final class Faults {
    private final TestControls controls;
    /** Keyspace thread only. */
    private final List<Fault> rules = new ArrayList<>();
    private CommandInterceptor interceptor;
    private long nextId = 1;
    private final KeyRefs keys = new KeyRefs();

    Faults(TestControls controls) {
        this.controls = controls;
    }

    /** Starts a rule for this command: "GET", "*" for every command, "CONFIG SET" for a subcommand. */
    public FaultBuilder on(String command) {
        return new FaultBuilder(this, command);
    }

    Fault install(String command, String keyPattern, String clientPattern, long nth, long times, Verdict action) {
        return controls.call(() -> {
            Fault f = new Fault(this, nextId++, command, keyPattern, clientPattern, nth, times, action);
            rules.add(f);
            controls.changed();
            return f;
        });
    }

    /** Installs the interceptor, replacing the one installed before (null removes it). */
    public void intercept(CommandInterceptor interceptor) {
        controls.call(() -> {
            this.interceptor = interceptor;
            controls.changed();
            return null;
        });
    }

    /** Takes a rule out. */
    public void remove(Fault fault) {
        controls.call(() -> {
            rules.remove(fault);
            controls.changed();
            return null;
        });
    }

    /** Takes out the rule with this id; false if there is none (FAULT DEL). */
    boolean remove(long id) {
        return controls.call(() -> {
            boolean removed = rules.removeIf(f -> f.id() == id);
            controls.changed();
            return removed;
        });
    }

    /** Removes every rule and the interceptor. */
    public void clear() {
        controls.call(() -> {
            rules.clear();
            interceptor = null;
            controls.changed();
            return null;
        });
    }

    /** The rules still installed, in the order they are tried. */
    public List<Fault> list() {
        return controls.call(() -> List.copyOf(rules));
    }

    /** True when a rule or the interceptor may act on commands. Keyspace thread. */
    boolean active() {
        return !rules.isEmpty() || interceptor != null;
    }

    /** What happens to this call: null to run it as usual. Keyspace thread. */
    Verdict check(Client client, CommandSpec spec, byte[][] argv) {
        for (int i = 0; i < rules.size(); i++) {
            Fault f = rules.get(i);
            Verdict v = f.apply(client, spec, argv, keys);
            if (v == null) continue;
            if (f.exhausted()) {
                rules.remove(i);
                controls.changed();
            }
            return v;
        }
        if (interceptor == null) return null;
        Verdict v = interceptor.intercept(new InterceptedCommand(client, argv.clone(), spec.fullName().toUpperCase(Locale.ROOT)));
        return v == null || v.kind() == Verdict.Kind.PROCEED ? null : v;
    }
}
