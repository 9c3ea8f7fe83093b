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
}
