package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class PubSubIT {
    private static List<Object> push(Object... items) {
        return Arrays.asList(items);
    }

    @Test
    void subscribersGetChannelThenPatternMessages(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket sub = new RespSocket(server.port())) {
            assertEquals(push("subscribe", "news", 1L), sub.call("SUBSCRIBE", "news"));
            assertEquals(push("psubscribe", "n*", 2L), sub.call("PSUBSCRIBE", "n*"));
            assertEquals(2L, jedis.publish("news", "hi"));
            assertEquals(1L, jedis.publish("nope", "x"));
            assertEquals(0L, jedis.publish("other", "x"));
            assertEquals(push("message", "news", "hi"), sub.read());
            assertEquals(push("pmessage", "n*", "news", "hi"), sub.read());
            assertEquals(push("pmessage", "n*", "nope", "x"), sub.read());
        }
    }

    @Test
    void resp2SubscriberModeAllowsOnlyTheSubscribeFamilyPingQuitAndReset(CinnabarServer server) throws Exception {
        try (RespSocket sub = new RespSocket(server.port())) {
            sub.call("SUBSCRIBE", "a");
            assertEquals(new RespSocket.Error("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING"
                    + " / QUIT / RESET are allowed in this context"), sub.call("GET", "k"));
            assertEquals(push("pong", ""), sub.call("PING"));
            assertEquals(push("pong", "hey"), sub.call("PING", "hey"));
            assertEquals(push("unsubscribe", "a", 0L), sub.call("UNSUBSCRIBE"));
            assertEquals("PONG", sub.call("PING"));
            assertEquals(null, sub.call("GET", "k"));
            sub.call("PSUBSCRIBE", "p*");
            assertEquals("RESET", sub.call("RESET"));
            assertEquals(null, sub.call("GET", "k"));
        }
    }

    @Test
    void unsubscribingFromNothingStillReplies(CinnabarServer server) throws Exception {
        try (RespSocket s = new RespSocket(server.port())) {
            assertEquals(push("unsubscribe", null, 0L), s.call("UNSUBSCRIBE"));
            assertEquals(push("punsubscribe", null, 0L), s.call("PUNSUBSCRIBE"));
            assertEquals(push("sunsubscribe", null, 0L), s.call("SUNSUBSCRIBE"));
            s.send("UNSUBSCRIBE", "x", "y");
            assertEquals(push("unsubscribe", "x", 0L), s.read());
            assertEquals(push("unsubscribe", "y", 0L), s.read());
        }
    }

    @Test
    void resp3PushesKeepTheirPlaceAmongReplies(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.call("HELLO", "3");
            assertEquals(new RespSocket.Push(push("subscribe", "ch", 1L)), c.call("SUBSCRIBE", "ch"));
            assertEquals("OK", c.call("SET", "k", "v"));
            jedis.publish("ch", "from-other");
            assertEquals(new RespSocket.Push(push("message", "ch", "from-other")), c.read());
            // Publishing to itself in one pipeline: the message comes between SET's and PUBLISH's replies.
            c.send("SET", "k", "w");
            c.send("PUBLISH", "ch", "self");
            c.send("GET", "k");
            assertEquals("OK", c.read());
            assertEquals(new RespSocket.Push(push("message", "ch", "self")), c.read());
            assertEquals(1L, c.read());
            assertEquals("w", c.read());
        }
    }

    @Test
    void subscribeConfirmationsAndMessagesPassClientReplyOff(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket c = new RespSocket(server.port())) {
            c.send("CLIENT", "REPLY", "OFF");
            c.send("SUBSCRIBE", "quiet");
            assertEquals(push("subscribe", "quiet", 1L), c.read());
            jedis.publish("quiet", "m");
            assertEquals(push("message", "quiet", "m"), c.read());
        }
    }

    @Test
    void shardChannelsAreSeparateAndPatternsDoNotSeeThem(Jedis jedis, CinnabarServer server) throws Exception {
        try (RespSocket s = new RespSocket(server.port()); RespSocket p = new RespSocket(server.port())) {
            assertEquals(push("ssubscribe", "orders", 1L), s.call("SSUBSCRIBE", "orders"));
            p.call("PSUBSCRIBE", "*");
            assertEquals(1L, cmd(jedis, "SPUBLISH", "orders", "o1"));
            assertEquals(1L, jedis.publish("orders", "plain"));
            assertEquals(push("smessage", "orders", "o1"), s.read());
            assertEquals(push("pmessage", "*", "orders", "plain"), p.read());
            assertEquals(List.of("orders"), cmd(jedis, "PUBSUB", "SHARDCHANNELS"));
            assertEquals(List.of("orders", 1L), cmd(jedis, "PUBSUB", "SHARDNUMSUB", "orders"));
            assertEquals(List.of(), cmd(jedis, "PUBSUB", "CHANNELS"));
            assertEquals(new RespSocket.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"),
                    ssubscribeInsideExec(server));
        }
    }

    /** SSUBSCRIBE inside EXEC, as Redis refuses it (the client expects one reply per command there). */
    private static Object ssubscribeInsideExec(CinnabarServer server) throws Exception {
        try (RespSocket t = new RespSocket(server.port())) {
            t.call("MULTI");
            t.call("SSUBSCRIBE", "x");
            Object exec = t.call("EXEC");
            return ((List<?>) exec).get(0);
        }
    }

    @Test
    void introspectionCountsLiveSubscriptionsOnly(Jedis jedis, CinnabarServer server) throws Exception {
        RespSocket a = new RespSocket(server.port());
        try (RespSocket b = new RespSocket(server.port())) {
            a.call("SUBSCRIBE", "news.sport", "news.art");
            b.call("SUBSCRIBE", "news.sport");
            a.call("PSUBSCRIBE", "news.*");
            b.call("PSUBSCRIBE", "news.*");
            assertEquals(List.of("news.art"), cmd(jedis, "PUBSUB", "CHANNELS", "*art"));
            assertEquals(List.of("news.sport", 2L, "news.art", 1L, "none", 0L),
                    cmd(jedis, "PUBSUB", "NUMSUB", "news.sport", "news.art", "none"));
            assertEquals(1L, cmd(jedis, "PUBSUB", "NUMPAT"));
            assertEquals("ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.",
                    Raw.error(() -> cmd(jedis, "PUBSUB", "channels", "a", "b")));
            assertTrue(((String) cmd(jedis, "CLIENT", "LIST")).contains("flags=P db=0 sub=2 psub=1 ssub=0"));
            a.close();
            // The server forgets a closed subscriber once it sees the socket go.
            for (int i = 0; i < 500 && !cmd(jedis, "PUBSUB", "NUMSUB", "news.art").equals(List.of("news.art", 0L)); i++) {
                Thread.sleep(10);
            }
            assertEquals(List.of("news.art", 0L), cmd(jedis, "PUBSUB", "NUMSUB", "news.art"));
            assertEquals(List.of("news.sport"), cmd(jedis, "PUBSUB", "CHANNELS"));
            assertTrue(jedis.info("stats").contains("pubsub_channels:1"));
        } finally {
            a.close();
        }
    }

    @Test
    void aSubscriberThatStopsReadingIsCutOffAtThePubsubLimitWhileOthersAreServed(Jedis jedis, CinnabarServer server)
            throws Exception {
        jedis.configSet("client-output-buffer-limit", "pubsub 4mb 0 0");
        try (RespSocket stuck = new RespSocket(server.port()); RespSocket reader = new RespSocket(server.port())) {
            stuck.call("SUBSCRIBE", "firehose");
            String payload = "x".repeat(64 * 1024);
            Runtime rt = Runtime.getRuntime();
            long maxUsed = 0;
            long sent = 0, deliveredToStuck = 0;
            // 1 GB in 64 KB messages, 256 per pipeline; the stuck subscriber never reads.
            for (int round = 0; round < 64; round++) {
                Pipeline p = jedis.pipelined();
                List<Response<Long>> receivers = new ArrayList<>();
                for (int i = 0; i < 256; i++) receivers.add(p.publish("firehose", payload));
                p.sync();
                for (Response<Long> r : receivers) deliveredToStuck += r.get();
                sent += 256L * payload.length();
                maxUsed = Math.max(maxUsed, rt.totalMemory() - rt.freeMemory());
                assertEquals("PONG", reader.call("PING"));
            }
            System.out.printf("published %d MB; %d messages reached the stuck subscriber before it was cut off;"
                    + " heap used at most %d MB%n", sent >> 20, deliveredToStuck, maxUsed >> 20);
            assertTrue(stuck.isClosedByServer(), "the subscriber over the limit was disconnected");
            assertTrue(deliveredToStuck < 16_384 / 4, "cut off early, not after the whole stream: " + deliveredToStuck);
            assertEquals(List.of("firehose", 0L), cmd(jedis, "PUBSUB", "NUMSUB", "firehose"));
        } finally {
            jedis.configSet("client-output-buffer-limit", "pubsub 32mb 8mb 60");
        }
    }

    @Test
    void lettuceResp3ConnectionGetsPushesWhileRunningCommands(Jedis jedis, CinnabarServer server) throws Exception {
        var client = Lettuce.client(server.port());
        try (var conn = client.connectPubSub()) {
            LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
            conn.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    received.add(channel + ":" + message);
                }

                @Override
                public void message(String pattern, String channel, String message) {
                    received.add(pattern + "|" + channel + ":" + message);
                }
            });
            conn.sync().subscribe("events");
            conn.sync().psubscribe("ev*");
            assertEquals("OK", conn.sync().set("k", "v"));
            assertEquals(2L, jedis.publish("events", "one"));
            assertEquals("v", conn.sync().get("k"));
            assertEquals("events:one", received.poll(5, TimeUnit.SECONDS));
            assertEquals("ev*|events:one", received.poll(5, TimeUnit.SECONDS));
            assertEquals(2L, conn.sync().publish("events", "two"));
            assertEquals("events:two", received.poll(5, TimeUnit.SECONDS));
            assertEquals("ev*|events:two", received.poll(5, TimeUnit.SECONDS));
        } finally {
            client.shutdown();
        }
    }

    @Test
    void jedisSubscriberReceivesUntilItUnsubscribes(Jedis jedis, CinnabarServer server) throws Exception {
        LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        redis.clients.jedis.JedisPubSub listener = new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                received.add(message);
                if (message.equals("stop")) unsubscribe();
            }
        };
        Thread t = new Thread(() -> {
            try (Jedis sub = new Jedis("127.0.0.1", server.port())) {
                sub.subscribe(listener, "jobs");
            }
        });
        t.start();
        for (int i = 0; i < 500 && jedis.publish("jobs", "first") == 0; i++) Thread.sleep(10);
        jedis.publish("jobs", "stop");
        t.join(5000);
        assertEquals("first", received.poll(5, TimeUnit.SECONDS));
        assertEquals("stop", received.poll(5, TimeUnit.SECONDS));
        assertTrue(!t.isAlive(), "subscribe() returned after unsubscribing");
    }
}
