package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.File;

import static io.cinnabar.network.TestCerts.file;
import static io.cinnabar.persistence.LocalServers.freePort;
import static io.cinnabar.network.TestCerts.tlsServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Lettuce over the TLS port with a client certificate, logging in as an ACL user with username and
 * password: a user restricted to ~app:* keys gets Redis's NOPERM on any other key.
 */
class TlsAclLettuceIT {
    @Test
    void aclUserOverTlsGetsNopermOutsideItsKeys() throws Exception {
        System.setProperty("io.lettuce.core.epoll", "false");
        System.setProperty("io.lettuce.core.iouring", "false");
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", admin.aclSetUser("app", "on", ">s3cret", "~app:*", "+@all"));
            RedisClient client = RedisClient.create();
            client.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                    .trustManager(new File(file("ca.crt")))
                    .keyManager(new File(file("client.crt")), new File(file("client.key")), null)
                    .build()).build());
            // The test certificates name no host: the CA is checked, not the name.
            RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(tlsPort).withSsl(true)
                    .withVerifyPeer(SslVerifyMode.CA).withAuthentication("app", "s3cret").build();
            try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
                RedisCommands<String, String> redis = connection.sync();
                assertEquals("app", redis.aclWhoami());
                assertEquals("OK", redis.set("app:1", "allowed"));
                assertEquals("allowed", redis.get("app:1"));
                RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                        () -> redis.set("other:1", "denied"));
                assertEquals("NOPERM this user has no permissions to access one of the keys used as arguments",
                        e.getMessage());
                e = assertThrows(RedisCommandExecutionException.class, () -> redis.get("other:1"));
                assertEquals("NOPERM this user has no permissions to access one of the keys used as arguments",
                        e.getMessage());
            } finally {
                client.shutdown();
            }
            assertEquals(null, admin.get("other:1"));
            RedisClient wrong = RedisClient.create();
            wrong.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                    .trustManager(new File(file("ca.crt")))
                    .keyManager(new File(file("client.crt")), new File(file("client.key")), null).build()).build());
            try {
                RedisURI bad = RedisURI.builder().withHost("127.0.0.1").withPort(tlsPort).withSsl(true)
                        .withVerifyPeer(SslVerifyMode.CA).withAuthentication("app", "wrong").build();
                Exception e = assertThrows(Exception.class, () -> wrong.connect(bad).close());
                String message = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
                assertEquals("WRONGPASS invalid username-password pair or user is disabled.", message);
            } finally {
                wrong.shutdown();
            }
        }
    }
}
