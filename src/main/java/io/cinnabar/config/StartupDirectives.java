package io.cinnabar.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Conf-file directives that are not options: read at startup and acted on by the server's main
 * (a module to load makes it abort, as Redis does when a module cannot be loaded; the rest are
 * warned about because Cinnabar does not implement them yet).
 */
public final class StartupDirectives {
    private final List<String> modules = new ArrayList<>();
    private final List<String> moduleConfigs = new ArrayList<>();
    private final List<String> ignored = new ArrayList<>();
    private final List<String[]> users = new ArrayList<>();

    /** "user name rule..." lines, each as {name, rules...}, for the ACL to load once the commands are known. */
    public List<String[]> users() {
        return Collections.unmodifiableList(users);
    }

    void user(String[] nameAndRules) {
        users.add(nameAndRules);
    }

    /** Paths of "loadmodule" directives. */
    public List<String> modules() {
        return Collections.unmodifiableList(modules);
    }

    /** Names of module options ("name.option value"). */
    public List<String> moduleConfigs() {
        return Collections.unmodifiableList(moduleConfigs);
    }

    /** Directive names accepted without effect ("rename-command", "user"), once each. */
    public List<String> ignored() {
        return Collections.unmodifiableList(ignored);
    }

    void module(String path) {
        modules.add(path);
    }

    void moduleConfig(String name) {
        moduleConfigs.add(name);
    }

    void ignore(String directive) {
        if (!ignored.contains(directive)) ignored.add(directive);
    }
}
