package io.cinnabar;

import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HeapExhaustion;
import io.cinnabar.command.server.HeapReturn;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigLoader;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.config.InertOptionWarnings;
import io.cinnabar.config.StartupDirectives;
import io.cinnabar.log.ServerLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code java -jar cinnabar.jar [conf-file] [--name value ...]}, started like redis-server and
 * logging what redis-server logs at start-up and exit, in the same words: the Redis test suite and
 * operators' scripts wait for those lines.
 */
public final class Cinnabar {
    private static final Logger log = LoggerFactory.getLogger(Cinnabar.class);

    private Cinnabar() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length == 1 && (args[0].equals("-v") || args[0].equals("--version"))) {
            System.out.println("Cinnabar server v=" + Version.CINNABAR_VERSION + " redis_version="
                    + Version.REDIS_VERSION + " java=" + System.getProperty("java.version"));
            return;
        }
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.out.println("Usage: java -jar cinnabar.jar [/path/to/cinnabar.conf] [options]\n"
                    + "       java -jar cinnabar.jar -v or --version\n"
                    + "       java -jar cinnabar.jar -h or --help\n\n"
                    + "Examples:\n"
                    + "       java -jar cinnabar.jar (run the server with default conf)\n"
                    + "       java -jar cinnabar.jar conf/cinnabar.conf\n"
                    + "       java -jar cinnabar.jar --port 7777\n"
                    + "       java -jar cinnabar.jar conf/cinnabar.conf --loglevel verbose --save \"\"");
            return;
        }
        Config config;
        try {
            config = ConfigLoader.fromArgs(args);
        } catch (ConfigLoader.FatalConfigError e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        ServerLog.apply(config);
        long pid = ProcessHandle.current().pid();
        log.warn("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
        log.warn("Redis version={}, bits=64, commit=00000000, modified=0, pid={}, just started",
                Version.REDIS_VERSION, pid);
        log.info("Cinnabar version={}, java={}", Version.CINNABAR_VERSION, System.getProperty("java.version"));
        if (args.length == 0) {
            log.warn("Warning: no config file specified, using the default config. In order to specify a config "
                    + "file use java -jar cinnabar.jar /path/to/redis.conf");
        } else {
            log.warn("Configuration loaded");
        }
        InertOptionWarnings.follow(config);
        // Beside the warm-up: linking every command's handler costs ~100-600 ms in a fresh JVM.
        Thread commandLinking = CommandTable.linkInBackground(config.getBool(ConfigOptions.ENABLE_TEST_COMMANDS));
        Thread luaLoading = io.cinnabar.command.scripting.LuaClassLoading.startInBackground();
        JitWarmUp.runIfAsked(config);

        CinnabarServer server = new CinnabarServer(config);
        // Before the port takes commands: an OutOfMemoryError in the first request must end the process too
        // (set after "Ready", a loaded machine could serve one first: StartupIT's OOM test hung 20 s).
        HeapExhaustion.exitProcessOnIt();
        try {
            server.listen();
        } catch (io.cinnabar.config.ConfigStartupException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        } catch (io.cinnabar.command.acl.AclStartupException e) {
            log.warn(e.getMessage());
            System.exit(1);
            return;
        } catch (io.cinnabar.network.TlsConfigurationException e) {
            // The reason is logged already, as Redis logs it before this line.
            log.warn("Failed to configure TLS. Check logs for more info.");
            System.exit(1);
            return;
        } catch (IllegalStateException e) {
            failedListening(config, e);
            return;
        }
        ShutdownSignals.install(server, pid);
        PidFile pidFile = PidFile.write(config, pid);
        showBanner(config, server.port() != 0 ? server.port() : server.tlsPort(), pid);
        log.warn("Server initialized");
        refuseModules(config.directives());
        // Before the data: functions in an RDB make the interpreter, which must not meet the throwaway one.
        try {
            luaLoading.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // After the PID line the test suite waits for, and before "Ready to accept connections",
        // while clients already get -LOADING.
        try {
            server.loadData();
        } catch (IllegalStateException e) {
            // The loaders logged Redis's lines for what went wrong, the one tests look for last
            // (Redis exits there without removing its pid file either).
            System.exit(1);
            return;
        }
        try {
            commandLinking.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.registerAllCommands();
        // As redis-server makes its Lua interpreter at start: the first EVAL does not wait for it.
        server.startScripting();
        log.info("Ready to accept connections");
        HeapReturn.watchQuietPeriods();
        long maxmemory = config.getLong(ConfigOptions.MAXMEMORY);
        if (maxmemory > 0 && maxmemory < 1024 * 1024) {
            log.warn("WARNING: You specified a maxmemory value that is less than 1MB (current value is {} bytes). "
                    + "Are you sure this is what you really want?", maxmemory);
        }
        Thread main = Thread.currentThread();
        AtomicBoolean exitingAlready = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            exitingAlready.set(true);
            if (!server.isRunning()) return;
            // Signals go through ShutdownSignals; this is an exit from elsewhere (SIGHUP, System.exit).
            if (!HeapExhaustion.exiting()) log.warn("User requested shutdown...");
            server.close();
            try {
                main.join(5000); // the JVM halts when hooks end: let main write the last lines
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cinnabar-sigterm"));
        server.awaitTermination();
        if (pidFile != null) pidFile.remove();
        log.warn("Redis is now ready to exit, bye bye...");
        // Exits now, as redis-server does, rather than when the last non-daemon thread ends: Netty's
        // GlobalEventExecutor thread (it tells the event loop groups' listeners that they stopped)
        // is one, and outlives its last task by a second. The Redis test suite waits for each server
        // it stops to be gone. Not when the JVM is already exiting: exit() would wait for the hook
        // that waits for this thread.
        if (!exitingAlready.get()) System.exit(0);
    }

    /** Redis's lines for a port it cannot listen on; the test suite retries on another port when it sees them. */
    private static void failedListening(Config config, IllegalStateException e) {
        String reason = e.getMessage();
        if (!(e.getCause() instanceof IOException)) {
            log.warn("Failed to start the server: {}", reason, e);
        } else {
            if (!reason.startsWith("Failed listening")) log.warn("Warning: {}", reason);
            if (e.getCause() instanceof io.cinnabar.network.NettyServer.ListenFailure failure) {
                log.warn("Failed listening on port {} ({}), aborting.", failure.port(), failure.kind());
            } else {
                log.warn("Failed listening on port {} (TCP), aborting.", config.getLong(ConfigOptions.PORT));
            }
        }
        System.exit(1);
    }

    /** The logo's place: Redis shows it on a terminal or with always-show-logo, else one line. */
    private static void showBanner(Config config, int port, long pid) {
        boolean toTerminal = config.getString(ConfigOptions.LOGFILE).isEmpty() && System.console() != null;
        if (toTerminal || config.getBool(ConfigOptions.ALWAYS_SHOW_LOGO)) {
            log.info(ServerLog.RAW, StartupBanner.text(port, pid));
        } else {
            log.info("Running mode=standalone, port={}.", port);
        }
    }

    /** Cinnabar cannot load Redis modules: stop as Redis stops when a module fails to load. */
    private static void refuseModules(StartupDirectives directives) {
        for (String path : directives.modules()) {
            log.warn("Module {} failed to load: Cinnabar does not load Redis modules", path);
            log.warn("Can't load module from {}: server aborting", path);
            System.exit(1);
        }
        if (!directives.moduleConfigs().isEmpty()) {
            log.warn("Module Configuration detected without loadmodule directive or no ApplyConfig call: aborting");
            System.exit(1);
        }
    }
}
