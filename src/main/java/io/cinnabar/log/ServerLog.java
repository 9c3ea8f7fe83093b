package io.cinnabar.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.helpers.BasicMarkerFactory;

/**
 * The server log as Redis keeps it: "loglevel" picks the verbosity, "logfile" empty means standard
 * output and a path means appending to that file. Code logs through slf4j; this class is the one
 * place that knows the backend is logback. Redis verbosities map onto slf4j levels as
 * debug = TRACE, verbose = DEBUG, notice = INFO, warning = WARN (ERROR also shows as warning).
 */
public final class ServerLog {
    /** Marks an event to be written verbatim, without the pid/time/level prefix. */
    // Not MarkerFactory: this class loads while slf4j initialises, and when that initialisation
    // began in MarkerFactory's own static initialiser (commons-logging's, under Spring) its
    // factory is still null: the NPE left slf4j half-initialised and Spring Boot waiting forever.
    public static final Marker RAW = new BasicMarkerFactory().getDetachedMarker("RAW");

    private static final String APPENDER = "redis";

    private ServerLog() {}

    /** The default set-up, before any configuration is read: notice level on standard output. */
    static void install(LoggerContext context) {
        LogbackWarnings.install(context);
        use(context, new ConsoleAppender<>());
        context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
        // Netty's own debug output is about Netty, not about the server: keep it out of "debug".
        context.getLogger("io.netty").setLevel(Level.WARN);
    }

    /**
     * Applies "loglevel" and "logfile" for a server started from the command line, and follows
     * CONFIG SET loglevel afterwards. Does nothing when the application configured logging itself.
     */
    public static void apply(Config config) {
        LoggerContext context = ownContext();
        if (context == null) return;
        String logfile = config.getString(ConfigOptions.LOGFILE);
        if (!logfile.isEmpty()) use(context, file(config.fileInDir(logfile).toString()));
        verbosity(context, config.getString(ConfigOptions.LOGLEVEL));
        config.onChange(o -> {
            if (o == ConfigOptions.LOGLEVEL) verbosity(context, config.getString(ConfigOptions.LOGLEVEL));
        });
    }

    /**
     * Runs work with the server's log silenced (the standalone start's JIT warm-up: its private
     * server's lines are not the operator's), then puts the level back. Just runs work when the
     * application configured logging itself.
     */
    public static void quietWhile(Runnable work) {
        LoggerContext context = ownContext();
        if (context == null) {
            work.run();
            return;
        }
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        Level level = root.getLevel();
        root.setLevel(Level.OFF);
        try {
            work.run();
        } finally {
            root.setLevel(level);
        }
    }

    private static LoggerContext ownContext() {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext)) return null;
        LoggerContext context = (LoggerContext) factory;
        return context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(APPENDER) == null ? null : context;
    }

    private static void verbosity(LoggerContext context, String loglevel) {
        Level level;
        switch (loglevel) {
            case "debug": level = Level.TRACE; break;
            case "verbose": level = Level.DEBUG; break;
            case "warning": level = Level.WARN; break;
            default: level = Level.INFO;
        }
        context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level);
    }

    private static void use(LoggerContext context, OutputStreamAppender<ILoggingEvent> appender) {
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        RedisLogLayout layout = new RedisLogLayout();
        layout.setContext(context);
        layout.start();
        encoder.setLayout(layout);
        encoder.start();
        appender.setContext(context);
        appender.setName(APPENDER);
        appender.setEncoder(encoder);
        appender.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
    }

    private static OutputStreamAppender<ILoggingEvent> file(String path) {
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setFile(path);
        appender.setAppend(true);
        return appender;
    }
}
