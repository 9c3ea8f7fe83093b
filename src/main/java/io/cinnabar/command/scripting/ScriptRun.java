package io.cinnabar.command.scripting;

import io.cinnabar.command.Client;

/**
 * One script invocation's state (Redis's scriptRunCtx). The flags SCRIPT KILL reads and sets
 * are volatile: it runs on the keyspace thread while the script runs on the script thread.
 */
final class ScriptRun {
    final String sha;
    final Client caller;
    final Client scriptClient;
    final boolean readOnly;
    /** RESP version of redis.call replies (redis.setresp). */
    int resp = 2;
    /** Whether writes are propagated (redis.set_repl: REPL_AOF bit). */
    boolean propagate = true;
    volatile boolean wrote;
    volatile boolean killed;

    ScriptRun(String sha, Client caller, Client scriptClient, boolean readOnly) {
        this.sha = sha;
        this.caller = caller;
        this.scriptClient = scriptClient;
        this.readOnly = readOnly;
    }
}
