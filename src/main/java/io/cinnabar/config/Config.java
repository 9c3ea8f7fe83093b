package io.cinnabar.config;


import io.cinnabar.util.BinaryText;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The live value of every option. Reads are lock-free from any thread (the values array is
 * replaced whole on each change); changes come from startup or CONFIG SET on the keyspace thread.
 */
public final class Config {
    private static final Map<String, ConfigOption> BY_NAME = new HashMap<>();

    static {
        for (ConfigOption o : ConfigOptions.all()) {
            BY_NAME.put(o.name, o);
            for (String a : o.aliases) BY_NAME.put(a, o);
        }
    }

    private volatile Object[] values;
    /** Every option's default: the first values, which a change replaces and never writes into. */
    private final Object[] defaults;
    private final List<Consumer<ConfigOption>> listeners = new CopyOnWriteArrayList<>();
    private final Map<ConfigOption, Supplier<String>> appliers = new java.util.concurrent.ConcurrentHashMap<>();
    /** Options given a value at startup or by CONFIG SET, in the order first given. */
    private final Set<ConfigOption> given = Collections.synchronizedSet(new LinkedHashSet<>());
    private final StartupDirectives directives = new StartupDirectives();
    /** The conf file this config was loaded from (CONFIG REWRITE target), or null. */
    private String configFile;

    public Config() {
        List<ConfigOption> all = ConfigOptions.all();
        Object[] v = new Object[all.size()];
        for (ConfigOption o : all) {
            try {
                v[o.index] = o.parser.parse(o.multiArg ? splitDefault(o.defaultText) : new String[] {o.defaultText});
            } catch (ConfigException e) {
                throw new IllegalStateException("bad default for " + o.name + ": " + e.getMessage());
            }
        }
        values = v;
        defaults = v;
    }

    private static String[] splitDefault(String text) {
        return text.isEmpty() ? new String[0] : text.split(" ");
    }

    public static ConfigOption option(String name) {
        return BY_NAME.get(name.toLowerCase(Locale.ROOT));
    }

    public Object get(ConfigOption o) {
        return values[o.index];
    }

    /** The value o has when nothing sets it. */
    Object defaultValue(ConfigOption o) {
        return defaults[o.index];
    }

    public long getLong(ConfigOption o) {
        return (Long) values[o.index];
    }

    public int getInt(ConfigOption o) {
        return (int) (long) (Long) values[o.index];
    }

    public boolean getBool(ConfigOption o) {
        return (Boolean) values[o.index];
    }

    public String getString(ConfigOption o) {
        return (String) values[o.index];
    }

    /**
     * Where a file option's path points: a relative one is in "dir", Redis's working directory
     * (it chdirs there as it reads the dir line, before it opens any of these files).
     */
    public Path fileInDir(String path) {
        return Path.of(getString(ConfigOptions.DIR)).resolve(path);
    }

    /** The value as CONFIG GET prints it. */
    public String print(ConfigOption o) {
        return o.print(values[o.index]);
    }

    public String configFile() {
        return configFile;
    }

    void configFile(String path) {
        configFile = path;
    }

    /** The directives read at startup that are not options (modules, renamed commands, users). */
    public StartupDirectives directives() {
        return directives;
    }

    /** The options that were given a value (conf file, argv, CONFIG SET), in the order first given. */
    public List<ConfigOption> given() {
        synchronized (given) {
            return new ArrayList<>(given);
        }
    }

    /** Called after every change, with the option that changed. */
    public void onChange(Consumer<ConfigOption> listener) {
        listeners.add(listener);
    }

    /**
     * Registers what CONFIG SET must do for a new value of o to take effect when that can fail
     * (listening on another port): apply returns null, or the reason for the error reply, and the
     * whole CONFIG SET is then undone. Not run at startup, where the option is read when used.
     */
    public void onApply(ConfigOption o, Supplier<String> apply) {
        appliers.put(o, apply);
    }

    /** Sets an option from its words, at startup (immutable options allowed). */
    public void set(ConfigOption o, String[] words) throws ConfigException {
        Object parsed = o.parser.parse(words, values[o.index]);
        Object[] next = values.clone();
        next[o.index] = parsed;
        values = next;
        given.add(o);
        for (Consumer<ConfigOption> l : listeners) l.accept(o);
    }

