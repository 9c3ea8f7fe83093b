package io.cinnabar.command.scripting;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.GoodReplicas;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.KeySpec;
import io.cinnabar.command.MasterLink;
import io.cinnabar.command.MemoryLimit;

import java.util.Arrays;

import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.MAY_REPLICATE;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_MANDATORY_KEYS;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.SKIP_MONITOR;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT: Lua scripts run atomically against the keyspace. */
public final class ScriptingCommands implements CommandFamily {
    private static final String NOSCRIPT_ERROR = "NOSCRIPT No matching script. Please use EVAL.";

    /** EVAL's and FCALL's keys: numkeys names after the script or function. */
    static final KeySpec SCRIPT_KEYS = at(2, RW, ACCESS, UPDATE).keynum(0, 1, 1), SCRIPT_RO_KEYS = at(2, RO, ACCESS).keynum(0, 1, 1);
    static final String SCRIPT_KEYS_NOTES = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE";
    static final String SCRIPT_RO_KEYS_NOTES = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS";

    @Override
    public String group() {
        return "scripting";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("EVAL", -3, NOSCRIPT, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, STALE)
                .keys(SCRIPT_KEYS.notes(SCRIPT_KEYS_NOTES))
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(ScriptingCommands::bodyCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("2.6.0", "Execute a Lua script server side", "Depends on the script that is executed."), c -> eval(c, false, false));
        t.add(spec("EVALSHA", -3, NOSCRIPT, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, STALE)
                .keys(SCRIPT_KEYS)
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(ScriptingCommands::cachedScriptCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("2.6.0", "Execute a Lua script server side", "Depends on the script that is executed."), c -> eval(c, true, false));
        t.add(spec("EVAL_RO", -3, NOSCRIPT, SKIP_MONITOR, NO_MANDATORY_KEYS, STALE, READONLY)
                .keys(SCRIPT_RO_KEYS.notes(SCRIPT_RO_KEYS_NOTES))
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(ScriptingCommands::bodyCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("7.0.0", "Execute a read-only Lua script server side", "Depends on the script that is executed."), c -> eval(c, false, true));
        t.add(spec("EVALSHA_RO", -3, NOSCRIPT, SKIP_MONITOR, NO_MANDATORY_KEYS, STALE, READONLY)
                .keys(SCRIPT_RO_KEYS)
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(ScriptingCommands::cachedScriptCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("7.0.0", "Execute a read-only Lua script server side", "Depends on the script that is executed."), c -> eval(c, true, true));
        t.add(spec("SCRIPT", -2).doc("2.6.0", "A container for Lua scripts management commands", "Depends on subcommand.")
                .sub(spec("DEBUG", 3, NOSCRIPT).doc("3.2.0", "Set the debug mode for executed scripts.", "O(1)"), this::debug)
                .sub(spec("EXISTS", -3, NOSCRIPT).tips("request_policy:all_shards", "response_policy:agg_logical_and")
                        .doc("2.6.0", "Check existence of scripts in the script cache.",
                                "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation)."), this::exists)
                .sub(spec("FLUSH", -2, NOSCRIPT).tips("request_policy:all_nodes", "response_policy:all_succeeded")
                        .doc("2.6.0", "Remove all the scripts from the script cache.", "O(N) with N being the number of scripts in cache")
                        .history("6.2.0", "Added the `ASYNC` and `SYNC` flushing mode modifiers."), this::flush)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help)
                .sub(spec("KILL", 2, NOSCRIPT, ALLOW_BUSY).runsWhileBusy().tips("request_policy:all_shards", "response_policy:one_succeeded")
                        .doc("2.6.0", "Kill the script currently in execution.", "O(1)"), this::kill)
                .sub(spec("LOAD", 3, NOSCRIPT, STALE).tips("request_policy:all_nodes", "response_policy:all_succeeded")
                        .doc("2.6.0", "Load the specified Lua script into the script cache.",
                                "O(N) with N being the length in bytes of the script body."), this::load), null);
    }

    /** EVAL's flags for Redis's checks: the body's shebang decides (Redis's evalGetCommandFlags). */
    private static int bodyCallFlags(io.cinnabar.command.ServerContext server, byte[][] argv, int declared) {
        ScriptFlags flags;
        try {
            flags = ScriptFlags.parse(argv[1]);
        } catch (io.cinnabar.command.CommandError invalid) {
            return declared; // the call fails anyway
        }
        return ScriptFlags.commandFlags(flags, declared);
    }

    /** EVALSHA's: the cached script's shebang, the command's own flags for an unknown script. */
    private static int cachedScriptCallFlags(io.cinnabar.command.ServerContext server, byte[][] argv, int declared) {
        ScriptEngine engine = server.component(ScriptEngine.class, null);
        if (engine == null || argv[1].length != 40) return declared;
        Script s = engine.find(argv[1]);
        return s == null ? declared : ScriptFlags.commandFlags(s.flags(), declared);
    }

    static ScriptEngine engine(Call c) {
        return ScriptEngine.of(c.server(), c.dispatcher());
    }

    /** EVAL script numkeys [key ...] [arg ...], EVALSHA sha1 numkeys ..., and their _RO twins */
    private void eval(Call c, boolean bySha, boolean ro) {
        // Shown before the commands the script runs (Redis's evalCommand feeds MONITOR itself).
        c.showToMonitors();
        // No SHA1 is of another length: Redis says so before it reads numkeys.
        if (bySha && c.arg(1).length != 40) throw new CommandError(NOSCRIPT_ERROR);
        if (c.client().luaDebug() != DEBUG_OFF) {
            if (bySha) throw new CommandError("ERR Please use EVAL instead of EVALSHA for debugging");
            if (c.client().luaDebug() == DEBUG_FORKED) {
                // What Redis does when its fork() fails: an error, and the debugging mode ends.
                c.client().luaDebug(DEBUG_OFF);
                throw new CommandError("ERR Fork() failed: can't run EVAL in debugging mode: Function not implemented");
            }
            engine(c).debugSession(c, () -> run(c, false, ro));
            return;
        }
        run(c, bySha, ro);
    }

    private void run(Call c, boolean bySha, boolean ro) {
        long numkeys = c.longArg(2);
        if (numkeys > c.argCount() - 3) throw new CommandError("ERR Number of keys can't be greater than number of args");
        if (numkeys < 0) throw new CommandError("ERR Number of keys can't be negative");
        ScriptEngine engine = engine(c);
        Script script;
        if (bySha) {
            byte[] sha = c.arg(1);
            script = engine.find(sha);
            if (script == null) throw new CommandError(NOSCRIPT_ERROR);
        } else {
            script = engine.load(c.arg(1));
        }
        ScriptFlags flags = script.flags();
        checkBeforeRun(c, flags, ro);
        int keysEnd = 3 + (int) numkeys;
        byte[][] keys = Arrays.copyOfRange(c.args(), 3, keysEnd);
        byte[][] args = Arrays.copyOfRange(c.args(), keysEnd, c.argCount());
        boolean readOnly = ro || (!flags.compat() && flags.noWrites());
        engine.invoke(script, c.client(), keys, args, readOnly, c.reply(), c.spec().stats());
    }

    /**
     * Redis's scriptPrepareForRun checks, in its order: what the declared flags allow here (a
     * script without them may only not run stale). The master's stream and an AOF are obeyed.
     */
    static void checkBeforeRun(Call c, ScriptFlags flags, boolean ro) {
        boolean obeyed = c.dispatcher().obeys(c.client());
        boolean stale = !obeyed && MasterLink.runningStale(c.server());
        if (flags.compat()) {
            if (stale) throw new CommandError(MasterLink.MASTERDOWN);
            return;
        }
        if (flags.noCluster() && c.server().cluster() != null) {
            throw new CommandError("ERR Can not run script on cluster, 'no-cluster' flag is set.");
        }
        if (stale && !flags.allowStale()) {
            throw new CommandError("MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' "
                    + "and 'allow-stale' flag is not set on the script.");
        }
        if (flags.noWrites()) return;
        if (!obeyed && MasterLink.refusesWrites(c.server(), c.client())) {
            throw new CommandError("READONLY Can not run script with write flag on readonly replica");
        }
        String diskError = obeyed ? null : c.server().persistence().writeDeniedError();
        if (diskError != null) throw new CommandError(writableScriptsBlocked(diskError));
        if (ro) throw new CommandError("ERR Can not execute a script with write flag using *_ro command.");
        if (!GoodReplicas.enough(c.server())) throw new CommandError(GoodReplicas.NOREPLICAS);
        // Declared flags decide up front, whatever the script would call (no-writes implies allow-oom).
        if (!flags.allowOom() && c.server().memoryLimit().outOfMemory()) {
            throw new CommandError("OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'");
        }
    }

    /** Redis's scriptPrepareForRun texts for a writable script while the disk fails. */
    private static String writableScriptsBlocked(String diskError) {
        if (diskError.contains("RDB")) {
            return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. "
                    + "Writable scripts are blocked. Use 'no-writes' flag for read only scripts.";
        }
        int at = diskError.indexOf("AOF error: ");
        return "MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. "
                + "Writable scripts are blocked. Use 'no-writes' flag for read only scripts."
                + (at >= 0 ? " " + diskError.substring(at) : "");
    }

    /** SCRIPT LOAD script */
    private void load(Call c) {
        c.reply().bulk(engine(c).load(c.arg(2)).sha());
    }

    /** SCRIPT EXISTS sha1 [sha1 ...] */
    private void exists(Call c) {
        ScriptEngine engine = engine(c);
        c.reply().array(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) c.reply().integer(engine.exists(c.argString(i)) ? 1 : 0);
    }

    /** SCRIPT FLUSH [ASYNC|SYNC] */
    private void flush(Call c) {
        if (c.argCount() > 3 || (c.argCount() == 3 && !c.argIs(2, "SYNC") && !c.argIs(2, "ASYNC"))) {
            throw new CommandError("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        }
        engine(c).reset();
        c.reply().ok();
    }

    /** SCRIPT KILL */
    private void kill(Call c) {
        ScriptEngine.killCommand(c, true);
    }

    /** SCRIPT DEBUG modes (Client.luaDebug): none, YES (a fork()ed session in Redis), SYNC. */
    private static final int DEBUG_OFF = 0, DEBUG_FORKED = 1, DEBUG_SYNC = 2;

    static final String NO_SYNC_DEBUG = "ERR SCRIPT DEBUG SYNC talks to the client's socket from the thread that runs "
            + "commands, which this connection cannot lend it (TLS, or io-threads above 1)";

    /**
     * SCRIPT DEBUG YES|SYNC|NO. SYNC debugs the client's next EVAL ({@link LuaDebugger}). YES would
     * debug it in a fork()ed child whose changes are thrown away; a JVM does not fork, so its EVAL
     * fails as Redis's does when fork() fails, rather than run for real.
     */
    private void debug(Call c) {
        // Redis refuses before it reads the mode when replies are pending (a pipeline, EXEC).
        if (c.repliesPending()) throw new CommandError("ERR SCRIPT DEBUG must be called outside a pipeline");
        if (c.argIs(2, "NO")) {
            c.client().luaDebug(DEBUG_OFF);
        } else if (c.argIs(2, "SYNC")) {
            if (c.client().channel().syncConsole() == null) throw new CommandError(NO_SYNC_DEBUG);
            c.client().luaDebug(DEBUG_SYNC);
        } else if (c.argIs(2, "YES")) {
            c.client().luaDebug(DEBUG_FORKED);
        } else {
            throw new CommandError("ERR Use SCRIPT DEBUG YES/SYNC/NO");
        }
        c.reply().ok();
    }

    /** SCRIPT HELP */
    private void help(Call c) {
        HelpReply.reply(c,
                "DEBUG (YES|SYNC|NO)",
                "    Set the debug mode for subsequent scripts executed.",
                "EXISTS <sha1> [<sha1> ...]",
                "    Return information about the existence of the scripts in the script cache.",
                "FLUSH [ASYNC|SYNC]",
                "    Flush the Lua scripts cache. Very dangerous on replicas.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the scripts cache.",
                "    * SYNC: Synchronously flush the scripts cache.",
                "KILL",
                "    Kill the currently executing Lua script.",
                "LOAD <script>",
                "    Load a script into the scripts cache without executing it.");
    }
}
