package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** The only class that links against Jedis, loaded only when a test asks for a Jedis or HostAndPort. */
final class JedisSupport {
    private JedisSupport() {}

    static Object hostAndPort(CinnabarServer server) {
        return new HostAndPort(server.host(), server.port());
    }

    static Object connect(CinnabarServer server) {
        return new Jedis(server.host(), server.port());
    }
}
