package io.cinnabar.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.atomic.LongAdder;

/** Counts the bytes clients send (INFO total_net_input_bytes, instantaneous_input_kbps) before they are decoded. */
@ChannelHandler.Sharable
final class InputBytesCounter extends ChannelInboundHandlerAdapter {
    private final LongAdder bytes;

    InputBytesCounter(LongAdder bytes) {
        this.bytes = bytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) bytes.add(b.readableBytes());
        ctx.fireChannelRead(msg);
    }
}
