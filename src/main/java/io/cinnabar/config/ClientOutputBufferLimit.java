package io.cinnabar.config;

import java.util.Locale;

/**
 * The "client-output-buffer-limit" option: class hard soft seconds, repeated. As Redis's
 * updateClientOutputBufferLimit, the classes named change and the others keep their current
 * limits (so the three lines of a redis.conf add up, and CONFIG SET "" changes nothing).
 * The value is kept parsed ({@link Limits}): every connection reads it for every reply written,
 * and parsing it again for each new connection's first reply was 3.5% of the server's CPU samples
 * when clients connect per request (redis-benchmark -k 0).
 */
public final class ClientOutputBufferLimit implements ConfigOption.Parser, ConfigOption.Printer {
    static final ClientOutputBufferLimit PARSER = new ClientOutputBufferLimit();
    static final String DEFAULT = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
    /** The classes in Redis's order, as CONFIG GET names them; indexes of {@link Limits}. */
    private static final String[] ORDER = {"normal", "slave", "pubsub"};
    private static final Limits NONE = new Limits(new long[ORDER.length][3]);

    /** Hard limit, soft limit and soft seconds of each client class; 0 disables a limit. */
    public record Limits(long[][] byClass) {
        public static final int NORMAL = 0, REPLICA = 1, PUBSUB = 2;

        public long hard(int clientClass) {
            return byClass[clientClass][0];
        }

        public long soft(int clientClass) {
            return byClass[clientClass][1];
        }

        public long softSeconds(int clientClass) {
            return byClass[clientClass][2];
        }
    }

    private ClientOutputBufferLimit() {}

    /**
     * The hard limit a client of clientClass is held to (0: none). As Redis's
     * checkClientOutputBufferLimits, a replica's is at least repl-backlog-size: the stream a
     * partial resynchronisation sends may be that long, and the backlog holds it anyway.
     */
    public static long hardLimit(Config config, int clientClass) {
        long hard = ((Limits) config.get(ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT)).hard(clientClass);
        if (clientClass != Limits.REPLICA || hard == 0) return hard;
        return Math.max(hard, config.getLong(Config.option("repl-backlog-size")));
    }

    @Override
    public Object parse(String[] words) throws ConfigException {
        return parse(words, null);
    }

    @Override
    public Object parse(String[] words, Object current) throws ConfigException {
        if (words.length == 1) words = words[0].trim().isEmpty() ? new String[0] : words[0].trim().split("\\s+");
        if (words.length % 4 != 0) throw new ConfigException("Wrong number of arguments in buffer limit configuration.");
        Limits base = current != null ? (Limits) current : (Limits) parse(DEFAULT.split(" "), NONE);
        long[][] byClass = base.byClass().clone(); // the classes named get new arrays below
        for (int i = 0; i < words.length; i += 4) {
            String cls = words[i].toLowerCase(Locale.ROOT);
            if (cls.equals("replica")) cls = "slave";
            int slot = -1;
            for (int k = 0; k < ORDER.length; k++) if (ORDER[k].equals(cls)) slot = k;
            if (slot < 0) throw new ConfigException("Invalid client class specified in buffer limit configuration.");
            long hard, soft, secs;
            try {
                hard = MemoryUnits.parse(words[i + 1]);
                soft = MemoryUnits.parse(words[i + 2]);
                secs = Long.parseLong(words[i + 3]);
            } catch (NumberFormatException e) {
                secs = -1;
                hard = soft = 0;
            }
            if (secs < 0) {
                throw new ConfigException("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            byClass[slot] = new long[] {hard, soft, secs};
        }
        return new Limits(byClass);
    }

    /**
     * A line a class, named "replica" where CONFIG GET says "slave", its sizes in units as Redis's
     * rewriteConfigFormatMemory writes them; a class at its default only where the file has a line.
     */
    static void rewrite(ConfigOption o, Object value, Object defaultValue, ConfigRewriter out) {
        long[][] limits = ((Limits) value).byClass();
        long[][] defaults = ((Limits) defaultValue).byClass();
        for (int k = 0; k < ORDER.length; k++) {
            String line = o.name + " " + (k == Limits.REPLICA ? "replica" : ORDER[k]) + " " + MemoryUnits.format(limits[k][0])
                    + " " + MemoryUnits.format(limits[k][1]) + " " + limits[k][2];
            out.line(o.name, line, !java.util.Arrays.equals(limits[k], defaults[k]));
        }
    }

    @Override
    public String print(Object value) {
        long[][] byClass = ((Limits) value).byClass();
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < ORDER.length; k++) {
            if (k > 0) sb.append(' ');
            sb.append(ORDER[k]).append(' ').append(Long.toUnsignedString(byClass[k][0])).append(' ')
                    .append(Long.toUnsignedString(byClass[k][1])).append(' ').append(byClass[k][2]);
        }
        return sb.toString();
    }
}
