package io.cinnabar.command;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Sends any command through Jedis and turns byte[] replies into Strings for assertions. */
final class Raw {
    private Raw() {}

    static Object cmd(Jedis jedis, String name, String... args) {
        return decode(jedis.sendCommand(() -> name.getBytes(StandardCharsets.UTF_8), args));
    }

    static String str(Jedis jedis, String name, String... args) {
        return (String) cmd(jedis, name, args);
    }

    static Object decode(Object o) {
        if (o instanceof byte[]) return SafeEncoder.encode((byte[]) o);
        if (o instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object x : (List<?>) o) out.add(decode(x));
            return out;
        }
        return o;
    }
}