    /** Programmatic override, e.g. from the embedded builder. */
    public void set(String name, String value) throws ConfigException {
        ConfigOption o = option(name);
        if (o == null) throw new ConfigException("Bad directive or wrong number of arguments");
        set(o, o.multiArg ? ArgSplitterWords.of(value) : new String[] {value});
    }

    /** {@link #configSet(List, boolean, boolean)} while no data set loads. */
    public String configSet(List<byte[]> args, boolean localClient) {
        return configSet(args, localClient, false);
    }

    /**
     * CONFIG SET name value [name value ...]: all or nothing, as Redis 7.0. Returns null on success
     * or the error text for the reply. localClient: the caller came over loopback (for
     * enable-protected-configs local); loading: a data set is loading, when an option denied
     * meanwhile (Redis's DENY_LOADING_CONFIG) fails the command with LOADING.
     */
    public String configSet(List<byte[]> args, boolean localClient, boolean loading) {
        // As Redis's configSetCommand: the first argument that cannot be set names the error, its
        // checks in Redis's order; values are parsed only once every name passed. Redis keeps an
        // alias as an entry of its own: errors name the entry found (the alias, in its declared
        // case), and an option set by its name and by an alias in one call is no duplicate.
        List<String> declared = new ArrayList<>();
        List<ConfigOption> options = new ArrayList<>();
        List<String[]> given = new ArrayList<>();
        for (int i = 0; i + 1 < args.size(); i += 2) {
            String name = BinaryText.decode(args.get(i));
            ConfigOption o = option(name);
            if (o == null) {
                // Quoted with %s: up to a NUL byte.
                return "ERR Unknown option or number of arguments for CONFIG SET - '" + BinaryText.decodeCString(args.get(i)) + "'";
            }
            if (!o.mutable) {
                return setFailed(name, "can't set immutable config");
            }
            if (o.guarded && !allowsProtectedAction(ConfigOptions.ENABLE_PROTECTED_CONFIGS, localClient)) {
                return setFailed(name, "can't set protected config");
            }
            if (loading && o.deniedWhileLoading) return "LOADING Redis is loading the dataset in memory";
            String entry = name.toLowerCase(Locale.ROOT);
            if (!o.aliases.contains(entry)) entry = o.name;
            if (declared.contains(entry)) {
                return setFailed(name, "duplicate parameter");
            }
            String value = new String(args.get(i + 1), StandardCharsets.UTF_8);
            declared.add(entry);
            options.add(o);
            given.add(o.multiArg ? ArgSplitterWords.of(value) : new String[] {value});
        }
        Object[] next = values.clone();
        Map<ConfigOption, String> changes = new LinkedHashMap<>();
        for (int i = 0; i < options.size(); i++) {
            ConfigOption o = options.get(i);
            try {
                next[o.index] = o.parser.parse(given.get(i), next[o.index]);
            } catch (ConfigException e) {
                return setFailed(declared.get(i), e.getMessage());
            }
            changes.putIfAbsent(o, declared.get(i));
        }
        Object[] before = values;
        values = next;
        String failure = apply(changes, before, next);
        if (failure != null) return failure;
        this.given.addAll(changes.keySet());
        for (ConfigOption o : changes.keySet()) {
            for (Consumer<ConfigOption> l : listeners) l.accept(o);
        }
        return null;
    }

    /** Redis's CONFIG SET error naming the argument it failed on. */
    private static String setFailed(String name, String why) {
        return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
    }

    /**
     * Redis's configSetCommand apply step: each apply function of an option whose value changed
     * runs once; when one fails the old values come back and those that ran run again on them.
     */
    private String apply(Map<ConfigOption, String> changed, Object[] before, Object[] after) {
        List<Supplier<String>> ran = new ArrayList<>();
        for (ConfigOption o : changed.keySet()) {
            Supplier<String> apply = appliers.get(o);
            if (apply == null || java.util.Objects.equals(before[o.index], after[o.index]) || ran.contains(apply)) continue;
            ran.add(apply);
            String error = apply.get();
            if (error == null) continue;
            values = before;
            for (Supplier<String> undo : ran) undo.get();
            return setFailed(changed.get(o), error);
        }
        return null;
    }

