package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisKeyExpiredEvent;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.KeyExpirationEventMessageListener;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Spring Data Redis's listener container (over Lettuce) as an application uses it: channel and
 * pattern messages, and the key expiration events of KeyExpirationEventMessageListener, which
 * turns notify-keyspace-events on itself and listens on __keyevent@*__:expired.
 */
@CinnabarTest
class SpringDataRedisIT {
    @Test
    void listenerContainerReceivesChannelPatternAndKeyExpiredMessages(Jedis jedis, HostAndPort at) throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        BlockingQueue<String> expired = new LinkedBlockingQueue<>();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(at.getHost(), at.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        RedisMessageListenerContainer container = new RedisMessageListenerContainer();
        container.setConnectionFactory(factory);
        container.afterPropertiesSet();
        try {
            container.addMessageListener((Message m, byte[] pattern) -> received.add(text(m.getChannel()) + " "
                    + text(m.getBody()) + " via " + text(pattern)), List.of(
                    new ChannelTopic("news"), new PatternTopic("sport.*")));
            container.start();
            KeyExpirationEventMessageListener expirations = new KeyExpirationEventMessageListener(container);
            expirations.setApplicationEventPublisher(event -> {
                if (event instanceof RedisKeyExpiredEvent<?> e) expired.add(text(e.getSource()));
            });
            expirations.afterPropertiesSet();
            awaitSubscriptions(jedis);

            assertEquals(1L, jedis.publish("news", "hello"));
            assertEquals(1L, jedis.publish("sport.tennis", "ace"));
            // The container hands each message to its executor: the two may arrive in either order.
            assertEquals(java.util.Set.of("news hello via news", "sport.tennis ace via sport.*"),
                    java.util.Set.of(received.poll(5, TimeUnit.SECONDS), received.poll(5, TimeUnit.SECONDS)));

            // The listener switched notifications on (it found them off), as it does against Redis.
            assertEquals("AE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
            jedis.psetex("session:42", 20, "data");
            assertEquals("session:42", expired.poll(5, TimeUnit.SECONDS));
        } finally {
            container.stop();
            container.destroy();
            factory.destroy();
            jedis.configSet("notify-keyspace-events", "");
        }
    }

    /** The container subscribes asynchronously: wait until the server counts its subscriptions. */
    private static void awaitSubscriptions(Jedis jedis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            boolean patterns = jedis.pubsubNumPat() == 2;
            boolean channel = jedis.pubsubNumSub("news").get("news") == 1L;
            if (patterns && channel) return;
            Thread.sleep(5);
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
