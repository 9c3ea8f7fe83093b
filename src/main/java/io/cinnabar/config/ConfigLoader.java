package io.cinnabar.config;

import io.cinnabar.util.ArgSplitter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads a {@link Config} the way redis-server does: an optional conf file (redis.conf grammar,
 * with include) followed by command-line "--name value" overrides, which are parsed as extra
 * lines after the file's.
 */
public final class ConfigLoader {
    /** A fatal error, already formatted as Redis prints it. */
    public static final class FatalConfigError extends Exception {
        public FatalConfigError(String text) {
            super(text);
        }
    }

    private static final String VERSION_LABEL = "Redis 7.0.15";

    private ConfigLoader() {}

    /** Parses redis-server style argv: [conf-file] [--name value ...]. */
    public static Config fromArgs(String[] argv) throws FatalConfigError {
        int j = 0;
        String configFile = null;
        if (argv.length > 0 && !argv[0].startsWith("-")) {
            configFile = argv[0];
            j = 1;
        }
        StringBuilder options = new StringBuilder();
        boolean handledLastArg = true;
        for (; j < argv.length; j++) {
            String a = argv[j];
            if (handledLastArg && a.startsWith("--")) {
                if (options.length() > 0) options.append('\n');
                options.append(a.substring(2)).append(' ');
                byte[][] words = ArgSplitter.split(a.getBytes(StandardCharsets.UTF_8));
                if (words != null && words.length == 1) {
                    handledLastArg = false;
                    boolean isSave = a.equalsIgnoreCase("--save");
                    if (isSave && (j == argv.length - 1 || argv[j + 1].startsWith("--"))) {
                        options.append("\"\"");
                        handledLastArg = true;
                    }
                } else {
                    handledLastArg = true;
                }
            } else {
                options.append(quote(a)).append(' ');
                handledLastArg = true;
            }
        }
        Config config = new Config();
        String text = "";
        if (configFile != null) {
            try {
                text = Files.readString(Path.of(configFile), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new FatalConfigError("Fatal error, can't open config file '" + configFile + "': "
                        + (e instanceof java.nio.file.NoSuchFileException ? "No such file or directory" : e.getMessage()));
            }
            config.configFile(Path.of(configFile).toAbsolutePath().toString());
        }
        load(config, text + "\n" + options, configFile == null ? null : Path.of(configFile).getParent());
        return config;
    }

    /** Applies conf-file text to config; includes resolve against baseDir. */
    public static void load(Config config, String text, Path baseDir) throws FatalConfigError {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String err = applyLine(config, line, baseDir);
            if (err != null) {
                throw new FatalConfigError("\n*** FATAL CONFIG FILE ERROR (" + VERSION_LABEL + ") ***\n"
                        + "Reading the configuration file, at line " + (i + 1) + "\n"
                        + ">>> '" + line + "'\n" + err);
            }
        }
    }

    /** Returns null on success or Redis's reason text. */
    private static String applyLine(Config config, String line, Path baseDir) throws FatalConfigError {
        byte[][] split = ArgSplitter.split(line.getBytes(StandardCharsets.UTF_8));
        if (split == null) return "Unbalanced quotes in configuration line";
        if (split.length == 0) return null;
        List<String> words = new ArrayList<>();
        for (byte[] w : split) words.add(new String(w, StandardCharsets.UTF_8));
        String name = words.get(0).toLowerCase(Locale.ROOT);
        if (name.equals("include") && words.size() == 2) {
            Path p = Path.of(words.get(1));
            if (!p.isAbsolute() && baseDir != null && !Files.exists(p)) p = baseDir.resolve(p);
            try {
                load(config, Files.readString(p, StandardCharsets.UTF_8), p.getParent());
            } catch (IOException e) {
                throw new FatalConfigError("Fatal error, can't open config file '" + words.get(1)
                        + "': No such file or directory");
            }
            return null;
        }
        ConfigOption o = Config.option(name);
        if (o == null) return "Bad directive or wrong number of arguments";
        String[] values = words.subList(1, words.size()).toArray(new String[0]);
        if (!o.multiArg && values.length != 1) return "wrong number of arguments";
        if (o.multiArg && values.length == 0) values = new String[] {""};
        try {
            config.set(o, values);
        } catch (ConfigException e) {
            return e.getMessage();
        }
        return null;
    }

    /** sdscatrepr: quotes an argv value so the config parser reads it back verbatim. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\\': sb.append("\\\\"); break;
                case '"': sb.append("\\\""); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 32 || c == 127) sb.append(String.format("\\x%02x", (int) c));
                    else sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
