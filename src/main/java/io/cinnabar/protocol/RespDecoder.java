package io.cinnabar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.Numbers;

import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * RESP request decoder: multibulk ({@code *N $len data}) and inline commands, as an explicit
 * state machine that never waits for more than one header line and enforces Redis's limits.
 * A protocol error emits one {@link Request#protocolError} and discards everything after it.
 */
public final class RespDecoder extends ByteToMessageDecoder {
    /** Redis's PROTO_INLINE_MAX_SIZE: inline lines and header lines longer than this are errors. */
    public static final int INLINE_MAX_SIZE = 64 * 1024;
    private static final int UNAUTHENTICATED_MAX_MULTIBULK = 10;
    private static final int UNAUTHENTICATED_MAX_BULK = 16384;
    private static final int INITIAL_ARGS = 1024;

    private enum State { START, ARG_HEADER, ARG_DATA, FAILED }

    private final LongSupplier maxBulkLength;
    private final BooleanSupplier authRequired;
    private final byte[] numberScratch = new byte[24];
    private final long[] parsed = new long[1];

    private State state = State.START;
    private byte[][] args;
    private int argCount;
    private long multibulkLength;
    private int bulkLength;

    public RespDecoder(LongSupplier maxBulkLength, BooleanSupplier authRequired) {
        this.maxBulkLength = maxBulkLength;
        this.authRequired = authRequired;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        decodeAvailable(in, out);
        // After an error nothing more is read: drop the rest now, so the error request never
        // comes out of a call that consumed no bytes (Netty rejects that).
        if (state == State.FAILED) in.skipBytes(in.readableBytes());
    }

    private void decodeAvailable(ByteBuf in, List<Object> out) {
        while (true) {
            switch (state) {
                case FAILED:
                    in.skipBytes(in.readableBytes());
                    return;
                case START:
                    if (!in.isReadable()) return;
                    if (in.getByte(in.readerIndex()) == '*') {
                        if (!readMultibulkHeader(in, out)) return;
                    } else if (!readInline(in, out)) {
                        return;
                    }
                    break;
                case ARG_HEADER:
                    if (!readArgHeader(in, out)) return;
                    break;
                case ARG_DATA:
                    if (!readArgData(in, out)) return;
                    break;
                default:
                    throw new IllegalStateException(state.name());
            }
        }
    }

    /** Reads "*N\r\n"; false when more bytes are needed or the request failed. */
    private boolean readMultibulkHeader(ByteBuf in, List<Object> out) {
        int cr = findCr(in);
        if (cr < 0) {
            if (in.readableBytes() > INLINE_MAX_SIZE) fail(out, "Protocol error: too big mbulk count string");
            return false;
        }
        if (cr + 2 > in.writerIndex()) return false;
        int start = in.readerIndex() + 1;
        boolean ok = parseNumber(in, start, cr - start);
        long n = parsed[0];
        if (!ok || n > Integer.MAX_VALUE) {
            fail(out, "Protocol error: invalid multibulk length");
            return false;
        }
        if (n > UNAUTHENTICATED_MAX_MULTIBULK && authRequired.getAsBoolean()) {
            fail(out, "Protocol error: unauthenticated multibulk length");
            return false;
        }
        in.readerIndex(cr + 2);
        if (n <= 0) return true; // "*0" and "*-1" are empty requests: skipped
        multibulkLength = n;
        args = new byte[(int) Math.min(n, INITIAL_ARGS)][];
        argCount = 0;
        state = State.ARG_HEADER;
        return true;
    }

    private boolean readArgHeader(ByteBuf in, List<Object> out) {
        int cr = findCr(in);
        if (cr < 0) {
            if (in.readableBytes() > INLINE_MAX_SIZE) fail(out, "Protocol error: too big bulk count string");
            return false;
        }
        if (cr + 2 > in.writerIndex()) return false;
        byte first = in.getByte(in.readerIndex());
        if (first != '$') {
            fail(out, "Protocol error: expected '$', got '" + (char) (first & 0xff) + "'");
            return false;
        }
        int start = in.readerIndex() + 1;
        boolean ok = parseNumber(in, start, cr - start);
        long n = parsed[0];
        if (!ok || n < 0 || n > maxBulkLength.getAsLong() || n > Integer.MAX_VALUE - 16) {
            fail(out, "Protocol error: invalid bulk length");
            return false;
        }
        if (n > UNAUTHENTICATED_MAX_BULK && authRequired.getAsBoolean()) {
            fail(out, "Protocol error: unauthenticated bulk length");
            return false;
        }
        in.readerIndex(cr + 2);
        bulkLength = (int) n;
        state = State.ARG_DATA;
        return true;
    }

    private boolean readArgData(ByteBuf in, List<Object> out) {
        if (in.readableBytes() < (long) bulkLength + 2) return false;
        byte[] data = new byte[bulkLength];
        in.readBytes(data);
        in.skipBytes(2); // Redis does not check that the CRLF is really there
        if (argCount == args.length) args = Arrays.copyOf(args, (int) Math.min(multibulkLength, args.length * 2L));
        args[argCount++] = data;
        if (argCount == multibulkLength) {
            out.add(Request.of(args));
            args = null;
            state = State.START;
        } else {
            state = State.ARG_HEADER;
        }
        return true;
    }

    private boolean readInline(ByteBuf in, List<Object> out) {
        int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        if (lf < 0) {
            if (in.readableBytes() > INLINE_MAX_SIZE) fail(out, "Protocol error: too big inline request");
            return false;
        }
        int lineLength = lf - in.readerIndex();
        if (lineLength > INLINE_MAX_SIZE) {
            fail(out, "Protocol error: too big inline request");
            return false;
        }
        int end = lf;
        if (end > in.readerIndex() && in.getByte(end - 1) == '\r') end--;
        byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(lf + 1);
        byte[][] split = ArgSplitter.split(line);
        if (split == null) {
            fail(out, "Protocol error: unbalanced quotes in request");
            return false;
        }
        if (split.length > 0) out.add(Request.of(split));
        return true;
    }

    private int findCr(ByteBuf in) {
        return in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
    }

    private boolean parseNumber(ByteBuf in, int from, int length) {
        if (length <= 0 || length > numberScratch.length) return false;
        in.getBytes(from, numberScratch, 0, length);
        return Numbers.parseLong(numberScratch, 0, length, parsed);
    }

    private void fail(List<Object> out, String message) {
        out.add(Request.protocolError(message));
        state = State.FAILED;
        args = null;
    }
}
