package io.cinnabar.command;

import io.cinnabar.protocol.Reply;
import io.cinnabar.protocol.RespWriter;

/**
 * A reply whose length only the client bounds: HRANDFIELD, SRANDMEMBER and ZRANDMEMBER with a
 * negative count repeat elements as often as asked. Redis builds it until the client's output
 * passes its hard client-output-buffer-limit, then stops and closes the client unanswered
 * (CLIENT_CLOSE_ASAP). Here the loop stops there too, and the reply, past the limit, closes the
 * connection before any of it is sent. Where no limit would stop it, more than
 * {@link #MAX_ELEMENTS} elements are refused instead of filling the heap (or, for counts near
 * 2^62, running for ever).
 */
public final class UnboundedReply {
    static final long MAX_ELEMENTS = 100_000_000L;
    /** A hard limit above this would let the reply fill the heap before it stops it. */
    private static final long MAX_STOPPING_LIMIT = 256L * 1024 * 1024;
    /** Elements between two looks at the reply's size. */
    private static final int CHECK_EVERY = 1024;

    private final Reply reply;
    private final long hardLimit;

    private UnboundedReply(Reply reply, long hardLimit) {
        this.reply = reply;
        this.hardLimit = hardLimit;
    }

    /** For a reply of elements elements to c's client; refuses one nothing would stop. */
    public static UnboundedReply of(Call c, long elements) {
        // Fewer elements than one check apart never meet the limit: no need to look it up.
        long hard = elements > CHECK_EVERY && c.reply() instanceof RespWriter ? c.client().channel().outputHardLimit() : 0;
        boolean limitStops = hard > 0 && hard <= MAX_STOPPING_LIMIT;
        if (elements > MAX_ELEMENTS && !limitStops) throw new CommandError("ERR value is out of range");
        return new UnboundedReply(c.reply(), limitStops ? hard : 0);
    }

    /** The array header; a count past an int is never sent (the limit closes the client first). */
    public void array(long n) {
        reply.array((int) Math.min(n, Integer.MAX_VALUE));
    }

    /** True when the loop should stop before element i: the client's output passed its limit. */
    public boolean full(long i) {
        return hardLimit > 0 && i % CHECK_EVERY == 0 && ((RespWriter) reply).size() >= hardLimit;
    }
}
