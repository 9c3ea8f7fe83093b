package io.cinnabar.network;

import io.cinnabar.command.SyncConsole;
import io.netty.channel.Channel;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.ssl.SslHandler;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The socket of an epoll channel whose event loop is the thread asking: that loop is held for
 * as long as the console is used, so nothing else reads or writes the descriptor meanwhile. The
 * descriptor stays non-blocking (the loop's epoll set expects it): an empty read or a full send
 * buffer waits a millisecond and tries again, a person's typing pace.
 */
final class EpollSyncConsole implements SyncConsole {
    private static final long SEND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final FileDescriptor fd;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(1024);

    private EpollSyncConsole(FileDescriptor fd) {
        this.fd = fd;
    }

    /** The console of channel, or null: not epoll (nor another transport with descriptors), TLS (bytes must pass the SslHandler), or another thread's loop. */
    static SyncConsole of(Channel channel) {
        if (!(channel instanceof UnixChannel epoll) || !channel.isOpen() || !channel.eventLoop().inEventLoop()) return null;
        if (channel.pipeline().get(SslHandler.class) != null) return null;
        return new EpollSyncConsole(epoll.fd());
    }

    @Override
    public int read(byte[] into) throws IOException {
        int max = Math.min(into.length, buffer.capacity());
        while (true) {
            int n = fd.read(buffer, 0, max);
            if (n < 0) return -1;
            if (n > 0) {
                buffer.get(0, into, 0, n);
                return n;
            }
            LockSupport.parkNanos(RETRY_NANOS);
        }
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        long deadline = System.nanoTime() + SEND_TIMEOUT_NANOS;
        int done = 0;
        while (done < bytes.length) {
            int chunk = Math.min(bytes.length - done, buffer.capacity());
            buffer.put(0, bytes, done, chunk);
            int n = fd.write(buffer, 0, chunk);
            if (n > 0) {
                done += n;
            } else if (System.nanoTime() - deadline > 0) {
                return;
            } else {
                LockSupport.parkNanos(RETRY_NANOS);
            }
        }
    }
}
