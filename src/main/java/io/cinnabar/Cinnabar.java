package io.cinnabar;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigLoader;
import io.cinnabar.config.ConfigOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar cinnabar.jar [conf-file] [--name value ...]}, started like redis-server. */
public final class Cinnabar {
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
        Logger log = LoggerFactory.getLogger(Cinnabar.class);
        log.info("oO0OoO0OoO0Oo Cinnabar is starting oO0OoO0OoO0Oo");
        log.info("Cinnabar version={}, redis_version={}, java={}, pid={}, just started", Version.CINNABAR_VERSION,
                Version.REDIS_VERSION, System.getProperty("java.version"), ProcessHandle.current().pid());
        if (config.configFile() == null) {
            log.warn("Warning: no config file specified, using the default config. In order to specify a config "
                    + "file use java -jar cinnabar.jar /path/to/cinnabar.conf");
        } else {
            log.info("Configuration loaded from {}", config.configFile());
        }
        CinnabarServer server = new CinnabarServer(config);
        try {
            server.start();
        } catch (IllegalStateException e) {
            log.error("{}", e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (server.isRunning()) {
                log.info("Received SIGTERM scheduling shutdown...");
                server.close();
                log.info("Cinnabar is now ready to exit, bye bye...");
            }
        }, "cinnabar-sigterm"));
        log.info("Cinnabar {} standalone mode, port {}, {} databases, {} io threads", Version.CINNABAR_VERSION,
                server.port(), config.getLong(ConfigOptions.DATABASES), config.getLong(ConfigOptions.IO_THREADS));
        log.info("Server initialized");
        log.info("Ready to accept connections tcp");
        server.awaitTermination();
        log.info("Cinnabar is now ready to exit, bye bye...");
    }
}
