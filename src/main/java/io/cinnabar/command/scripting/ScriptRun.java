package io.cinnabar.command.scripting;

import io.cinnabar.command.Client;

/**
 * One script invocation's state (Redis's scriptRunCtx). The flags SCRIPT KILL reads and sets
 * are volatile: it runs on the keyspace thread while the script runs on the script thread.
 */
final class ScriptRun {
    /** The script's SHA1 (EVAL) or the function's name (FCALL), as errors name it. */
    final String name;
    /** EVAL rather than FCALL: which KILL may stop it and which BUSY text others get. */
    final boolean eval;
    final Client caller;
    final Client scriptClient;
    final boolean readOnly;
    /** RESP version of redis.call replies (redis.setresp). */
    int resp = 2;
    /** Whether writes are propagated (redis.set_repl: REPL_AOF bit). */
    boolean propagate = true;
    /** A function's library code, to name the callee of a failed call in the error (CalledNames). */
    org.luaj.vm2.Prototype chunk;
    /** The command that started it and when (FUNCTION STATS). */
    byte[][] command;
    final long startMs = System.currentTimeMillis();
    volatile boolean wrote;
    /** The script's allow-oom flag: its writes go on past maxmemory. */
    boolean allowOom;
    /** Cluster mode: its calls may use keys of several slots of this node (no shebang, or allow-cross-slot-keys). */
    boolean allowCrossSlot;
    volatile boolean killed;

    ScriptRun(String name, boolean eval, Client caller, Client scriptClient, boolean readOnly) {
        this.name = name;
        this.eval = eval;
        this.caller = caller;
        this.scriptClient = scriptClient;
        this.readOnly = readOnly;
        // The script's commands run as the caller's user (Redis's scriptPrepareForRun).
        scriptClient.aclUser(caller.aclUser());
    }
}
