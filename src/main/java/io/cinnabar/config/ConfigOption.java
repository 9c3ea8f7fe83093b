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

        /** The value words set when the option holds current (null at first): only a few options build on it. */
        default Object parse(String[] words, Object current) throws ConfigException {
            return parse(words);
        }
    }

    /** Prints a value as CONFIG GET shows it. */
    @FunctionalInterface
    public interface Printer {
        String print(Object value);
    }

    /**
     * How CONFIG REWRITE writes an option (the rewrite function of Redis's config type): its
     * lines, given to out with whether the file must have them even where it had none.
     */
    @FunctionalInterface
    interface Rewrite {
        void write(ConfigOption o, Object value, Object defaultValue, ConfigRewriter out);
    }

    /** Numbers, yes/no, enumerations, lists of them: the value as it is, written where it is not the default. */
    static final Rewrite AS_PRINTED = (o, value, def, out) ->
            out.line(o.name, o.name + " " + o.printForFile(value), !o.isDefault(value, def));

    /** Redis's string options: the value in sdscatrepr's quotes, written where it is not the default. */
    static final Rewrite QUOTED = (o, value, def, out) ->
            out.line(o.name, o.name + " " + ConfigRewriter.quote(o.print(value)), !o.isDefault(value, def));

    /**
     * Redis's EMPTY_STRING_IS_NULL strings, whose default is no value: "" gets no line (the
     * file's are dropped), any other value is written.
     */
    static final Rewrite QUOTED_UNLESS_EMPTY = (o, value, def, out) -> {
        String text = o.print(value);
        if (text.isEmpty()) out.noLine(o.name);
        else out.line(o.name, o.name + " " + ConfigRewriter.quote(text), true);
    };

    /**
     * Cinnabar's own options, which Redis does not know: a line only for a value other than the
     * default, DEBUG CONFIG-REWRITE-FORCE-ALL included, so that redis-server can read the file.
     */
    static final Rewrite UNLESS_DEFAULT = (o, value, def, out) -> {
        if (o.isDefault(value, def)) out.noLine(o.name);
        else AS_PRINTED.write(o, value, def, out);
    };

    final String name;
    final List<String> aliases;
    final Parser parser;
    final Printer printer;
    /** How CONFIG REWRITE writes the value: as printer, but memory options in units ("64mb"). */
    final Printer filePrinter;
    final String defaultText;
    final boolean mutable;
    final boolean multiArg;
    final boolean hidden;
    final boolean inert;
    /** Redis's PROTECTED_CONFIG: CONFIG SET may change it only as enable-protected-configs allows. */
    final boolean guarded;
    /** Redis's DENY_LOADING_CONFIG: CONFIG SET refuses it while the data set loads. */
    final boolean deniedWhileLoading;
    final Rewrite rewrite;
    int index = -1;

    ConfigOption(Builder b) {
        this.name = b.name;
        this.aliases = Arrays.asList(b.aliases);
        this.parser = b.parser;
        this.printer = b.printer;
        this.filePrinter = b.filePrinter == null ? b.printer : b.filePrinter;
        this.defaultText = b.defaultText;
        this.mutable = b.mutable;
        this.multiArg = b.multiArg;
        this.hidden = b.hidden;
        this.inert = b.inert;
        this.guarded = b.guarded;
        this.deniedWhileLoading = b.deniedWhileLoading;
        this.rewrite = b.rewrite;
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

    /** Accepted for compatibility with Redis's configuration, but Cinnabar has no such behaviour yet. */
    public boolean inert() {
        return inert;
    }

    String print(Object value) {
        return printer.print(value);
    }

    String printForFile(Object value) {
        return filePrinter.print(value);
    }

    boolean isDefault(Object value, Object defaultValue) {
        return print(value).equals(print(defaultValue));
    }

    // ---- builders for the kinds of option Redis has ----

    static Builder bool(String name, boolean def) {
        return new Builder(name, words -> {
            String w = cString(words).toLowerCase(Locale.ROOT);
            if (w.equals("yes")) return Boolean.TRUE;
            if (w.equals("no")) return Boolean.FALSE;
            throw new ConfigException("argument must be 'yes' or 'no'");
        }, v -> ((Boolean) v) ? "yes" : "no", def ? "yes" : "no");
    }

    static Builder integer(String name, long min, long max, long def) {
        return new Builder(name, words -> parseInteger(single(words), min, max), String::valueOf, String.valueOf(def));
    }

    static long parseInteger(String word, long min, long max) throws ConfigException {
        // Redis's string2ll: no '+', no leading zeros, no "-0"
        long[] v = new long[1];
        if (!io.cinnabar.util.Numbers.parseLong(word.getBytes(java.nio.charset.StandardCharsets.UTF_8), v)) {
            throw new ConfigException("argument couldn't be parsed into an integer");
        }
        return checkRange(v[0], min, max);
    }

    /** An integer written in octal, such as a file mode ("unixsocketperm 700"). */
    static Builder octal(String name, long min, long max, long def) {
        return new Builder(name, words -> {
            // strtoll base 8, overflow checked (Redis looks at errno here)
            long v = Strtoll.parse(single(words), 8).orElseThrow(
                    () -> new ConfigException("argument couldn't be parsed as an octal number"));
            if (v < min || v > max) {
                throw new ConfigException("argument must be between " + Long.toOctalString(min) + " and "
                        + Long.toOctalString(max) + " inclusive");
            }
            return v;
        }, v -> Long.toOctalString((Long) v), Long.toOctalString(def));
    }

    /**
     * A byte count or a percentage ("10%", kept as -10 as Redis does); percentages may not exceed
     * -min.
     */
    static Builder memoryOrPercent(String name, long min, long max, long def) {
        return new Builder(name, words -> {
            String w = single(words);
            long v;
            try {
                // memtoull's bits read as signed, as Redis's ssize_t option does: past 2^63 a "percentage"
                v = MemoryUnits.parse(w);
            } catch (NumberFormatException notMemory) {
                v = Long.MIN_VALUE;
                try {
                    if (w.length() > 1 && w.endsWith("%")) v = -parseInteger(w.substring(0, w.length() - 1), 0, Long.MAX_VALUE);
                } catch (ConfigException e) {
                    v = Long.MIN_VALUE;
                }
                if (v > 0 || v == Long.MIN_VALUE) throw new ConfigException("argument must be a memory or percent value");
            }
            if (v < 0 && v < min) throw new ConfigException("percentage argument must be less or equal to " + -min);
            return v < 0 ? v : checkRange(v, 0, max);
        }, v -> (Long) v < 0 ? -(Long) v + "%" : String.valueOf(v), String.valueOf(def))
                .writtenInFileAs(v -> (Long) v < 0 ? -(Long) v + "%" : MemoryUnits.format((Long) v));
    }

    /** A byte count accepting Redis's units (1k, 1kb, 1m, 1mb, 1g, 1gb). */
    static Builder memory(String name, long min, long max, long def) {
        return new Builder(name, words -> memoryInRange(words, min, max), String::valueOf, String.valueOf(def))
                .writtenInFileAs(MEMORY_IN_FILE);
    }

    static long memoryInRange(String[] words, long min, long max) throws ConfigException {
        return checkRange(memoryValue(single(words)), min, max);
    }

    /** A byte count up to 2^64-1 (Redis's unsigned long long options: maxmemory), shown unsigned. */
    static Builder unsignedMemory(String name, long def) {
        return new Builder(name, words -> memoryValue(single(words)), v -> Long.toUnsignedString((Long) v), String.valueOf(def))
                .writtenInFileAs(MEMORY_IN_FILE);
    }

    private static long memoryValue(String w) throws ConfigException {
        try {
            return MemoryUnits.parse(w);
        } catch (NumberFormatException e) {
            throw new ConfigException("argument must be a memory value");
        }
    }

    /**
     * Redis's string option with a default (ALLOW_EMPTY_STRING): "" is a value like any other.
     * Kept as a C string, up to a NUL byte, as Redis's zstrdup copies it.
     */
    static Builder string(String name, String def) {
        return new Builder(name, ConfigOption::cString, AS_TEXT, def).rewrittenAs(QUOTED);
    }

    /** Redis's string option without a default (EMPTY_STRING_IS_NULL): "" is no value. A C string too. */
    static Builder optionalString(String name) {
        return new Builder(name, ConfigOption::cString, AS_TEXT, "").rewrittenAs(QUOTED_UNLESS_EMPTY);
    }

    /** As {@link #optionalString}, but binary-safe: Redis's sds options (passwords). */
    static Builder optionalBinaryString(String name) {
        return new Builder(name, ConfigOption::single, AS_TEXT, "").rewrittenAs(QUOTED_UNLESS_EMPTY);
    }

    static Builder enumeration(String name, String def, String... allowed) {
        return new Builder(name, words -> {
            String w = cString(words).toLowerCase(Locale.ROOT);
            for (String a : allowed) {
                if (a.equals(w)) return a;
            }
            throw new ConfigException("argument(s) must be one of the following: " + String.join(", ", allowed));
        }, AS_TEXT, def);
    }

    /**
     * An enumeration where a name is a synonym of an earlier one (given as "synonym=name"): stored,
     * so shown by CONFIG GET, as the first name of its value, as Redis's enum tables print it.
     */
    static Builder enumerationWithSynonyms(String name, String def, String... allowed) {
        String[] names = new String[allowed.length];
        for (int i = 0; i < allowed.length; i++) names[i] = allowed[i].split("=")[0];
        return new Builder(name, words -> {
            String w = cString(words).toLowerCase(Locale.ROOT);
            for (String a : allowed) {
                String[] parts = a.split("=");
                if (parts[0].equals(w)) return parts[parts.length - 1];
            }
            throw new ConfigException("argument(s) must be one of the following: " + String.join(", ", names));
        }, AS_TEXT, def);
    }

    static Builder custom(String name, Parser parser, Printer printer, String def) {
        return new Builder(name, parser, printer, def);
    }

    /** An option whose value is the text its parser makes of the words, printed as it is. */
    static Builder text(String name, Parser parser, String def) {
        return new Builder(name, parser, AS_TEXT, def);
    }

    /** A byte count in a config file: the largest unit that divides it. */
    static final Printer MEMORY_IN_FILE = v -> MemoryUnits.format((Long) v);

    /** One printer for every text option: each lambda written out is a class the JVM makes at start-up. */
    private static final Printer AS_TEXT = v -> (String) v;

    static String single(String[] words) throws ConfigException {
        if (words.length != 1) throw new ConfigException("wrong number of arguments");
        return words[0];
    }

    /**
     * The single word up to a NUL, as C's string functions read it: Redis matches yes/no and enum
     * names with strcasecmp and reads event classes up to the NUL ("yes\0x" is yes).
     */
    static String cString(String[] words) throws ConfigException {
        String w = single(words);
        int nul = w.indexOf('\0');
        return nul < 0 ? w : w.substring(0, nul);
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
        private Printer filePrinter;
        private final String defaultText;
        private String[] aliases = new String[0];
        private boolean mutable = true;
        private boolean multiArg;
        private boolean hidden;
        private boolean inert;
        private boolean guarded;
        private boolean deniedWhileLoading;
        private Rewrite rewrite = AS_PRINTED;

        Builder(String name, Parser parser, Printer printer, String defaultText) {
            this.name = name;
            this.parser = parser;
            this.printer = printer;
            this.defaultText = defaultText;
        }

        /** CONFIG REWRITE writes the value with printer instead of CONFIG GET's. */
        Builder writtenInFileAs(Printer printer) {
            filePrinter = printer;
            return this;
        }

        /** CONFIG REWRITE writes the option's lines with rewrite instead of "name value". */
        Builder rewrittenAs(Rewrite rewrite) {
            this.rewrite = rewrite;
            return this;
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

        /** Left out of CONFIG GET patterns; only its exact name shows it (Redis's testing knobs). */
        Builder hidden() {
            hidden = true;
            return this;
        }

        /** Accepted so Redis configurations load, but without effect in Cinnabar yet: warned about once. */
        Builder inert() {
            inert = true;
            return this;
        }

        /** Redis's PROTECTED_CONFIG (dir, dbfilename): see enable-protected-configs. */
        Builder guarded() {
            guarded = true;
            return this;
        }

        /** Redis's DENY_LOADING_CONFIG (dir, appendonly): CONFIG SET answers LOADING while loading. */
        Builder deniedWhileLoading() {
            deniedWhileLoading = true;
            return this;
        }

        ConfigOption build() {
            return new ConfigOption(this);
        }
    }
}
