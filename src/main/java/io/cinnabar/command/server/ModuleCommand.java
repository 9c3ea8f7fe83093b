package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.config.ConfigOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_ASYNC_LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/**
 * MODULE as Redis 7.0 answers it with no module loaded: LIST is empty, and LOAD, LOADEX and UNLOAD
 * (protected by enable-module-command, which gates them first) fail as a load or unload that went wrong
 * does. Redis modules are native libraries; a JVM server cannot run them.
 */
public final class ModuleCommand implements CommandFamily {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ModuleCommand.class);
    private static final String LOAD_FAILED = "ERR Error loading the extension. Please check the server logs.";

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MODULE", -2).doc("4.0.0", "A container for module commands", "Depends on subcommand.")
                .sub(spec("HELP", 2, LOADING, STALE).doc("5.0.0", "Show helpful text about the different subcommands", "O(1)"),
                        c -> HelpReply.reply(c,
                                "LIST",
                                "    Return a list of loaded modules.",
                                "LOAD <path> [<arg> ...]",
                                "    Load a module library from <path>, passing to it any optional arguments.",
                                "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                                "    Load a module library from <path>, while passing it module configurations and optional arguments.",
                                "UNLOAD <name>",
                                "    Unload a module."))
                .sub(spec("LIST", 2, ADMIN, NOSCRIPT).tips("nondeterministic_output_order")
                        .doc("4.0.0", "List all modules loaded by the server", "O(N) where N is the number of loaded modules."),
                        c -> c.reply().array(0))
                .sub(spec("LOAD", -3, NO_ASYNC_LOADING, ADMIN, NOSCRIPT).protectedBy(ConfigOptions.ENABLE_MODULE_COMMAND)
                        .doc("4.0.0", "Load a module", "O(1)"),
                        this::load)
                .sub(spec("LOADEX", -3, NO_ASYNC_LOADING, ADMIN, NOSCRIPT).protectedBy(ConfigOptions.ENABLE_MODULE_COMMAND)
                        .doc("7.0.0", "Load a module with extended parameters", "O(1)"), this::load)
                .sub(spec("UNLOAD", 3, NO_ASYNC_LOADING, ADMIN, NOSCRIPT).protectedBy(ConfigOptions.ENABLE_MODULE_COMMAND)
                        .doc("4.0.0", "Unload a module", "O(1)"),
                        c -> {
                            throw new CommandError("ERR Error unloading module: no such module with that name");
                        }), null);
    }

    /** MODULE LOAD|LOADEX path ...: logs why, as Redis's moduleLoad does, and fails. */
    private void load(Call c) {
        String path = new String(c.arg(2), StandardCharsets.UTF_8);
        Path file = Path.of(path);
        String reason;
        if (!Files.exists(file)) reason = path + ": cannot open shared object file: No such file or directory";
        else if (!Files.isExecutable(file)) reason = "It does not have execute permissions.";
        else reason = "Cinnabar runs on the JVM and cannot load native Redis modules";
        log.warn("Module {} failed to load: {}", path, reason);
        throw new CommandError(LOAD_FAILED);
    }
}
