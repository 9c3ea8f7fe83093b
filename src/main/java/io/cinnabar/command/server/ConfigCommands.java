package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.config.ConfigRewriter;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.persistence.aof.IoErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** CONFIG GET, SET, RESETSTAT, REWRITE, HELP. */
public final class ConfigCommands implements CommandFamily {
    private static final Logger log = LoggerFactory.getLogger(ConfigCommands.class);

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("CONFIG", -2).doc("2.0.0", "A container for server configuration commands", "Depends on subcommand.")
                .sub(spec("GET", -3, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("2.0.0", "Get the values of configuration parameters", "O(N) when N is the number of configuration parameters provided")
                        .history("7.0.0", "Added the ability to pass multiple pattern parameters in one call"), this::get)
                .sub(spec("SET", -4, ADMIN, NOSCRIPT, LOADING, STALE).tips("request_policy:all_nodes", "response_policy:all_succeeded")
                        .doc("2.0.0", "Set configuration parameters to the given values",
                                "O(N) when N is the number of configuration parameters provided")
                        .history("7.0.0", "Added the ability to set multiple parameters in one call."), this::set)
                .sub(spec("RESETSTAT", 2, ADMIN, NOSCRIPT, LOADING, STALE).doc("2.0.0", "Reset the stats returned by INFO", "O(1)"), this::resetstat)
                .sub(spec("REWRITE", 2, ADMIN, NOSCRIPT, LOADING, STALE)
                        .doc("2.8.0", "Rewrite the configuration file with the in memory configuration", "O(1)"), this::rewrite)
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"), this::help), null);
    }

    /** CONFIG GET parameter [parameter ...] */
    private void get(Call c) {
        List<String> patterns = new ArrayList<>();
        for (int i = 2; i < c.argCount(); i++) patterns.add(c.argString(i));
        List<String[]> found = c.config().matching(patterns, (p, n) ->
                GlobMatcher.matches(p.getBytes(StandardCharsets.UTF_8), n.getBytes(StandardCharsets.UTF_8), true));
        c.reply().map(found.size());
        for (String[] kv : found) {
            c.reply().bulk(kv[0]);
            c.reply().bulk(kv[1]);
        }
    }

    /** CONFIG SET parameter value [parameter value ...] */
    private void set(Call c) {
        // Past the arity check (at least one pair), a value short is Redis's syntax error.
        if (c.argCount() % 2 != 0) throw CommandError.syntax();
        List<byte[]> pairs = new ArrayList<>();
        for (int i = 2; i < c.argCount(); i++) pairs.add(c.arg(i));
        var link = c.server().masterLink();
        boolean loading = c.keyspace().isLoading() || link.loadingPayload() || link.asyncLoadingPayload();
        String error = c.config().configSet(pairs, c.client().channel().loopback(), loading);
        if (error != null) throw new CommandError(error);
        c.reply().ok();
    }

    /** CONFIG RESETSTAT */
    private void resetstat(Call c) {
        c.server().resetStats();
        c.reply().ok();
    }

    /** CONFIG REWRITE */
    private void rewrite(Call c) {
        String file = c.config().configFile();
        if (file == null) throw new CommandError("ERR The server is running without a config file");
        try {
            ConfigRewriter.rewrite(c.config(), file, c.server().acl().configLines());
        } catch (IOException e) {
            log.warn("CONFIG REWRITE failed: {}", IoErrors.strerror(e));
            throw new CommandError("ERR Rewriting config file: " + IoErrors.strerror(e));
        }
        log.warn("CONFIG REWRITE executed with success.");
        c.reply().ok();
    }

    /** CONFIG HELP */
    private void help(Call c) {
        String[] lines = {
            "GET <pattern>",
            "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>",
            "    Set the configuration <directive> to <value>.",
            "RESETSTAT",
            "    Reset statistics reported by the INFO command.",
            "REWRITE",
            "    Rewrite the configuration file."
        };
        HelpReply.reply(c, lines);
    }
}
