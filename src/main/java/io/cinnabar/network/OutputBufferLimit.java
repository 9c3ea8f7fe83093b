package io.cinnabar.network;

import io.cinnabar.config.ClientOutputBufferLimit;
import io.cinnabar.config.ClientOutputBufferLimit.Limits;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.ReplyListCount;
import io.netty.buffer.ByteBuf;

/**
 * client-output-buffer-limit for one connection, as Redis's checkClientOutputBufferLimits
 * applies it to the client's class (normal, replica, pubsub): past the hard limit the client is
 * closed at once; past the soft limit it is closed once it has stayed there longer than
 * soft-seconds. 0 disables a limit (the default for normal clients).
 */
final class OutputBufferLimit {
    private final Config config;
    private long softReachedAtMs;
    /** Redis's count for a normal or pubsub client, kept while its class has a limit. */
    private final ReplyListCount replyList = new ReplyListCount();
    private boolean modelled;
    /** The replies being counted, read through one reader made once (pushes come one message at a time). */
    private ByteBuf counting;
    private final ReplyListCount.ByteAt countingBytes = i -> counting.getByte(i);

    OutputBufferLimit(Config config) {
        this.config = config;
    }

    /**
     * True when a client (of class pubsub when subscribed) with pendingNow bytes not yet taken by
     * the socket must be closed once the replies in adding (null: none) join them. A replica is
     * counted by its bytes; others as Redis's reply buffer and list would hold the same replies
     * ({@link ReplyListCount}), which takes the RESP pieces apart only while the class has a
     * limit. The clock is read only past a soft limit: this runs for every reply written.
     */
    boolean exceeded(long pendingNow, ByteBuf adding, int cls) {
        Limits limits = limits(config);
        long hard = cls == Limits.REPLICA ? ClientOutputBufferLimit.hardLimit(config, cls) : limits.hard(cls);
        long soft = limits.soft(cls), softSeconds = limits.softSeconds(cls);
        long bytes;
        if (cls == Limits.REPLICA) {
            bytes = pendingNow + (adding == null ? 0 : adding.readableBytes());
        } else if (hard > 0 || soft > 0) {
            if (modelled) {
                replyList.sentDownTo(pendingNow);
            } else {
                // Limited from now on: what is already pending counts as one piece.
                replyList.reset();
                replyList.write(pendingNow);
                modelled = true;
            }
            if (adding != null) {
                counting = adding;
                replyList.writePieces(countingBytes, adding.readerIndex(), adding.writerIndex());
                counting = null;
            }
            bytes = replyList.counted();
        } else {
            modelled = false;
            bytes = 0;
        }
        if (hard > 0 && bytes >= hard) return true;
        if (soft > 0 && bytes >= soft) {
            long nowMs = System.currentTimeMillis();
            if (softReachedAtMs == 0) {
                softReachedAtMs = nowMs;
                return false;
            }
            return (nowMs - softReachedAtMs) / 1000 > softSeconds;
        }
        softReachedAtMs = 0;
        return false;
    }

    /**
     * Reply bytes that pass the hard limit of the client's class (0: no limit) however Redis would
     * split them in its buffer and list, for a command building a reply that only this limit
     * bounds: it may stop there, as the count the client is closed by has then passed the limit.
     * Redis counts more than the bytes past its 1 KB buffer, never less.
     */
    static long hardLimit(Config config, int cls) {
        long hard = ClientOutputBufferLimit.hardLimit(config, cls);
        return hard == 0 || cls == Limits.REPLICA ? hard : hard + 1024;
    }

    /** True while the output stays past a soft limit whose seconds have not run out yet. */
    boolean softLimitPending() {
        return softReachedAtMs != 0;
    }

    /** The option as the config table keeps it, parsed once per CONFIG SET (not per connection or reply). */
    private static Limits limits(Config config) {
        return (Limits) config.get(ConfigOptions.CLIENT_OUTPUT_BUFFER_LIMIT);
    }
}
