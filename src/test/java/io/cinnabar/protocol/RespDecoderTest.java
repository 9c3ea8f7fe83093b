package io.cinnabar.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RespDecoderTest {
    private static final long MAX_BULK = 512L * 1024 * 1024;

    private boolean authRequired;
    private long queryBufferLimit = Long.MAX_VALUE;

    private EmbeddedChannel channel() {
        return new EmbeddedChannel(new RespDecoder(() -> MAX_BULK, () -> queryBufferLimit, () -> authRequired));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> strings(byte[][] r) {
        List<String> out = new ArrayList<>();
        for (byte[] a : r) out.add(new String(a, StandardCharsets.ISO_8859_1));
        return out;
    }

    private static List<byte[][]> drain(EmbeddedChannel ch) {
        List<byte[][]> out = new ArrayList<>();
        byte[][] r;
        while ((r = ch.readInbound()) != null) out.add(r);
        return out;
    }

    /**
     * Feeds the input in pieces cut at every possible pair of boundaries, in heap buffers and in
     * direct ones (as Netty reads sockets into), and checks each yields the same requests.
     */
    private void assertSplitsDecodeTo(String input, List<List<String>> expected) {
        byte[] all = bytes(input);
        for (boolean direct : new boolean[] {false, true}) {
            for (int cut1 = 0; cut1 <= all.length; cut1++) {
                for (int cut2 = cut1; cut2 <= all.length; cut2 += Math.max(1, all.length / 7)) {
                    EmbeddedChannel ch = channel();
                    // Copies: the decoder may compact a buffer it was handed in place.
                    ch.writeInbound(piece(all, 0, cut1, direct));
                    ch.writeInbound(piece(all, cut1, cut2 - cut1, direct));
                    ch.writeInbound(piece(all, cut2, all.length - cut2, direct));
                    List<List<String>> got = new ArrayList<>();
                    for (byte[][] r : drain(ch)) got.add(strings(r));
                    assertEquals(expected, got, (direct ? "direct, " : "heap, ") + "split at " + cut1 + "/" + cut2);
                    ch.finishAndReleaseAll();
                }
            }
        }
    }

    private static ByteBuf piece(byte[] all, int from, int length, boolean direct) {
        if (!direct) return Unpooled.copiedBuffer(all, from, length);
        return Unpooled.directBuffer(Math.max(1, length)).writeBytes(all, from, length);
    }

    private String protocolError(String input) {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes(input)));
        List<byte[][]> got = drain(ch);
        byte[][] last = got.get(got.size() - 1);
        assertTrue(Request.isProtocolError(last), "expected a protocol error, got " + got.size() + " requests");
        // Everything after the error is discarded.
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("PING\r\n*1\r\n$4\r\nPING\r\n")));
        assertTrue(drain(ch).isEmpty());
        ch.finishAndReleaseAll();
        return Request.errorMessage(last);
    }

    @Test
    void multibulkSplitAtEveryBoundary() {
        assertSplitsDecodeTo("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n*1\r\n$4\r\nPING\r\n",
                List.of(List.of("SET", "key", "va\r\nl"), List.of("PING")));
    }

    @Test
    void repeatedCommandNamesShareOneCopyAndOthersGetTheirOwn() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes(
                "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n*2\r\n$3\r\nGEX\r\n$3\r\nGET\r\n"
                        + "*2\r\n$3\r\nget\r\n$1\r\nc\r\n")));
        List<byte[][]> requests = drain(ch);
        assertEquals(List.of(List.of("GET", "a"), List.of("GET", "b"), List.of("GEX", "GET"), List.of("get", "c")),
                requests.stream().map(RespDecoderTest::strings).toList());
        assertSame(requests.get(0)[0], requests.get(1)[0]);
        assertNotSame(requests.get(2)[0], requests.get(2)[1]);
    }

    @Test
    void shortAndLongArgumentsAndRepeatedNamesSplitAtEveryBoundary() {
        // Under 16 bytes an argument is copied byte by byte from a direct buffer; 16 and up in one copy.
        assertSplitsDecodeTo("*3\r\n$3\r\nSET\r\n$15\r\n123456789abcdef\r\n$0\r\n\r\n"
                        + "*3\r\n$3\r\nSET\r\n$16\r\n0123456789abcdef\r\n$1\r\nv\r\n*2\r\n$3\r\nSEX\r\n$2\r\nSE\r\n",
                List.of(List.of("SET", "123456789abcdef", ""), List.of("SET", "0123456789abcdef", "v"),
                        List.of("SEX", "SE")));
    }

    @Test
    void inlineSplitAtEveryBoundary() {
        assertSplitsDecodeTo("PING\r\nset a \"b c\"\nECHO 'x'\r\n",
                List.of(List.of("PING"), List.of("set", "a", "b c"), List.of("ECHO", "x")));
    }

    @Test
    void splitEolDoesNotInfiniteLoop() {
        EmbeddedChannel ch = channel();
        assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r"))));
        assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(bytes("\n$4\r"))));
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(bytes("\nPING\r\n"))));
        assertEquals(List.of("PING"), strings(ch.readInbound()));
        ch.finishAndReleaseAll();
    }

    @Test
    void bigArgumentArrivingInSmallPiecesIsGatheredWhole() {
        byte[] value = new byte[300_000];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31);
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$300000\r\n")));
        for (int off = 0; off < value.length; off += 1000) {
            ch.writeInbound(Unpooled.copiedBuffer(value, off, Math.min(1000, value.length - off)));
        }
        assertNull(ch.readInbound());
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r")));
        assertNull(ch.readInbound());
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\n*1\r\n$4\r\nPING\r\n")));
        byte[][] set = ch.readInbound();
        assertArrayEquals(value, set[2]);
        assertEquals(List.of("PING"), strings(ch.readInbound()));
        ch.finishAndReleaseAll();
    }

    @Test
    void aBigBulkArrivingSaysWhatIsStillToComeAndWhatItsArrayHoldsInReserve() {
        RespDecoder decoder = new RespDecoder(() -> MAX_BULK, () -> authRequired);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*2\r\n$3\r\nSET\r\n$100000\r\n")));
        assertEquals(100_002, decoder.bigBulkRemaining());
        assertEquals(0, decoder.reservedInputBytes());
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[30_000]));
        assertEquals(70_002, decoder.bigBulkRemaining());
        // Its array is the whole bulk once bytes come (it is under 1 MB): the rest is set aside.
        assertEquals(70_000, decoder.reservedInputBytes());
        assertEquals(30_000, decoder.pendingInputBytes());
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[70_000]));
        assertEquals(2, decoder.bigBulkRemaining());
        assertEquals(0, decoder.reservedInputBytes());
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n*2\r\n$3\r\nGET\r\n$40000\r\n")));
        assertEquals(1, drain(ch).size());
        assertEquals(40_002, decoder.bigBulkRemaining());
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[40_000]));
        // A small bulk is not read for: it comes with the usual reads.
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n*1\r\n$4\r\nPI")));
        assertEquals(1, drain(ch).size());
        assertEquals(0, decoder.bigBulkRemaining());
        assertEquals(0, decoder.reservedInputBytes());
        ch.finishAndReleaseAll();
    }

    @Test
    void aBulkOverOneMegabyteGrowsWithWhatArrivesAndComesOutWhole() {
        RespDecoder decoder = new RespDecoder(() -> MAX_BULK, () -> authRequired);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        byte[] value = new byte[10_000_000];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 7);
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$10000000\r\n")));
        for (int off = 0; off < value.length; off += 128 * 1024) {
            int n = Math.min(128 * 1024, value.length - off);
            ch.writeInbound(Unpooled.copiedBuffer(value, off, n));
            long arrived = off + n;
            // Reserved ahead of the bytes: at most four times what came, never past the bulk.
            long reserved = decoder.reservedInputBytes();
            assertTrue(arrived + reserved <= Math.max(1 << 20, 4 * arrived), arrived + " + " + reserved);
            assertTrue(arrived + reserved <= value.length);
        }
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n")));
        byte[][] r = ch.readInbound();
        assertArrayEquals(value, r[0]);
        ch.finishAndReleaseAll();
    }

    @Test
    void pipelinedRequestsInOneBuffer() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) sb.append("*2\r\n$4\r\nECHO\r\n$").append(String.valueOf(i).length()).append("\r\n").append(i).append("\r\n");
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes(sb.toString())));
        List<byte[][]> got = drain(ch);
        assertEquals(1000, got.size());
        for (int i = 0; i < 1000; i++) assertEquals(List.of("ECHO", Integer.toString(i)), strings(got.get(i)));
        ch.finishAndReleaseAll();
    }

    @Test
    void binarySafeArguments() {
        byte[] arg = new byte[256];
        for (int i = 0; i < 256; i++) arg[i] = (byte) i;
        ByteBuf in = Unpooled.buffer();
        in.writeBytes(bytes("*2\r\n$4\r\nECHO\r\n$256\r\n")).writeBytes(arg).writeBytes(bytes("\r\n"));
        EmbeddedChannel ch = channel();
        ch.writeInbound(in);
        byte[][] r = ch.readInbound();
        assertArrayEquals(arg, r[1]);
        ch.finishAndReleaseAll();
    }

    @Test
    void emptyAndNegativeMultibulksAreSkipped() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*0\r\n*-1\r\n*-10\r\n\r\n\n   \r\n*1\r\n$4\r\nPING\r\n")));
        List<byte[][]> got = drain(ch);
        assertEquals(1, got.size());
        assertEquals(List.of("PING"), strings(got.get(0)));
        ch.finishAndReleaseAll();
    }

    @Test
    void emptyBulkArgument() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n")));
        assertEquals(List.of("ECHO", ""), strings(ch.readInbound()));
        ch.finishAndReleaseAll();
    }

    @Test
    void inlineQuotesAndEscapes() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes(
                "SET \"a\\x41\\n\\t\\\\\\\"b\" 'it\\'s' \"\" plain\"quoted part\"\r\n")));
        assertEquals(List.of("SET", "aA\n\t\\\"b", "it's", "", "plainquoted part"), strings(ch.readInbound()));
        ch.finishAndReleaseAll();
    }

    @Test
    void anInlineLineWithANulByteWaitsForANewlineItNeverFinds() {
        // As redis-server 7.0.15: strchr stops at the NUL, so no newline is found (nor the PING's
        // after it) until the line is too big.
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("ECHO a\0b c\r\nPING\r\n")));
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
        assertEquals("Protocol error: too big inline request", protocolError("ECHO a\0b c\r\n" + "x".repeat(70_000)));
    }

    @Test
    void unbalancedQuotes() {
        assertEquals("Protocol error: unbalanced quotes in request", protocolError("set \"\"\"test-key\"\"\" v\r\n"));
        assertEquals("Protocol error: unbalanced quotes in request", protocolError("echo \"abc\r\n"));
        assertEquals("Protocol error: unbalanced quotes in request", protocolError("echo 'a'b\r\n"));
    }

    @Test
    void requestsBeforeAnErrorAreKept() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("PING\r\n*1\r\n$4\r\nPING\r\n*1\r\nfoo\r\nPING\r\n")));
        List<byte[][]> got = drain(ch);
        assertEquals(3, got.size());
        assertEquals(List.of("PING"), strings(got.get(0)));
        assertEquals(List.of("PING"), strings(got.get(1)));
        assertEquals("Protocol error: expected '$', got 'f'", Request.errorMessage(got.get(2)));
        ch.finishAndReleaseAll();
    }

    @Test
    void lengthsOfOneToSevenDigitsWholeOrSplit() {
        StringBuilder in = new StringBuilder();
        List<List<String>> expected = new ArrayList<>();
        for (int n : new int[] {1, 12, 123, 1234, 12345, 123456, 1234567}) {
            String value = "v".repeat(n);
            in.append("*2\r\n$3\r\nSET\r\n$").append(n).append("\r\n").append(value).append("\r\n");
            expected.add(List.of("SET", value));
        }
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.copiedBuffer(bytes(in.toString())));
        List<List<String>> got = new ArrayList<>();
        for (byte[][] r : drain(ch)) got.add(strings(r));
        assertEquals(expected, got);
        ch.finishAndReleaseAll();
        // Ten or more arguments (a two-digit count) and headers cut just before or after their CR.
        assertSplitsDecodeTo("*11\r\n$4\r\nMSET\r\n" + "$1\r\na\r\n$10\r\n0123456789\r\n".repeat(5) + "*1\r\n$4\r\nPING\r\n",
                List.of(List.of("MSET", "a", "0123456789", "a", "0123456789", "a", "0123456789", "a", "0123456789", "a", "0123456789"),
                        List.of("PING")));
    }

    @Test
    void multibulkLengthErrors() {
        assertEquals("Protocol error: invalid multibulk length", protocolError("*3000000000\r\n"));
        assertEquals("Protocol error: invalid multibulk length", protocolError("*abc\r\n"));
        assertEquals("Protocol error: invalid multibulk length", protocolError("*\r\n"));
        assertEquals("Protocol error: invalid multibulk length", protocolError("*01\r\n"));
        assertEquals("Protocol error: invalid multibulk length", protocolError("*+1\r\n"));
        assertEquals("Protocol error: too big mbulk count string", protocolError("*" + "1".repeat(70_000)));
    }

    @Test
    void bulkLengthErrors() {
        assertEquals("Protocol error: invalid bulk length", protocolError("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$2000000000\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$blabla\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*1\r\n$629145600\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*1\r\n$\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*1\r\n$01\r\nx\r\n"));
        assertEquals("Protocol error: invalid bulk length", protocolError("*1\r\n$1x\r\nabc\r\n"));
        assertEquals("Protocol error: too big bulk count string", protocolError("*1\r\n$" + "1".repeat(70_000)));
    }

    @Test
    void expectedDollar() {
        assertEquals("Protocol error: expected '$', got 'f'", protocolError("*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n"));
        assertEquals("Protocol error: expected '$', got 'f'", protocolError("*1\r\nfoo\r\n"));
        assertEquals("Protocol error: expected '$', got ':'", protocolError("*1\r\n:1\r\n"));
    }

    @Test
    void tooBigInlineRequest() {
        assertEquals("Protocol error: too big inline request", protocolError("a".repeat(100 * 1024)));
        assertEquals("Protocol error: too big inline request", protocolError("a".repeat(100 * 1024) + "\r\n"));
        // Redis's desync regression: a NUL-led line that never ends.
        assertEquals("Protocol error: too big inline request", protocolError("\0" + "payload".repeat(10_000)));
        assertEquals("Protocol error: too big mbulk count string", protocolError("*\0" + "payload".repeat(10_000)));
    }

    @Test
    void lineJustUnderTheInlineLimitIsAccepted() {
        EmbeddedChannel ch = channel();
        // 64 KB up to the newline, the '\r' included: the most that can be pending without a newline.
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("ECHO " + "x".repeat(RespDecoder.INLINE_MAX_SIZE - 6) + "\r\n")));
        byte[][] r = ch.readInbound();
        assertEquals(RespDecoder.INLINE_MAX_SIZE - 6, r[1].length);
        ch.finishAndReleaseAll();
    }

    @Test
    void unauthenticatedLimits() {
        authRequired = true;
        assertEquals("Protocol error: unauthenticated multibulk length", protocolError("*11\r\n"));
        assertEquals("Protocol error: unauthenticated bulk length", protocolError("*1\r\n$16385\r\n"));
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*2\r\n$4\r\nAUTH\r\n$16384\r\n")));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[16384]));
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n")));
        byte[][] r = ch.readInbound();
        assertFalse(Request.isProtocolError(r));
        assertEquals(16384, r[1].length);
        ch.finishAndReleaseAll();
        authRequired = false;
        ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*11\r\n$1\r\n")));
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void hugeMultibulkHeaderDoesNotPreallocate() {
        EmbeddedChannel ch = channel();
        long before = usedHeap();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*2147483647\r\n$1\r\na\r\n$1\r\nb\r\n")));
        assertNull(ch.readInbound());
        assertTrue(usedHeap() - before < 64 * 1024 * 1024, "a 2^31 element header must not allocate its array");
        ch.finishAndReleaseAll();
    }

    @Test
    void hugeBulkHeaderDoesNotPreallocate() {
        EmbeddedChannel ch = channel();
        long before = usedHeap();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$536870912\r\nabc")));
        assertNull(ch.readInbound());
        assertTrue(usedHeap() - before < 64 * 1024 * 1024, "a 512 MB bulk header must not allocate 512 MB");
        ch.finishAndReleaseAll();
    }

    @Test
    void queryBufferLimitClosesWithoutReply() {
        queryBufferLimit = 1024 * 1024;
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$2000000\r\n")));
        for (int i = 0; i < 10 && ch.isOpen(); i++) ch.writeInbound(Unpooled.wrappedBuffer(new byte[200_000]));
        assertFalse(ch.isOpen());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
