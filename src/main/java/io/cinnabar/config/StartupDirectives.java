package io.cinnabar.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Conf-file directives that are not options: read at startup and acted on by the server's main
 * (a module to load makes it abort, as Redis does when a module cannot be loaded; users and
 * command renames are applied once the command table exists).
 */
public final class StartupDirectives {
    private final List<String> modules = new ArrayList<>();
    private final List<String> moduleConfigs = new ArrayList<>();
    private final List<String[]> users = new ArrayList<>();
    private final List<Rename> renames = new ArrayList<>();

    /**
     * A "rename-command name new-name" line; fatalText turns a reason found when the command
     * table applies it into Redis's fatal config error naming the line.
     */
    public record Rename(String name, String newName, java.util.function.UnaryOperator<String> fatalText) { }

    /** The rename-command lines, in file order. */
    public List<Rename> renames() {
        return Collections.unmodifiableList(renames);
    }

    void rename(Rename r) {
        renames.add(r);
    }

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

    void module(String path) {
        modules.add(path);
    }

    void moduleConfig(String name) {
        moduleConfigs.add(name);
    }
}
