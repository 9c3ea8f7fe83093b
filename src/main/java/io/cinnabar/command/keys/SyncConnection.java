package io.cinnabar.command.keys;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A TCP connection used synchronously by the command thread, every step bounded by a timeout
 * (Redis's connBlockingConnect, connSyncWrite and connSyncReadLine): a slow or silent peer
 * costs at most the timeout, never a hang. Non-blocking underneath, as a blocking Java write has
 * no timeout.
 */
final class SyncConnection implements AutoCloseable {
    /** Thrown when a step did not finish in time (Redis's ETIMEDOUT: MIGRATE then does not retry). */
    static final class TimedOut extends IOException {
        TimedOut() {
            super("timed out");
        }
    }

    /**
     * The peer answered the connect with an error (refused): Redis's connBlockingConnect does not
     * notice, so its MIGRATE fails (and retries) on the first write instead.
     */
    static final class Refused extends IOException {
        Refused(Throwable cause) {
            super(cause);
        }
    }

    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer in = ByteBuffer.allocate(16 * 1024).flip();

    private SyncConnection(SocketChannel channel, Selector selector) {
        this.channel = channel;
        this.selector = selector;
    }

    static SyncConnection connect(String host, int port, long timeoutMs) throws IOException {
        SocketChannel ch = SocketChannel.open();
        Selector sel = null;
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            sel = Selector.open();
            SyncConnection c = new SyncConnection(ch, sel);
            InetSocketAddress address = new InetSocketAddress(host, port);
            if (address.isUnresolved()) throw new java.net.UnknownHostException(host);
            try {
                if (!ch.connect(address)) {
                    c.await(SelectionKey.OP_CONNECT, deadline(timeoutMs));
                    ch.finishConnect();
                }
            } catch (java.net.ConnectException e) {
                throw new Refused(e);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (sel != null) sel.close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    private static long deadline(long timeoutMs) {
        return System.nanoTime() + timeoutMs * 1_000_000L;
    }

    /** Waits until the channel is ready for op, or throws TimedOut at the deadline (System.nanoTime). */
    private void await(int op, long deadlineNanos) throws IOException {
        SelectionKey key = channel.register(selector, op);
        try {
            while (true) {
                long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                if (left <= 0) throw new TimedOut();
                if (selector.select(left) > 0) {
                    selector.selectedKeys().clear();
                    return;
                }
            }
        } finally {
            key.interestOps(0);
        }
    }

    /** Writes all of data within timeoutMs. */
    void write(byte[] data, int offset, int length, long timeoutMs) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(data, offset, length);
        long deadline = deadline(timeoutMs);
        while (out.hasRemaining()) {
            if (channel.write(out) == 0) await(SelectionKey.OP_WRITE, deadline);
        }
    }

    /** One line without its CR LF, at most maxLength bytes kept (Redis's connSyncReadLine), within timeoutMs. */
    String readLine(int maxLength, long timeoutMs) throws IOException {
        long deadline = deadline(timeoutMs);
        StringBuilder line = new StringBuilder();
        while (true) {
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == '\n') {
                    int n = line.length();
                    if (n > 0 && line.charAt(n - 1) == '\r') line.setLength(n - 1);
                    return line.toString();
                }
                if (line.length() < maxLength) line.append((char) (b & 0xff));
            }
            in.clear();
            int n = channel.read(in);
            in.flip();
            if (n < 0) throw new IOException("connection closed");
            if (n == 0) await(SelectionKey.OP_READ, deadline);
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // Nothing left to release.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Nothing left to release.
        }
    }
}
