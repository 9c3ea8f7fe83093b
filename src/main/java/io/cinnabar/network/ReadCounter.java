package io.cinnabar.network;

import io.cinnabar.command.ServerStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Counts reads from clients and their bytes before they are decoded (INFO total_reads_processed,
 * total_net_input_bytes, instantaneous_input_kbps), as Redis's readQueryFromClient counts them.
 */
@ChannelHandler.Sharable
final class ReadCounter extends ChannelInboundHandlerAdapter {
    private final ServerStats stats;

    ReadCounter(ServerStats stats) {
        this.stats = stats;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) {
            stats.reads.increment();
            stats.netInputBytes.add(b.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}
