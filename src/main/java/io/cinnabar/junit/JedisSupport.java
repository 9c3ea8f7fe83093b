package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;

/** The only class that links against Jedis, loaded only when a test asks for a Jedis type. */
final class JedisSupport {
    private JedisSupport() {}

    static Object hostAndPort(CinnabarServer server) {
        return new HostAndPort(server.host(), server.port());
    }

    /** A Jedis named as the extension names what it injects (the leak check passes over those). */
    static AutoCloseable connect(CinnabarServer server) {
        return new Jedis(new HostAndPort(server.host(), server.port()), config());
    }

    static AutoCloseable pooled(CinnabarServer server) {
        return new JedisPooled(new HostAndPort(server.host(), server.port()), config());
    }

    private static DefaultJedisClientConfig config() {
        return DefaultJedisClientConfig.builder().clientName(CinnabarExtension.CLIENT_NAME).build();
    }
}
