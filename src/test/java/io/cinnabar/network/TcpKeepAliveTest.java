package io.cinnabar.network;

import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioSocketChannel;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** tcp-keepalive as anetKeepAlive sets it: idle N, interval N/3 (at least 1), 3 probes; 0 turns it off. */
class TcpKeepAliveTest {
    @Test
    void epollSocketsGetIdleIntervalAndCount() {
        assumeTrue(Epoll.isAvailable());
        EpollSocketChannel ch = new EpollSocketChannel();
        try {
            TcpKeepAlive.apply(ch.config(), 300);
            assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
            assertEquals(300, ch.config().getOption(EpollChannelOption.TCP_KEEPIDLE));
            assertEquals(100, ch.config().getOption(EpollChannelOption.TCP_KEEPINTVL));
            assertEquals(3, ch.config().getOption(EpollChannelOption.TCP_KEEPCNT));
            TcpKeepAlive.apply(ch.config(), 2);
            assertEquals(1, ch.config().getOption(EpollChannelOption.TCP_KEEPINTVL));
            TcpKeepAlive.apply(ch.config(), 0);
            assertFalse(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
        } finally {
            ch.unsafe().closeForcibly();
        }
    }

    @Test
    void nioSocketsGetTheJdkExtendedOptions() {
        NioSocketChannel ch = new NioSocketChannel();
        try {
            TcpKeepAlive.apply(ch.config(), 60);
            assertTrue(ch.config().getOption(ChannelOption.SO_KEEPALIVE));
            ChannelOption<Integer> idle = NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE);
            assumeTrue(ch.config().getOption(idle) != null, "no TCP_KEEPIDLE on this platform");
            assertEquals(60, ch.config().getOption(idle));
            assertEquals(20, ch.config().getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL)));
            assertEquals(3, ch.config().getOption(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT)));
        } finally {
            ch.unsafe().closeForcibly();
        }
    }
}
