package io.cinnabar.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's first configurator (found through ServiceLoader): Redis-format lines on standard
 * output at notice level, set up in code because parsing an XML configuration costs a noticeable
 * part of start-up, and the Redis test suite starts hundreds of servers. Steps aside when the
 * application brings its own logback configuration, so embedding Cinnabar never overrides it.
 */
public final class RedisLogConfigurator extends ContextAwareBase implements Configurator {
    private static final String[] USER_CONFIG_FILES = {"logback-test.xml", "logback.xml"};

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (userConfigured()) return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        ServerLog.install(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static boolean userConfigured() {
        if (System.getProperty("logback.configurationFile") != null) return true;
        ClassLoader loader = RedisLogConfigurator.class.getClassLoader();
        for (String name : USER_CONFIG_FILES) {
            if (loader.getResource(name) != null) return true;
        }
        return false;
    }
}
