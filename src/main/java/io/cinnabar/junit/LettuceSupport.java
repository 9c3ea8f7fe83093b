package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.time.Duration;

/**
 * The only class that links against Lettuce, loaded only when a test asks for a Lettuce type:
 * the extension works without Lettuce on the class path.
 */
final class LettuceSupport {
    private LettuceSupport() {}

    /** A RedisClient for the server; its connections carry the extension's client name. */
    static Object client(CinnabarServer server) {
        return RedisClient.create(RedisURI.builder().withHost(server.host()).withPort(server.port())
                .withClientName(CinnabarExtension.CLIENT_NAME).build());
    }

    /** Shuts a RedisClient down (closing its connections) without Lettuce's default quiet period. */
    static AutoCloseable closer(Object client) {
        return () -> ((RedisClient) client).shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    /** A connection of client: String keys and values, or byte[] ones when asked for. */
    static Object connect(Object client, boolean bytes) {
        RedisClient c = (RedisClient) client;
        StatefulRedisConnection<?, ?> connection = bytes ? c.connect(ByteArrayCodec.INSTANCE) : c.connect();
        return connection;
    }
}
