package io.cinnabar.config;

import io.cinnabar.util.ArgSplitter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
                        + Errno.describe(e));
            }
            config.configFile(Path.of(configFile).toAbsolutePath().toString());
        }
        new ConfFileReader(config).read(text + "\n" + options, configFile == null ? null : Path.of(configFile).getParent());
        checkLogfile(config);
        return config;
    }

    /** As Redis: a log file that cannot be opened stops start-up, rather than losing the log. */
    private static void checkLogfile(Config config) throws FatalConfigError {
        String logfile = config.getString(ConfigOptions.LOGFILE);
        if (logfile.isEmpty()) return;
        try (var out = Files.newOutputStream(config.fileInDir(logfile), StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            out.flush();
        } catch (IOException e) {
            throw fatal(null, "Can't open the log file: " + Errno.describe(e));
        }
    }

    /** Redis's fatal config error text; line is null when the error is not tied to a line. */
    static FatalConfigError fatal(ConfFileReader.Line line, String reason) {
        StringBuilder text = new StringBuilder("\n*** FATAL CONFIG FILE ERROR (" + VERSION_LABEL + ") ***\n");
        if (line != null) {
            text.append("Reading the configuration file, at line ").append(line.number()).append('\n')
                    .append(">>> '").append(line.text()).append("'\n");
        }
        return new FatalConfigError(text.append(reason).toString());
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
