package io.cinnabar.network;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannelConfig;
import io.netty.channel.socket.nio.NioChannelOption;
import jdk.net.ExtendedSocketOptions;

/**
 * tcp-keepalive for a new connection, as Redis's anetKeepAlive: SO_KEEPALIVE, the first probe
 * after interval seconds of silence, then probes every interval/3 seconds (at least 1), the peer
 * dead after 3 unanswered. 0 leaves keepalive off. Through epoll's options, or the JDK's extended
 * socket options under NIO where the platform has them.
 */
final class TcpKeepAlive {
    private TcpKeepAlive() {}

    static void apply(ChannelConfig config, long seconds) {
        if (seconds <= 0) {
            config.setOption(ChannelOption.SO_KEEPALIVE, false);
            return;
        }
        int idle = (int) Math.min(seconds, 32767); // Linux caps TCP_KEEPIDLE at MAX_TCP_KEEPIDLE
        int interval = Math.max(1, idle / 3);
        config.setOption(ChannelOption.SO_KEEPALIVE, true);
        if (config instanceof EpollSocketChannelConfig) {
            config.setOption(EpollChannelOption.TCP_KEEPIDLE, idle);
            config.setOption(EpollChannelOption.TCP_KEEPINTVL, interval);
            config.setOption(EpollChannelOption.TCP_KEEPCNT, 3);
        } else {
            // false (not thrown) where the platform lacks an option: keepalive then uses its defaults.
            config.setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), idle);
            config.setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), interval);
            config.setOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), 3);
        }
    }
}
