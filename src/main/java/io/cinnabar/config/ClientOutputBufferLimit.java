package io.cinnabar.config;

import java.util.Locale;

/** The "client-output-buffer-limit" option: class hard soft seconds, repeated. */
final class ClientOutputBufferLimit {
    private ClientOutputBufferLimit() {}

    static Object parse(String[] words) throws ConfigException {
        if (words.length == 1) words = words[0].trim().split("\\s+");
        if (words.length % 4 != 0) throw new ConfigException("Wrong number of arguments in buffer limit configuration.");
        String[] order = {"normal", "slave", "pubsub"};
        String[] values = {"normal 0 0 0", "slave 268435456 67108864 60", "pubsub 33554432 8388608 60"};
        for (int i = 0; i < words.length; i += 4) {
            String cls = words[i].toLowerCase(Locale.ROOT);
            if (cls.equals("replica")) cls = "slave";
            int slot = -1;
            for (int k = 0; k < order.length; k++) if (order[k].equals(cls)) slot = k;
            if (slot < 0) throw new ConfigException("Invalid client class specified in buffer limit configuration.");
            long hard = MemoryUnits.parse(words[i + 1]);
            long soft = MemoryUnits.parse(words[i + 2]);
            long secs;
            try {
                secs = Long.parseLong(words[i + 3]);
            } catch (NumberFormatException e) {
                secs = -1;
            }
            if (hard < 0 || soft < 0 || secs < 0) {
                throw new ConfigException("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            values[slot] = order[slot] + " " + hard + " " + soft + " " + secs;
        }
        return String.join(" ", values);
    }
}
