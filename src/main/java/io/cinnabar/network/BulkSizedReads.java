package io.cinnabar.network;

import io.cinnabar.protocol.RespDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Reads a big bulk argument as Redis's readQueryFromClient does: while one is arriving, a read
 * asks for its remaining bytes, and the socket is drained in the same event loop turn (up to
 * {@link #MAX_ROUND}), not sixteen reads at most. Outside a big bulk, the channel's usual
 * adaptive reads (64 KB at most).
 *
 * Redis reads all that is queued in one call, so a client's upload has arrived by the time it
 * answers that client's next command on another connection. Read in sixteen 64 KB steps, a
 * 1-3 MB upload was still arriving then: Redis's own tests see such a client's CLIENT LIST
 * tot-mem short of what it sent, and not yet evicted by maxmemory-clients.
 */
@SuppressWarnings("deprecation") // Netty's read loop still takes the Handle it deprecates
final class BulkSizedReads implements RecvByteBufAllocator {
    /**
     * An eighth of Netty's pooled chunk here (8 KB pages, maxOrder 7): a buffer over a quarter of
     * a chunk moves it out of the list whose chunks are kept, and the chunk is then freed and
     * allocated again, zeroed, at every such read.
     */
    static final int MAX_READ = 128 * 1024;
    /**
     * The most one connection's bulk reads take in one turn, while the others wait. With 32 MB
     * (one full socket buffer at this machine's tcp_rmem maximum), a client uploading 50 MB values
     * held another's PING for up to 38-48 ms; with 4 MB, 25-27 ms, as with 16 reads of 64 KB.
     */
    static final int MAX_ROUND = 4 * 1024 * 1024;

    private final RecvByteBufAllocator usual;
    private final RespDecoder decoder;

    BulkSizedReads(RecvByteBufAllocator usual, RespDecoder decoder) {
        this.usual = usual;
        this.decoder = decoder;
    }

    @Override
    public Handle newHandle() {
        return new SizedHandle((ExtendedHandle) usual.newHandle());
    }

    private int bulkRemaining() {
        return (int) Math.min(decoder.bigBulkRemaining(), MAX_READ);
    }

    private final class SizedHandle implements ExtendedHandle {
        private final ExtendedHandle usual;
        private ChannelConfig config;
        private int roundBytes;

        SizedHandle(ExtendedHandle usual) {
            this.usual = usual;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            int bulk = bulkRemaining();
            return bulk > usual.guess() ? alloc.ioBuffer(bulk) : usual.allocate(alloc);
        }

        @Override
        public int guess() {
            return Math.max(usual.guess(), bulkRemaining());
        }

        @Override
        public void reset(ChannelConfig config) {
            this.config = config;
            roundBytes = 0;
            usual.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            usual.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            if (bytes > 0) roundBytes += bytes;
            usual.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return usual.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            usual.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return usual.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return inBulk() ? moreOfBulk() : usual.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return inBulk() ? moreOfBulk() : usual.continueReading(maybeMoreDataSupplier);
        }

        private boolean inBulk() {
            return decoder.bigBulkRemaining() > 0;
        }

        /** Until the socket has nothing more (a read that got nothing ends the loop) or the round's budget is spent. */
        private boolean moreOfBulk() {
            return config.isAutoRead() && usual.lastBytesRead() > 0 && roundBytes < MAX_ROUND;
        }

        @Override
        public void readComplete() {
            usual.readComplete();
        }
    }
}
