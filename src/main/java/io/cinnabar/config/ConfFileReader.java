package io.cinnabar.config;

import io.cinnabar.util.ArgSplitter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads redis.conf text into a {@link Config} line by line, as Redis's loadServerConfigFromString:
 * options from the table, the directives that are not options (include, rename-command, user,
 * loadmodule, module options, sentinel) and the options Redis 7.0 still tolerates as deprecated.
 */
final class ConfFileReader {
    /** One line of configuration text, for error messages. */
    record Line(int number, String text) {}

    /** Deprecated directives Redis 7.0 skips silently when given exactly one argument. */
    private static final Set<String> DEPRECATED = Set.of("list-max-ziplist-entries", "list-max-ziplist-value",
            "lua-replicate-commands");

    private final Config config;
    /** The first "save" line replaces the default save points, later ones add to them (Redis's rule). */
    private boolean saveSeen;
    /** The line being applied. */
    private Line current;

    ConfFileReader(Config config) {
        this.config = config;
    }

    /** Applies conf-file text; includes resolve against baseDir when not found from the working directory. */
    void read(String text, Path baseDir) throws ConfigLoader.FatalConfigError {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            current = new Line(i + 1, line);
            String err = apply(line, baseDir);
            if (err != null) throw ConfigLoader.fatal(current, err);
        }
    }

    /** Returns null on success or Redis's reason text. */
    private String apply(String line, Path baseDir) throws ConfigLoader.FatalConfigError {
        byte[][] split = ArgSplitter.split(line.getBytes(StandardCharsets.UTF_8));
        if (split == null) return "Unbalanced quotes in configuration line";
        if (split.length == 0) return null;
        String[] words = words(split);
        String name = words[0].toLowerCase(Locale.ROOT);
        String[] args = Arrays.copyOfRange(words, 1, words.length);
        ConfigOption o = Config.option(name);
        if (o != null) return set(o, args);
        if (DEPRECATED.contains(name) && args.length == 1) return null;
        return directive(name, args, baseDir);
    }

    private String set(ConfigOption o, String[] args) {
        if (!o.multiArg && args.length != 1) return "wrong number of arguments";
        // A multi-word option given as one argument ("--save '900 1'") is split as a line is
        // (sdssplitargs: runs of spaces, quotes), where CONFIG SET splits at each single space.
        if (o.multiArg && args.length == 1 && !args[0].isEmpty()) args = words(ArgSplitter.split(args[0].getBytes(StandardCharsets.UTF_8)));
        if (o.multiArg && args.length == 0) args = new String[] {""};
        // A lone empty argument reaches Redis's setter as one empty word, where CONFIG SET's ""
        // splits into none: save takes it as "no save points", the buffer limits count it.
        if (o == ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT && args.length == 1 && args[0].isEmpty()) {
            return "Wrong number of arguments in buffer limit configuration.";
        }
        if (o == ConfigOptions.SAVE) args = savePoints(args);
        try {
            config.set(o, args);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        return null;
    }

    /** Split words as text; none for text with unbalanced quotes, as sdssplitargs's NULL is taken. */
    private static String[] words(byte[][] split) {
        if (split == null) return new String[0];
        String[] words = new String[split.length];
        for (int i = 0; i < split.length; i++) words[i] = new String(split[i], StandardCharsets.UTF_8);
        return words;
    }

    private String[] savePoints(String[] args) {
        boolean reset = args.length == 1 && args[0].isEmpty();
        String current = config.getString(ConfigOptions.SAVE);
        boolean append = saveSeen && !reset && !current.isEmpty();
        saveSeen = true;
        if (!append) return args;
        List<String> all = new ArrayList<>(Arrays.asList(current.split(" ")));
        all.addAll(Arrays.asList(args));
        return all.toArray(new String[0]);
    }

    private String directive(String name, String[] args, Path baseDir) throws ConfigLoader.FatalConfigError {
        StartupDirectives directives = config.directives();
        if (name.equals("include") && args.length == 1) {
            include(args[0], baseDir);
        } else if (name.equals("rename-command") && args.length == 2) {
            Line at = current;
            directives.rename(new StartupDirectives.Rename(args[0], args[1],
                    reason -> ConfigLoader.fatal(at, reason).getMessage()));
        } else if (name.equals("user") && args.length >= 1) {
            directives.user(args);
        } else if (name.equals("loadmodule") && args.length >= 1) {
            directives.module(args[0]);
        } else if (name.indexOf('.') >= 0) {
            if (args.length < 1) return "Module config specified without value";
            directives.moduleConfig(name);
        } else if (name.equals("sentinel")) {
            if (args.length != 0) return "sentinel directive while not in sentinel mode";
        } else {
            return "Bad directive or wrong number of arguments";
        }
        return null;
    }

    private void include(String file, Path baseDir) throws ConfigLoader.FatalConfigError {
        Path p = Path.of(file);
        if (!p.isAbsolute() && baseDir != null && !Files.exists(p)) p = baseDir.resolve(p);
        String text;
        try {
            text = Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigLoader.FatalConfigError("Fatal error, can't open config file '" + file + "': "
                    + Errno.describe(e));
        }
        read(text, p.getParent());
    }
}
