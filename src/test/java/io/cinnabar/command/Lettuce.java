package io.cinnabar.command;

import io.lettuce.core.RedisClient;

/** Lettuce clients for tests, on NIO: its native-transport detection trips over Netty 4.2's event loops. */
final class Lettuce {
    private Lettuce() {}

    static RedisClient client(int port) {
        nio();
        return RedisClient.create("redis://127.0.0.1:" + port);
    }

    /** A cluster client that learns the topology from the node on port. */
    static io.lettuce.core.cluster.RedisClusterClient cluster(int port) {
        nio();
        return io.lettuce.core.cluster.RedisClusterClient.create("redis://127.0.0.1:" + port);
    }

    private static void nio() {
        System.setProperty("io.lettuce.core.epoll", "false");
        System.setProperty("io.lettuce.core.iouring", "false");
        System.setProperty("io.lettuce.core.kqueue", "false");
    }

    /** A client that speaks the given protocol version (HELLO 3 for RESP3). */
    static RedisClient client(int port, io.lettuce.core.protocol.ProtocolVersion protocol) {
        RedisClient client = client(port);
        client.setOptions(io.lettuce.core.ClientOptions.builder().protocolVersion(protocol).build());
        return client;
    }
}
