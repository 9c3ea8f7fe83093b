package io.cinnabar.command.scripting;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.persistence.rdb.DumpPayload;
import io.cinnabar.persistence.rdb.RdbFormatException;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.MAY_REPLICATE;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_MANDATORY_KEYS;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.SKIP_MONITOR;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;

/** FCALL, FCALL_RO and FUNCTION LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE / KILL / STATS / HELP. */
public final class FunctionCommands implements CommandFamily {
    @Override
    public String group() {
        return "scripting";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("FCALL", -3, NOSCRIPT, SKIP_MONITOR, MAY_REPLICATE, NO_MANDATORY_KEYS, STALE)
                .keys(ScriptingCommands.SCRIPT_KEYS.notes(ScriptingCommands.SCRIPT_KEYS_NOTES))
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(FunctionCommands::functionCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("7.0.0", "Invoke a function", "Depends on the function that is executed."), c -> fcall(c, false));
        t.add(spec("FCALL_RO", -3, NOSCRIPT, SKIP_MONITOR, NO_MANDATORY_KEYS, STALE, READONLY)
                .keys(ScriptingCommands.SCRIPT_RO_KEYS.notes(ScriptingCommands.SCRIPT_RO_KEYS_NOTES))
                .keyFinder(KeyProcs.numKeys(0, 2, 3)).callFlags(FunctionCommands::functionCallFlags).propagatesInnerCommands().mayRunLong()
                .doc("7.0.0", "Invoke a read-only function", "Depends on the function that is executed."), c -> fcall(c, true));
        t.add(spec("FUNCTION", -2).doc("7.0.0", "A container for function commands", "Depends on subcommand.")
                .sub(spec("DELETE", 3, NOSCRIPT, WRITE).tips("request_policy:all_shards", "response_policy:all_succeeded")
                        .doc("7.0.0", "Delete a function by name", "O(1)"), this::delete)
                .sub(spec("DUMP", 2, NOSCRIPT)
                        .doc("7.0.0", "Dump all functions into a serialized binary payload", "O(N) where N is the number of functions"), this::dump)
                .sub(spec("FLUSH", -2, NOSCRIPT, WRITE).tips("request_policy:all_shards", "response_policy:all_succeeded")
                        .doc("7.0.0", "Deleting all functions", "O(N) where N is the number of functions deleted"), this::flush)
                .sub(spec("HELP", 2, LOADING, STALE).doc("7.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help)
                .sub(spec("KILL", 2, NOSCRIPT, ALLOW_BUSY).runsWhileBusy().tips("request_policy:all_shards", "response_policy:one_succeeded")
                        .doc("7.0.0", "Kill the function currently in execution.", "O(1)"), this::kill)
                .sub(spec("LIST", -2, NOSCRIPT).tips("nondeterministic_output_order")
                        .doc("7.0.0", "List information about all the functions", "O(N) where N is the number of functions"), this::list)
                .sub(spec("LOAD", -3, NOSCRIPT, WRITE, DENYOOM).tips("request_policy:all_shards", "response_policy:all_succeeded")
                        .doc("7.0.0", "Create a function with the given arguments (name, code, description)",
                                "O(1) (considering compilation time is redundant)"), this::load)
                .sub(spec("RESTORE", -3, NOSCRIPT, WRITE, DENYOOM).tips("request_policy:all_shards", "response_policy:all_succeeded")
                        .doc("7.0.0", "Restore all the functions on the given payload",
                                "O(N) where N is the number of functions on the payload"), this::restore)
                .sub(spec("STATS", 2, NOSCRIPT, ALLOW_BUSY).runsWhileBusy().tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special")
                        .doc("7.0.0", "Return information about the function currently running (name, description, duration)",
                                "O(1)"), this::stats), null);
    }

    /** FCALL's flags for Redis's checks: the function's (Redis's fcallGetCommandFlags), the command's if it is unknown. */
    private static int functionCallFlags(io.cinnabar.command.ServerContext server, byte[][] argv, int declared) {
        ScriptEngine engine = server.component(ScriptEngine.class, null);
        FunctionLibraries.Function f = engine == null ? null
                : engine.functions().function(BinaryText.decode(argv[1]));
        return f == null ? declared : ScriptFlags.commandFlags(f.flags(), declared);
    }

    private static FunctionLibraries libraries(Call c) {
        return ScriptingCommands.engine(c).functions();
    }

    /** FCALL function numkeys [key ...] [arg ...] and FCALL_RO */
    private void fcall(Call c, boolean ro) {
        c.showToMonitors(); // before the commands the function runs, as Redis's fcallCommandGeneric
        ScriptEngine engine = ScriptingCommands.engine(c);
        FunctionLibraries.Function f = engine.functions().function(c.argString(1));
        if (f == null) throw new CommandError("ERR Function not found");
        long numkeys = c.longArg(2, "ERR Bad number of keys provided");
        if (numkeys > c.argCount() - 3) throw new CommandError("ERR Number of keys can't be greater than number of args");
        if (numkeys < 0) throw new CommandError("ERR Number of keys can't be negative");
        ScriptingCommands.checkBeforeRun(c, f.flags(), ro);
        int keysEnd = 3 + (int) numkeys;
        byte[][] keys = Arrays.copyOfRange(c.args(), 3, keysEnd);
        byte[][] args = Arrays.copyOfRange(c.args(), keysEnd, c.argCount());
        engine.invoke(f, c.client(), c.args(), keys, args, ro || f.flags().noWrites(), c.reply(), c.spec().stats());
    }

    /** FUNCTION LOAD [REPLACE] function-code */
    private void load(Call c) {
        boolean replace = false;
        int i = 2;
        for (; i < c.argCount() - 1; i++) {
            if (!c.argIs(i, "REPLACE")) throw new CommandError("ERR Unknown option given: " + c.quoted(i));
            replace = true;
        }
        if (i >= c.argCount()) throw new CommandError("ERR Function code is missing");
        String name = libraries(c).load(c.arg(i), replace);
        c.forcePropagation();
        c.reply().bulk(name);
    }

    /** FUNCTION DELETE library-name */
    private void delete(Call c) {
        if (!libraries(c).delete(c.argString(2))) throw new CommandError("ERR Library not found");
        c.forcePropagation();
        c.reply().ok();
    }

    /** FUNCTION FLUSH [ASYNC|SYNC] */
    private void flush(Call c) {
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        if (c.argCount() == 3 && !c.argIs(2, "ASYNC") && !c.argIs(2, "SYNC")) {
            throw new CommandError("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        libraries(c).flush();
        c.forcePropagation();
        c.reply().ok();
    }

    /** FUNCTION DUMP: the libraries in RDB form, with DUMP's version and checksum footer. */
    private void dump(Call c) {
        try {
            c.reply().bulk(DumpPayload.functions(libraries(c).codes(), c.config().getBool(ConfigOptions.RDBCOMPRESSION)));
        } catch (IOException e) {
            throw new IllegalStateException(e); // in-memory output: unreachable
        }
    }

    /** FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE] */
    private void restore(Call c) {
        if (c.argCount() > 4) throw CommandError.subcommandSyntax(c.args());
        FunctionLibraries.RestorePolicy policy = FunctionLibraries.RestorePolicy.APPEND;
        if (c.argCount() == 4) {
            if (c.argIs(3, "APPEND")) policy = FunctionLibraries.RestorePolicy.APPEND;
            else if (c.argIs(3, "REPLACE")) policy = FunctionLibraries.RestorePolicy.REPLACE;
            else if (c.argIs(3, "FLUSH")) policy = FunctionLibraries.RestorePolicy.FLUSH;
            else throw new CommandError("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
        }
        List<byte[]> codes;
        try {
            codes = DumpPayload.functionCodes(c.arg(2), !c.server().skipChecksumValidation());
        } catch (RdbFormatException e) {
            throw new CommandError("ERR " + e.reason());
        }
        libraries(c).restore(codes, policy);
        c.forcePropagation();
        c.reply().ok();
    }

    /** FUNCTION KILL */
    private void kill(Call c) {
        ScriptEngine.killCommand(c, false);
    }

    /** FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] */
    private void list(Call c) {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < c.argCount(); i++) {
            if (!withCode && c.argIs(i, "WITHCODE")) {
                withCode = true;
            } else if (pattern == null && c.argIs(i, "LIBRARYNAME")) {
                if (i >= c.argCount() - 1) throw new CommandError("ERR library name argument was not given");
                pattern = c.arg(++i);
            } else {
                throw new CommandError("ERR Unknown argument " + c.quoted(i));
            }
        }
        Reply r = c.reply();
        List<FunctionLibraries.Library> libs = new java.util.ArrayList<>();
        for (FunctionLibraries.Library l : libraries(c).libraries()) {
            if (pattern == null || GlobMatcher.matches(pattern, l.name().getBytes(StandardCharsets.UTF_8), true)) libs.add(l);
        }
        r.array(libs.size());
        for (FunctionLibraries.Library l : libs) {
            r.map(withCode ? 4 : 3);
            r.bulk("library_name");
            r.bulk(l.name());
            r.bulk("engine");
            r.bulk("LUA");
            r.bulk("functions");
            r.array(l.functions().size());
            for (FunctionLibraries.Function f : l.functions().values()) {
                r.map(3);
                r.bulk("name");
                r.bulk(f.name());
                r.bulk("description");
                if (f.description() == null) r.nullBulk(); else r.bulk(f.description());
                r.bulk("flags");
                List<String> flags = FunctionLibraries.flagNames(f.flags());
                r.set(flags.size());
                for (String flag : flags) r.simple(flag); // status replies, as Redis's functionListReplyFlags
            }
            if (withCode) {
                r.bulk("library_code");
                r.bulk(l.code());
            }
        }
    }

    /** FUNCTION STATS */
    private void stats(Call c) {
        ScriptEngine engine = c.server().component(ScriptEngine.class, null);
        ScriptRun run = engine == null ? null : engine.current();
        if (run != null && run.eval) throw new CommandError(ScriptEngine.BUSY_EVAL);
        Reply r = c.reply();
        r.map(2);
        r.bulk("running_script");
        if (run == null) {
            r.nullBulk();
        } else {
            r.map(3);
            r.bulk("name");
            r.bulk(run.name);
            r.bulk("command");
            r.bulkArray(run.command);
            r.bulk("duration_ms");
            r.integer(System.currentTimeMillis() - run.startMs);
        }
        r.bulk("engines");
        r.map(1);
        r.bulk("LUA");
        r.map(2);
        r.bulk("libraries_count");
        r.integer(engine == null ? 0 : engine.functions().libraries().size());
        r.bulk("functions_count");
        r.integer(engine == null ? 0 : engine.functions().functionCount());
    }

    /** FUNCTION HELP */
    private void help(Call c) {
        HelpReply.reply(c,
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Create a new library with the given library name and code.",
                "DELETE <LIBRARY NAME>",
                "    Delete the given library.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return general information on all the libraries:",
                "    * Library name",
                "    * The engine used to run the Library",
                "    * Library description",
                "    * Functions list",
                "    * Library code (if WITHCODE is given)",
                "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
                "STATS",
                "    Return information about the current function running:",
                "    * Function name",
                "    * Command used to run the function",
                "    * Duration in MS that the function is running",
                "    If no function is running, return nil",
                "    In addition, returns a list of available engines.",
                "KILL",
                "    Kill the current running function.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete all the libraries.",
                "    When called without the optional mode argument, the behavior is determined by the",
                "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
                "    * ASYNC: Asynchronously flush the libraries.",
                "    * SYNC: Synchronously flush the libraries.",
                "DUMP",
                "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
                "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
                "    control how to handle existing libraries (default APPEND):",
                "    * FLUSH: delete all existing libraries.",
                "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
                "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
                "      libraries with the new libraries (notice that even on this option there is a chance of failure",
                "      in case of functions name collision with another library).");
    }
}
