package io.cinnabar.command.scripting;

import io.cinnabar.command.Client;

/**
 * One script invocation's state (Redis's scriptRunCtx). The flags SCRIPT KILL reads and sets
 * are volatile: it runs on the keyspace thread while the script runs on the script thread (and a
 * coroutine's code runs on a thread of its own in luaj).
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
    /** Where writes are propagated (redis.set_repl): {@link io.cinnabar.persistence.WriteFeed#TO_ALL}, ... */
    int propagateTo = io.cinnabar.persistence.WriteFeed.TO_ALL;
    /** A function's library code, to name the callee of a failed call in the error (CalledNames). */
    org.luaj.vm2.Prototype chunk;
    /** The command that started it and when (FUNCTION STATS). */
    byte[][] command;
    final long startMs = System.currentTimeMillis();
    volatile boolean wrote;
    /** It did what others may see besides writing (PUBLISH, redis.log): it cannot run again from the start either. */
    volatile boolean sideEffects;
    /** On the keyspace thread: the System.nanoTime() past which it moves to the helper if it has only read; else 0. */
    long inlineDeadline;
    /** It passed the inline deadline having only read: every instruction from now on throws RunElsewhere. */
    volatile boolean moving;
    /** The script's allow-oom flag: its writes go on past maxmemory. */
    boolean allowOom;
    /** Cluster mode: its calls may use keys of several slots of this node (no shebang, or allow-cross-slot-keys). */
    boolean allowCrossSlot;
    volatile boolean killed;

    /**
     * The instruction hook's stop check, while inlineDeadline is set: past it (read every
     * {@link ScriptHook#STOP_CHECK_EVERY} instructions), a run that has only read stops here to
     * run again on the helper thread; one that has written or published finishes where it is. Every instruction throws once moving, so that neither
     * pcall nor a coroutine's resume (luaj catches everything on a coroutine's thread) keeps it.
     */
    void checkInlineDeadline() {
        if (moving) throw io.cinnabar.command.RunElsewhere.INSTANCE;
        if (System.nanoTime() - inlineDeadline < 0) return;
        if (wrote || sideEffects) {
            inlineDeadline = 0;
            return;
        }
        moving = true;
        throw io.cinnabar.command.RunElsewhere.INSTANCE;
    }

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
