package io.cinnabar.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Tells the operator, once per option, that an option they set is accepted for compatibility
 * with Redis's configuration but does nothing in Cinnabar yet, so a copied redis.conf loads
 * without hiding what is ignored.
 */
public final class InertOptionWarnings {
    private static final Logger log = LoggerFactory.getLogger(InertOptionWarnings.class);

    private InertOptionWarnings() {}

    /**
     * Warns about the inert options given a value other than their default so far, then about
     * each one changed later. Values equal to the default change nothing, so a conf file that
     * spells out every option (like conf/cinnabar.conf) starts quietly.
     */
    public static void follow(Config config) {
        Config defaults = new Config();
        Set<ConfigOption> warned = ConcurrentHashMap.newKeySet();
        Consumer<ConfigOption> warn = o -> {
            if (o.inert && !config.print(o).equals(defaults.print(o)) && warned.add(o)) {
                log.warn("Option '{}' is accepted for compatibility but has no effect in Cinnabar yet", o.name);
            }
        };
        config.onChange(warn);
        for (ConfigOption o : config.given()) warn.accept(o);
    }
}
