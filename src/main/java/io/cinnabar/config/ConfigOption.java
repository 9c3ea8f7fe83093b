package io.cinnabar.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One configuration option, declared once: name, aliases, how its value is parsed and printed,
 * bounds, default and whether CONFIG SET may change it. The same declaration serves the conf-file
 * parser, argv overrides, CONFIG GET/SET and CONFIG REWRITE.
 */
public final class ConfigOption {
    /** Parses the words after the option name into a value, or throws with Redis's reason. */
    @FunctionalInterface
    public interface Parser {
        Object parse(String[] words) throws ConfigException;
    }

    /** Prints a value as CONFIG GET shows it. */
    @FunctionalInterface
    public interface Printer {
        String print(Object value);
    }

    final String name;
    final List<String> aliases;
    final Parser parser;
    final Printer printer;
    final String defaultText;
    final boolean mutable;
    final boolean multiArg;
    int index = -1;

    ConfigOption(String name, List<String> aliases, Parser parser, Printer printer, String defaultText,
                 boolean mutable, boolean multiArg) {
        this.name = name;
        this.aliases = aliases;
        this.parser = parser;
        this.printer = printer;
        this.defaultText = defaultText;
        this.mutable = mutable;
        this.multiArg = multiArg;
    }

    public String name() {
        return name;
    }

    public List<String> aliases() {
        return aliases;
    }

    public boolean mutable() {
        return mutable;
    }

    public String defaultText() {
        return defaultText;
    }

    String print(Object value) {
        return printer.print(value);
    }

    // ---- builders for the kinds of option Redis has ----

    static Builder bool(String name, boolean def) {
        return new Builder(name, words -> {
            String w = single(words).toLowerCase(Locale.ROOT);
            if (w.equals("yes")) return Boolean.TRUE;
            if (w.equals("no")) return Boolean.FALSE;
            throw new ConfigException("argument must be 'yes' or 'no'");
        }, v -> ((Boolean) v) ? "yes" : "no", def ? "yes" : "no");
    }

    static Builder integer(String name, long min, long max, long def) {
        return new Builder(name, words -> {
            String w = single(words);
            long v;
            try {
                v = Long.parseLong(w);
            } catch (NumberFormatException e) {
                throw new ConfigException("argument couldn't be parsed into an integer");
            }
            return checkRange(v, min, max);
        }, String::valueOf, String.valueOf(def));
    }

    /** A byte count accepting Redis's units (1k, 1kb, 1m, 1mb, 1g, 1gb). */
    static Builder memory(String name, long min, long max, long def) {
        return new Builder(name, words -> {
            long v = MemoryUnits.parse(single(words));
            if (v == Long.MIN_VALUE) throw new ConfigException("argument must be a memory value");
            return checkRange(v, min, max);
        }, String::valueOf, String.valueOf(def));
    }

    static Builder string(String name, String def) {
        return new Builder(name, ConfigOption::single, v -> (String) v, def);
    }

    static Builder enumeration(String name, String def, String... allowed) {
        return new Builder(name, words -> {
            String w = single(words).toLowerCase(Locale.ROOT);
            for (String a : allowed) {
                if (a.equals(w)) return a;
            }
            throw new ConfigException("argument(s) must be one of the following: " + String.join(", ", allowed));
        }, v -> (String) v, def);
    }

    static Builder custom(String name, Parser parser, Printer printer, String def) {
        return new Builder(name, parser, printer, def);
    }

    static String single(String[] words) throws ConfigException {
        if (words.length != 1) throw new ConfigException("wrong number of arguments");
        return words[0];
    }

    private static Long checkRange(long v, long min, long max) throws ConfigException {
        if (v < min || v > max) {
            throw new ConfigException("argument must be between " + min + " and " + max + " inclusive");
        }
        return v;
    }

    static final class Builder {
        private final String name;
        private final Parser parser;
        private final Printer printer;
        private final String defaultText;
        private String[] aliases = new String[0];
        private boolean mutable = true;
        private boolean multiArg;

        Builder(String name, Parser parser, Printer printer, String defaultText) {
            this.name = name;
            this.parser = parser;
            this.printer = printer;
            this.defaultText = defaultText;
        }

        Builder alias(String... names) {
            aliases = names;
            return this;
        }

        Builder immutable() {
            mutable = false;
            return this;
        }

        /** The value is several words (e.g. "save 3600 1 300 100"). */
        Builder multiArg() {
            multiArg = true;
            return this;
        }

        ConfigOption build() {
            return new ConfigOption(name, Arrays.asList(aliases), parser, printer, defaultText, mutable, multiArg);
        }
    }
}
