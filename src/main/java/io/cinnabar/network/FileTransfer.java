package io.cinnabar.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A few bytes, a file as the socket drains, a few bytes more, then the connection closed: a
 * replica's RDB transfer (redis-cli --rdb). One piece in flight at a time, read into a pooled
 * buffer, so a large dump never sits in memory whole; the same under TLS, where a file region
 * cannot go. Reads by position, so transfers to several replicas share one open file. Event loop only.
 */
final class FileTransfer implements ChannelFutureListener {
    private static final int PIECE = 64 * 1024;

    private final Channel channel;
    private final FileChannel file;
    private final byte[] tail;
    private final Runnable close;
    private final Runnable whenDone;
    private long position;
    private boolean done;

    private FileTransfer(Channel channel, FileChannel file, byte[] tail, Runnable close, Runnable whenDone) {
        this.channel = channel;
        this.file = file;
        this.tail = tail;
        this.close = close;
        this.whenDone = whenDone;
    }

    /** Sends head, file and tail, then closes the channel with close; whenDone runs once this transfer no longer reads file. */
    static void start(Channel channel, byte[] head, FileChannel file, byte[] tail, Runnable close, Runnable whenDone) {
        FileTransfer transfer = new FileTransfer(channel, file, tail, close, whenDone);
        if (!channel.isActive()) {
            transfer.finish();
            return;
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(head)).addListener(transfer);
    }

    private void next() {
        if (!channel.isActive()) {
            finish();
            return;
        }
        ByteBuf piece = channel.alloc().ioBuffer(PIECE);
        int read;
        try {
            read = piece.writeBytes(file, position, PIECE);
        } catch (IOException e) {
            piece.release();
            NettyServer.log.warn("Read error sending the RDB file to the replica: {}", e.toString());
            channel.close();
            finish();
            return;
        }
        if (read < 0) {
            piece.release();
            finish();
            channel.writeAndFlush(Unpooled.wrappedBuffer(tail)).addListener(written -> close.run());
            return;
        }
        position += read;
        channel.writeAndFlush(piece).addListener(this);
    }

    @Override
    public void operationComplete(ChannelFuture written) {
        // A failed write closes the connection (exceptionCaught); the file is let go either way.
        if (written.isSuccess()) next(); else finish();
    }

    private void finish() {
        if (done) return;
        done = true;
        whenDone.run();
    }
}