    /** Every option's value now, to come back to with {@link #restore} (CINNABAR RESET). */
    public Object[] checkpoint() {
        return values;
    }

    /**
     * Sets back the options whose value differs from the checkpoint's, as one CONFIG SET does
     * (so what applies a change runs); null, or the error. Keyspace thread.
     */
    public String restore(Object[] checkpoint) {
        Object[] now = values;
        if (now == checkpoint) return null;
        List<byte[]> pairs = new ArrayList<>();
        for (ConfigOption o : ConfigOptions.all()) {
            if (!o.mutable || java.util.Objects.equals(now[o.index], checkpoint[o.index])) continue;
            pairs.add(o.name.getBytes(StandardCharsets.UTF_8));
            pairs.add(o.print(checkpoint[o.index]).getBytes(StandardCharsets.UTF_8));
        }
        return pairs.isEmpty() ? null : configSet(pairs, true);
    }

    /** Redis's allowProtectedAction: an enable-* option of "yes", or "local" and a loopback client. */
    public boolean allowsProtectedAction(ConfigOption setting, boolean localClient) {
        String v = getString(setting);
        return v.equals("yes") || (v.equals("local") && localClient);
    }

    /** Options whose name or alias matches any of the glob patterns (names without [*? exactly, in any case), in declaration order. */
    public List<String[]> matching(List<String> patterns, java.util.function.BiPredicate<String, String> glob) {
        boolean[] exact = new boolean[patterns.size()];
        boolean allExact = true;
        for (int i = 0; i < exact.length; i++) {
            exact[i] = patterns.get(i).chars().noneMatch(ch -> ch == '*' || ch == '?' || ch == '[' || ch > 0x7F);
            allExact &= exact[i];
        }
        if (allExact) return named(patterns);
        List<String[]> out = new ArrayList<>();
        Map<String, Boolean> seen = new HashMap<>();
        for (ConfigOption o : ConfigOptions.all()) {
            List<String> names = new ArrayList<>();
            names.add(o.name);
            names.addAll(o.aliases);
            for (String n : names) {
                if (seen.containsKey(n)) continue;
                for (int i = 0; i < exact.length; i++) {
                    String p = patterns.get(i);
                    if (exact[i] ? p.equalsIgnoreCase(n) : !o.hidden && glob.test(p, n)) {
                        seen.put(n, true);
                        // A name asked for exactly comes back as it was spelt (Redis's reply keys are the arguments).
                        out.add(new String[] {exact[i] ? p : n, print(o)});
                        break;
                    }
                }
            }
        }
        return out;
    }

    /**
     * {@link #matching} when every pattern is a plain (ASCII) name: looked up, not compared with
     * every option's names. The same pairs in the same order: by option, then name before aliases.
     */
    private List<String[]> named(List<String> names) {
        record Found(int rank, String[] pair) {}
        List<Found> found = new ArrayList<>(names.size());
        Set<String> seen = new HashSet<>();
        for (String p : names) {
            String n = p.toLowerCase(Locale.ROOT);
            ConfigOption o = BY_NAME.get(n);
            if (o == null || !seen.add(n)) continue;
            int rank = o.index * 64 + (n.equals(o.name) ? 0 : 1 + o.aliases.indexOf(n));
            found.add(new Found(rank, new String[] {p, print(o)}));
        }
        if (found.size() > 1) found.sort(Comparator.comparingInt(Found::rank));
        List<String[]> out = new ArrayList<>(found.size());
        for (Found f : found) out.add(f.pair);
        return out;
    }

    /**
     * Splits a CONFIG SET value of a multi-word option ("3600 1 300 100") into its words at each
     * single space, as Redis's sdssplitlen does (so " 1" is an empty word and "1"). "" stays one
     * empty word, which the options' parsers take as "none".
     */
    static final class ArgSplitterWords {
        private ArgSplitterWords() {}

        static String[] of(String value) {
            if (value.isEmpty()) return new String[] {""};
            return value.split(" ", -1);
        }
    }
}
