package io.cinnabar.config;

import java.util.Locale;

/**
 * The "client-output-buffer-limit" option: class hard soft seconds, repeated. As Redis's
 * updateClientOutputBufferLimit, the classes named change and the others keep their current
 * limits (so the three lines of a redis.conf add up, and CONFIG SET "" changes nothing).
 */
final class ClientOutputBufferLimit implements ConfigOption.Parser {
    static final ClientOutputBufferLimit PARSER = new ClientOutputBufferLimit();
    private static final String[] ORDER = {"normal", "slave", "pubsub"};
    private static final String DEFAULT = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";

    private ClientOutputBufferLimit() {}

    @Override
    public Object parse(String[] words) throws ConfigException {
        return parse(words, null);
    }

    @Override
    public Object parse(String[] words, Object current) throws ConfigException {
        if (words.length == 1) words = words[0].trim().isEmpty() ? new String[0] : words[0].trim().split("\\s+");
        if (words.length % 4 != 0) throw new ConfigException("Wrong number of arguments in buffer limit configuration.");
        String[] now = (current == null ? DEFAULT : (String) current).split(" ");
        String[] values = new String[ORDER.length];
        for (int k = 0; k < ORDER.length; k++) values[k] = String.join(" ", now[4 * k], now[4 * k + 1], now[4 * k + 2], now[4 * k + 3]);
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
            values[slot] = ORDER[slot] + " " + Long.toUnsignedString(hard) + " " + Long.toUnsignedString(soft) + " " + secs;
        }
        return String.join(" ", values);
    }
}
