package io.cinnabar.command;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: any command through Jedis, byte[] replies as Strings, error texts. */
final class Raw {
    private Raw() {}

    static Object cmd(Jedis jedis, String name, String... args) {
        return decode(jedis.sendCommand(() -> name.getBytes(StandardCharsets.UTF_8), args));
    }

    static String str(Jedis jedis, String name, String... args) {
        return (String) cmd(jedis, name, args);
    }

    /** The raw reply of args[0] called with the rest, as Jedis returns it (byte[] undecoded). */
    static Object raw(Jedis jedis, String... args) {
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        return jedis.sendCommand(() -> SafeEncoder.encode(args[0]), rest);
    }

    /** The error text the server replied to whatever r sent; fails if r did not fail. */
    static String error(Runnable r) {
        return org.junit.jupiter.api.Assertions.assertThrows(
                redis.clients.jedis.exceptions.JedisDataException.class, r::run).getMessage();
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
