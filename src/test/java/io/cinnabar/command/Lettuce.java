package io.cinnabar.command;

import io.lettuce.core.RedisClient;

/** Lettuce clients for tests, on NIO: its native-transport detection trips over Netty 4.2's event loops. */
final class Lettuce {
    private Lettuce() {}

    static RedisClient client(int port) {
        System.setProperty("io.lettuce.core.epoll", "false");
        System.setProperty("io.lettuce.core.iouring", "false");
        System.setProperty("io.lettuce.core.kqueue", "false");
        return RedisClient.create("redis://127.0.0.1:" + port);
    }

    /** A client that speaks the given protocol version (HELLO 3 for RESP3). */
    static RedisClient client(int port, io.lettuce.core.protocol.ProtocolVersion protocol) {
        RedisClient client = client(port);
        client.setOptions(io.lettuce.core.ClientOptions.builder().protocolVersion(protocol).build());
        return client;
    }
}
