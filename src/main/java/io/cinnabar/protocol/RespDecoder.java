package io.cinnabar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.PlatformDependent;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * RESP request decoder: multibulk ({@code *N $len data}) and inline commands, as an explicit
 * state machine that never waits for more than one header line and enforces Redis's limits.
 * A protocol error emits one {@link Request#protocolError} and discards everything after it.
 * <p>
 * Memory follows what the client has actually sent, never what it declared: the argument array
 * of a multibulk starts at no more than 1024 slots and doubles as arguments arrive, and a big
 * bulk is gathered outside the cumulation in a buffer that doubles as bytes arrive (so a
 * "$536870912" header alone costs nothing, and a slow 500 MB upload is copied O(n), not O(n²)).
 */
public final class RespDecoder extends ByteToMessageDecoder {
    /** Redis's PROTO_INLINE_MAX_SIZE: inline lines and header lines longer than this are errors. */
    public static final int INLINE_MAX_SIZE = 64 * 1024;
    /** Redis's PROTO_MBULK_BIG_ARG: bulks this big are gathered outside the cumulation. */
    static final int BIG_ARG = 32 * 1024;
    /** Arguments shorter than this are copied out byte by byte ({@link #copyOut}). */
    private static final int COPY_LOOP_BELOW = 16;
    /**
     * The first array a big bulk is gathered into: up to 1 MB at once (a 1 MB value took four
     * doublings from 64 KB), past that it grows fourfold as the bytes arrive, so a declared
     * length is not trusted with more than four times what was sent (Redis reserves the whole
     * length at once). Fourfold, a 3 MB value is copied once on its way (1 MB), not twice.
     */
    private static final int BIG_ARG_FIRST = 1 << 20;
    private static final int UNAUTHENTICATED_MAX_MULTIBULK = 10;
    private static final int UNAUTHENTICATED_MAX_BULK = 16384;
    private static final int INITIAL_ARGS = 1024;

    private enum State { START, ARG_HEADER, ARG_DATA, FAILED }

    private final LongSupplier maxBulkLength;
    private final LongSupplier queryBufferLimit;
    private final BooleanSupplier authRequired;
    private final byte[] numberScratch = new byte[24];
    private final long[] parsed = new long[1];

    private State state = State.START;
    private byte[][] args;
    private int argCount;
    private long multibulkLength;
    private int bulkLength;
    /**
     * The last request's command name: a client mostly repeats its commands, and a name equal to
     * it is handed out again instead of a new copy (nothing writes into arguments).
     */
    private byte[] lastName = new byte[0];
    /** The big bulk being gathered, grown as bytes arrive; null for bulks read straight from the cumulation. */
    private byte[] bigArg;
    private int bigArgFilled;

    public RespDecoder(LongSupplier maxBulkLength, BooleanSupplier authRequired) {
        this(maxBulkLength, () -> Long.MAX_VALUE, authRequired);
    }

    public RespDecoder(LongSupplier maxBulkLength, LongSupplier queryBufferLimit, BooleanSupplier authRequired) {
        this(maxBulkLength, queryBufferLimit, authRequired, initialBytes -> { }, bytes -> { });
    }

    /**
     * overLimit gets the first bytes of the query buffer of a client closed for passing
     * client-query-buffer-limit, to log them; onRead gets the size of each read from the socket
     * before it is decoded (INFO total_reads_processed, total_net_input_bytes).
     */
    public RespDecoder(LongSupplier maxBulkLength, LongSupplier queryBufferLimit, BooleanSupplier authRequired,
            java.util.function.Consumer<byte[]> overLimit, java.util.function.IntConsumer onRead) {
        this.maxBulkLength = maxBulkLength;
        this.queryBufferLimit = queryBufferLimit;
        this.authRequired = authRequired;
        this.overLimit = overLimit;
        this.onRead = onRead;
    }

    private final java.util.function.Consumer<byte[]> overLimit;
    private final java.util.function.IntConsumer onRead;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf b) onRead.accept(b.readableBytes());
        super.channelRead(ctx, msg);
    }

    /** Bytes received but not yet made into a request (CLIENT LIST qbuf); any thread, approximate. */
    public long pendingInputBytes() {
        return pendingInput;
    }

    private volatile long pendingInput;

    /**
     * Bytes of the arguments already read of a request not yet whole (a client that stopped
     * half-way through a multibulk holds them): part of its memory, not of its query buffer,
     * as Redis counts argv apart from querybuf. Any thread, approximate.
     */
    public long partialRequestBytes() {
        return partialRequest;
    }

    private volatile long partialRequest;
    /** Decoding thread: the bytes of args[0..argCount). */
    private long argBytes;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state != State.FAILED && overQueryBufferLimit(in)) {
            // Redis closes such a client without a reply ("reached max query buffer length").
            byte[] initial = new byte[Math.min(64, in.readableBytes())];
            in.getBytes(in.readerIndex(), initial);
            overLimit.accept(initial);
            fail(in, null, null);
            ctx.close();
        }
        try {
            decodeAll(in, out);
        } finally {
            long buffered = (long) in.readableBytes() + bigArgFilled;
            pendingInput = buffered;
            partialRequest = args == null ? 0 : argBytes;
            bigBulkRemaining = state == State.ARG_DATA && bulkLength >= BIG_ARG ? Math.max(0, bulkLength + 2L - buffered) : 0;
            reservedInput = bigArg == null ? 0 : bigArg.length - bigArgFilled;
        }
    }

    /**
     * Bytes set aside for the big bulk being read that have not arrived yet: memory the client
     * holds, as Redis counts its query buffer's whole allocation (which it sizes to the declared
     * bulk at once). Any thread, approximate.
     */
    public long reservedInputBytes() {
        return reservedInput;
    }

    private volatile long reservedInput;

    /**
     * Bytes still to come of the big bulk being read, its CRLF included; 0 outside one. Redis
     * sizes its next socket read by it. Decoding thread.
     */
    public long bigBulkRemaining() {
        return bigBulkRemaining;
    }

    private long bigBulkRemaining;

    private void decodeAll(ByteBuf in, List<Object> out) {
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

    private boolean overQueryBufferLimit(ByteBuf in) {
        long buffered = (long) in.readableBytes() + bigArgFilled;
        return buffered > ConfigOptions.SMALLEST_CLIENT_QUERY_BUFFER_LIMIT
                && buffered > queryBufferLimit.getAsLong();
    }

    /** Reads "*N\r\n"; false when more bytes are needed or the request failed. */
    private boolean readMultibulkHeader(ByteBuf in, List<Object> out) {
        String invalid = "Protocol error: invalid multibulk length";
        int cr = readHeader(in, out, '*', "Protocol error: too big mbulk count string", invalid);
        if (cr < 0) return false;
        long n = parsed[0];
        if (n > Integer.MAX_VALUE) {
            fail(in, out, invalid);
            return false;
        }
        if (n > UNAUTHENTICATED_MAX_MULTIBULK && authRequired.getAsBoolean()) {
            fail(in, out, "Protocol error: unauthenticated multibulk length");
            return false;
        }
        in.readerIndex(cr + 2);
        if (n <= 0) return true; // "*0" and "*-1" are empty requests: skipped
        multibulkLength = n;
        args = new byte[(int) Math.min(n, INITIAL_ARGS)][];
        argCount = 0;
        argBytes = 0;
        state = State.ARG_HEADER;
        return true;
    }

    private boolean readArgHeader(ByteBuf in, List<Object> out) {
        String invalid = "Protocol error: invalid bulk length";
        int cr = readHeader(in, out, '$', "Protocol error: too big bulk count string", invalid);
        if (cr < 0) return false;
        long n = parsed[0];
        // A Java array cannot hold more than ~2 GB whatever proto-max-bulk-len says. Below the
        // setting's lowest value the setting is not read: a call through the config less per
        // argument.
        if (n < 0 || n > ConfigOptions.SMALLEST_PROTO_MAX_BULK_LEN
                && (n > maxBulkLength.getAsLong() || n > Integer.MAX_VALUE - 16)) {
            fail(in, out, invalid);
            return false;
        }
        if (n > UNAUTHENTICATED_MAX_BULK && authRequired.getAsBoolean()) {
            fail(in, out, "Protocol error: unauthenticated bulk length");
            return false;
        }
        in.readerIndex(cr + 2);
        bulkLength = (int) n;
        state = State.ARG_DATA;
        return true;
    }

    private boolean readArgData(ByteBuf in, List<Object> out) {
        byte[] data;
        if (bigArg != null || (bulkLength >= BIG_ARG && in.readableBytes() < bulkLength + 2)) {
            data = gatherBigArg(in);
            if (data == null) return false;
        } else {
            int at = in.readerIndex();
            if (in.writerIndex() - at < bulkLength + 2) return false;
            if (argCount == 0 && isLastName(in, at)) {
                data = lastName;
            } else {
                data = new byte[bulkLength];
                copyOut(in, at, data);
                if (argCount == 0) lastName = data;
            }
            in.readerIndex(at + bulkLength + 2); // Redis does not check that the CRLF is really there
        }
        if (argCount == args.length) args = Arrays.copyOf(args, (int) Math.min(multibulkLength, args.length * 2L));
        args[argCount++] = data;
        argBytes += data.length;
        if (argCount == multibulkLength) {
            out.add(args);
            args = null;
            state = State.START;
        } else {
            state = State.ARG_HEADER;
        }
        return true;
    }

    private boolean isLastName(ByteBuf in, int at) {
        if (bulkLength != lastName.length) return false;
        long address = addressOf(in);
        for (int i = 0; i < bulkLength; i++) {
            if (byteAt(in, address, at + i) != lastName[i]) return false;
        }
        return true;
    }

    /**
     * The bytes at {@code at} into data, its length checked readable. Most arguments are short
     * (MSET's keys and 3-byte values): read one by one from the direct buffer's memory, they skip
     * ByteBuf.getBytes's checks and the call to the copy stub, which cost more than the bytes.
     */
    private static void copyOut(ByteBuf in, int at, byte[] data) {
        int n = data.length;
        if (n >= COPY_LOOP_BELOW) {
            in.getBytes(at, data);
            return;
        }
        long address = addressOf(in);
        for (int i = 0; i < n; i++) data[i] = byteAt(in, address, at + i);
    }

    /**
     * Whether memory can be read through sun.misc.Unsafe. Netty turns it off from Java 24 (where
     * Unsafe's memory access is deprecated for removal) or under -Dio.netty.noUnsafe=true, yet its
     * direct buffers still report their address: reading it then threw NullPointerException and
     * every connection closed at its first command (Java 25).
     */
    private static final boolean UNSAFE_READS = PlatformDependent.hasUnsafe();

    /** A direct buffer's memory address, where it can be read directly; 0 otherwise (a heap buffer, no Unsafe). */
    private static long addressOf(ByteBuf in) {
        return UNSAFE_READS && in.hasMemoryAddress() ? in.memoryAddress() : 0;
    }

    /** The byte at index, read from memory when the buffer has an address ({@link #addressOf}). */
    private static byte byteAt(ByteBuf in, long address, int index) {
        return address != 0 ? PlatformDependent.getByte(address + index) : in.getByte(index);
    }

    /** Moves what has arrived of a big bulk out of the cumulation; the bulk once it and its CRLF are complete. */
    private byte[] gatherBigArg(ByteBuf in) {
        int missing = bulkLength - bigArgFilled;
        if (missing > 0) {
            int take = Math.min(missing, in.readableBytes());
            if (take == 0) return null;
            int need = bigArgFilled + take;
            if (bigArg == null) {
                bigArg = new byte[Math.min(bulkLength, Math.max(need, BIG_ARG_FIRST))];
            } else if (need > bigArg.length) {
                bigArg = Arrays.copyOf(bigArg, (int) Math.min(bulkLength, Math.max(need, bigArg.length * 4L)));
            }
            in.readBytes(bigArg, bigArgFilled, take);
            bigArgFilled = need;
            if (bigArgFilled < bulkLength) return null;
        }
        if (in.readableBytes() < 2) return null;
        in.skipBytes(2);
        byte[] data = bigArg; // grown no further than bulkLength, so exactly full
        bigArg = null;
        bigArgFilled = 0;
        return data;
    }

    private boolean readInline(ByteBuf in, List<Object> out) {
        int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
        // Redis looks for the newline with strchr, which stops at a NUL byte: a line with one
        // before its newline waits for more, until it is too big.
        if (lf >= 0 && in.indexOf(in.readerIndex(), lf, (byte) 0) >= 0) lf = -1;
        if (lf < 0) {
            if (in.readableBytes() > INLINE_MAX_SIZE) fail(in, out, "Protocol error: too big inline request");
            return false;
        }
        // Redis only notices a long line while waiting for its newline, 16 KB reads at a time; a
        // line past the limit is rejected here whichever way it was split into packets.
        int lineLength = lf - in.readerIndex();
        if (lineLength > INLINE_MAX_SIZE) {
            fail(in, out, "Protocol error: too big inline request");
            return false;
        }
        int end = lf;
        if (end > in.readerIndex() && in.getByte(end - 1) == '\r') end--;
        byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(lf + 1);
        byte[][] split = ArgSplitter.split(line);
        if (split == null) {
            fail(in, out, "Protocol error: unbalanced quotes in request");
            return false;
        }
        if (split.length > 0) out.add(split);
        return true;
    }

    /**
     * Reads the header at the reader index, marker then a number then CRLF ("*3", "$5"): returns
     * its CR's index with the number in parsed[0], or -1 while it is incomplete or when it failed
     * the request (too long a line without a CR: tooBig; another marker, or not a number: invalid).
     */
    private int readHeader(ByteBuf in, List<Object> out, char marker, String tooBig, String invalid) {
        int cr = plainHeader(in, marker);
        if (cr >= 0) return cr;
        cr = findCr(in);
        // As for an inline line: Redis's strchr stops at a NUL byte before the CR, and it waits.
        if (cr >= 0 && in.indexOf(in.readerIndex(), cr, (byte) 0) >= 0) cr = -1;
        if (cr < 0) {
            if (in.readableBytes() > INLINE_MAX_SIZE) fail(in, out, tooBig);
            return -1;
        }
        if (cr + 2 > in.writerIndex()) return -1;
        byte first = in.getByte(in.readerIndex());
        if (first != marker) {
            // Only "$" can be missing: a request reaches "*" because it starts with one.
            fail(in, out, "Protocol error: expected '" + marker + "', got '" + BinaryText.ofByte(first) + "'");
            return -1;
        }
        int start = in.readerIndex() + 1;
        if (!parseNumber(in, start, cr - start)) {
            fail(in, out, invalid);
            return -1;
        }
        return cr;
    }

    /**
     * The common header read from one 8-byte load: marker, 1 to 6 digits without a leading zero,
     * CR, and one more byte arrived. Returns the CR's index with the number in parsed[0], or -1
     * for anything else, which {@link #findCr} and {@link #parseNumber} then read or refuse.
     * Looking for the CR first (ByteBuf.indexOf), then parsing, took 51 ns of a pipelined GET's
     * decoding; this takes 45 (RespDecoderBenchmark; SET 70 -> 62 ns).
     */
    private int plainHeader(ByteBuf in, char marker) {
        int at = in.readerIndex();
        int readable = in.writerIndex() - at;
        if (readable < 8) return -1;
        // Eight bytes in one read: the marker, up to 6 digits and the CR ("$3\r\nGET\r" for a GET's name).
        long w = in.getLongLE(at);
        if (((int) w & 0xff) != marker) return -1;
        w >>>= 8;
        int first = (int) w & 0xff;
        if (first < '1' || first > '9') return -1;
        long v = first - '0';
        for (int i = 2; i < 8; i++) {
            w >>>= 8;
            int c = (int) w & 0xff;
            if (c < '0' || c > '9') {
                if (c != '\r' || i + 2 > readable) return -1;
                parsed[0] = v;
                return at + i;
            }
            v = v * 10 + (c - '0');
        }
        return -1;
    }

    private int findCr(ByteBuf in) {
        return in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
    }

    private boolean parseNumber(ByteBuf in, int from, int length) {
        // The common case read in place: up to 18 digits without sign or leading zero (every
        // request has two or three of these; copying them out first was 4% of a pipelined SET).
        if (length > 0 && length <= 18) {
            int end = from + length;
            byte c = in.getByte(from);
            if (c > '0' && c <= '9') {
                long v = c - '0';
                int i = from + 1;
                for (; i < end; i++) {
                    c = in.getByte(i);
                    if (c < '0' || c > '9') break;
                    v = v * 10 + (c - '0');
                }
                if (i == end) {
                    parsed[0] = v;
                    return true;
                }
            }
        }
        if (length <= 0 || length > numberScratch.length) return false;
        in.getBytes(from, numberScratch, 0, length);
        return Numbers.parseLong(numberScratch, 0, length, parsed);
    }

    /** Ends decoding for good; the bytes after the error are consumed unread, as Redis closes the client. */
    private void fail(ByteBuf in, List<Object> out, String message) {
        in.skipBytes(in.readableBytes());
        if (out != null) out.add(Request.protocolError(message));
        state = State.FAILED;
        args = null;
        bigArg = null;
        bigArgFilled = 0;
    }
}
