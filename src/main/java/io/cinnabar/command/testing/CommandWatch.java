package io.cinnabar.command.testing;

import io.cinnabar.command.Client;
import io.cinnabar.command.CommandSpec;

/**
 * What the Dispatcher asks about each command while the recorder runs or faults are installed;
 * it holds none while neither is, so the cost then is one null check per command. Keyspace thread.
 */
public final class CommandWatch {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(CommandWatch.class);
    private static final byte[] CINNABAR = {'c', 'i', 'n', 'n', 'a', 'b', 'a', 'r'};

    private final Faults faults;
    private final Recorder recorder;
    private final io.cinnabar.keyspace.Keyspace keyspace;

    CommandWatch(Faults faults, Recorder recorder, io.cinnabar.keyspace.Keyspace keyspace) {
        this.faults = faults;
        this.recorder = recorder;
        this.keyspace = keyspace;
    }

    /** A request as the client sent it, before anything is checked. */
    public void arrived(Client client, byte[][] argv) {
        if (recorder.isRecording() && !Recorder.equalsIgnoreCase(argv[0], CINNABAR)) {
            recorder.record(client, argv, keyspace.mstime());
        }
    }

    /**
     * What happens to a known command with a valid arity: null to run it as usual. An interceptor
     * that throws answers the command with an error instead of breaking the connection.
     */
    public Verdict check(Client client, CommandSpec spec, byte[][] argv) {
        if (!faults.active() || spec.name().equals("cinnabar")) return null;
        try {
            return faults.check(client, spec, argv);
        } catch (RuntimeException e) {
            log.warn("Command interceptor failed on {}", spec.fullName(), e);
            return Verdict.error(Verdict.interceptorFailure(e));
        }
    }
}
