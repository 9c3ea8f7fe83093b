package io.cinnabar.network;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClientChannel;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.MasterConnector;
import io.cinnabar.persistence.RespCommandBuffer;
import io.cinnabar.protocol.RespDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A replica's connection to its master, as Redis's syncWithMaster and readSyncBulkPayload see it:
 * the handshake's replies read line by line, the RDB payload ("$length" or "$EOF:mark", after
 * newlines that keep the link alive) written to a file, then the replication stream decoded as
 * any client's requests and run, in order, as the master client's commands. The client's replies
 * go nowhere (Redis's master client gets none), but for REPLCONF ACK. Event loop.
 */
final class MasterConnection extends ChannelInboundHandlerAdapter implements MasterConnector.Link, ClientChannel {
    private static final int MARK_LENGTH = 40;

    private enum State { HANDSHAKE, PAYLOAD_HEADER, PAYLOAD, LOADING, STREAM }

    private final Dispatcher dispatcher;
    private final List<byte[][]> handshake;
    private final Path payloadFile;
    private final MasterConnector.Events events;
    private volatile Channel channel;
    private State state = State.HANDSHAKE;
    private int step;
    private ByteBuf input;
    private FileChannel file;
    private long payloadRead, payloadLength;
    private byte[] eofMark;
    private String failure;
    private boolean closedReported, closeRequested;

    /** Stream: the batch being read, and the client that runs it. */
    private List<byte[][]> batch = new ArrayList<>();
    private Client master;

    MasterConnection(Dispatcher dispatcher, List<byte[][]> handshake, Path payloadFile, MasterConnector.Events events) {
        this.dispatcher = dispatcher;
        this.handshake = handshake;
        this.payloadFile = payloadFile;
        this.events = events;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    void attach(Channel ch) {
        channel = ch;
        if (closeRequested) ch.close();
    }

    /** Runs task on the keyspace thread, in the order given. */
    private void onKeyspace(Runnable task) {
        dispatcher.server().thread().execute(task);
    }

    // ---- handshake and payload ----

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        input = ctx.alloc().buffer(1024);
        onKeyspace(events::connected);
        sendStep(ctx);
        ctx.fireChannelActive();
    }

    private void sendStep(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(Unpooled.wrappedBuffer(RespCommandBuffer.encode(handshake.get(step))));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof byte[][]) {
            batch.add((byte[][]) msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        try {
            input.writeBytes(in);
        } finally {
            in.release();
        }
        if (state != State.LOADING) {
            onKeyspace(events::heard);
            try {
                advance(ctx);
            } catch (IOException e) {
                fail(ctx, "I/O error trying to sync with MASTER: " + e.getMessage());
            }
        }
    }

    private void advance(ChannelHandlerContext ctx) throws IOException {
        while (true) {
            switch (state) {
                case HANDSHAKE -> {
                    String line = readLine();
                    if (line == null) return;
                    if (!handshakeReply(ctx, line)) return;
                }
                case PAYLOAD_HEADER -> {
                    String line = readLine();
                    if (line == null) return;
                    if (!payloadHeader(ctx, line)) return;
                }
                case PAYLOAD -> {
                    if (!payloadBytes()) return;
                    payloadDone(ctx);
                    return;
                }
                default -> {
                    return;
                }
            }
        }
    }

    /** The reply to handshake step; false when the link failed. */
    private boolean handshakeReply(ChannelHandlerContext ctx, String line) {
        String command = new String(handshake.get(step)[0], StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
        boolean error = line.startsWith("-");
        switch (command) {
            case "PING" -> {
                if (error && !line.startsWith("-NOAUTH") && !line.startsWith("-NOPERM")
                        && !line.startsWith("-ERR operation not permitted")) {
                    fail(ctx, "Error reply to PING from master: '" + line + "'");
                    return false;
                }
            }
            case "AUTH" -> {
                if (error) {
                    fail(ctx, "Unable to AUTH to MASTER: " + line);
                    return false;
                }
            }
            case "PSYNC" -> {
                if (line.isEmpty()) return true; // a newline keeping the link alive
                return psyncReply(ctx, line);
            }
            default -> {
                if (error) NettyServer.log.info("(Non critical) Master does not understand REPLCONF: {}", line);
            }
        }
        step++;
        sendStep(ctx);
        return true;
    }

    private boolean psyncReply(ChannelHandlerContext ctx, String line) {
        if (line.startsWith("+FULLRESYNC")) {
            String[] words = line.split(" ");
            long offset = -1;
            String replid = words.length > 1 ? words[1] : "";
            try {
                if (words.length > 2) offset = Long.parseLong(words[2]);
            } catch (NumberFormatException e) {
                offset = -1;
            }
            if (replid.length() != MARK_LENGTH || offset < 0) {
                NettyServer.log.warn("Master replied with wrong +FULLRESYNC syntax.");
            }
            String id = replid;
            long at = offset;
            onKeyspace(() -> events.fullResync(id, at));
            state = State.PAYLOAD_HEADER;
            return true;
        }
        if (line.startsWith("+CONTINUE")) {
            String replid = line.substring("+CONTINUE".length()).trim();
            // What follows is the stream, which waits, unread, for the master client.
            state = State.LOADING;
            ctx.channel().config().setAutoRead(false);
            onKeyspace(() -> events.continued(replid));
            return false;
        }
        onKeyspace(() -> events.psyncRefused(line));
        if (line.startsWith("-NOMASTERLINK") || line.startsWith("-LOADING")) {
            fail(ctx, "Master is currently unable to PSYNC but should be in the future: " + line);
        } else {
            fail(ctx, "Unexpected reply to PSYNC from master: " + line);
        }
        return false;
    }

    /** The line before the payload: newlines while the master prepares it, then "$length" or "$EOF:mark". */
    private boolean payloadHeader(ChannelHandlerContext ctx, String line) throws IOException {
        if (line.isEmpty()) return true;
        if (line.startsWith("-")) {
            fail(ctx, "MASTER aborted replication with an error: " + line.substring(1));
            return false;
        }
        if (!line.startsWith("$")) {
            fail(ctx, "Bad protocol from MASTER, the first byte is not '$' (we received '" + line
                    + "'), are you sure the host and port are right?");
            return false;
        }
        if (line.startsWith("$EOF:") && line.length() >= 5 + MARK_LENGTH) {
            eofMark = line.substring(5, 5 + MARK_LENGTH).getBytes(StandardCharsets.US_ASCII);
            payloadLength = -1;
        } else {
            try {
                payloadLength = Long.parseLong(line.substring(1));
            } catch (NumberFormatException e) {
                fail(ctx, "Bad protocol from MASTER: '" + line + "'");
                return false;
            }
        }
        long length = payloadLength;
        onKeyspace(() -> events.receiving(length));
        file = FileChannel.open(payloadFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        state = State.PAYLOAD;
        return true;
    }

    /** Writes what arrived of the payload; true once it is all in the file (what follows stays in input). */
    private boolean payloadBytes() throws IOException {
        if (eofMark == null) {
            int n = (int) Math.min(input.readableBytes(), payloadLength - payloadRead);
            writeToFile(n);
            report();
            return payloadRead == payloadLength;
        }
        int at = indexOfMark();
        if (at >= 0) {
            writeToFile(at);
            input.skipBytes(MARK_LENGTH);
            return true;
        }
        // The mark may be arriving: its first bytes stay in input until the rest comes.
        writeToFile(Math.max(0, input.readableBytes() - (MARK_LENGTH - 1)));
        report();
        return false;
    }

    private int indexOfMark() {
        int start = input.readerIndex(), end = input.writerIndex() - MARK_LENGTH;
        outer:
        for (int i = start; i <= end; i++) {
            for (int j = 0; j < MARK_LENGTH; j++) {
                if (input.getByte(i + j) != eofMark[j]) continue outer;
            }
            return i - start;
        }
        return -1;
    }

    private void writeToFile(int n) throws IOException {
        if (n <= 0) return;
        int written = 0;
        while (written < n) written += input.getBytes(input.readerIndex() + written, file, n - written);
        input.skipBytes(n);
        payloadRead += n;
        input.discardSomeReadBytes();
    }

    private void report() {
        long read = payloadRead, total = payloadLength;
        onKeyspace(() -> events.transferring(read, total));
    }

    private void payloadDone(ChannelHandlerContext ctx) throws IOException {
        file.force(true);
        file.close();
        file = null;
        state = State.LOADING;
        // The stream after the payload waits, unread, until the keyspace thread has loaded it.
        ctx.channel().config().setAutoRead(false);
        long read = payloadRead;
        onKeyspace(() -> {
            events.transferring(read, read);
            events.payload(payloadFile);
        });
    }

    /** One line up to '\n' without its "\r\n"; null until a whole line is there. */
    private String readLine() {
        int nl = input.indexOf(input.readerIndex(), input.writerIndex(), (byte) '\n');
        if (nl < 0) return null;
        int end = nl > input.readerIndex() && input.getByte(nl - 1) == '\r' ? nl - 1 : nl;
        String line = input.toString(input.readerIndex(), end - input.readerIndex(), StandardCharsets.UTF_8);
        input.readerIndex(nl + 1);
        input.discardSomeReadBytes();
        return line;
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (failure == null) failure = why;
        ctx.close();
    }

    // ---- the stream ----

    @Override
    public void stream(Client client) {
        Channel ch = channel;
        ch.eventLoop().execute(() -> {
            if (!ch.isActive()) return;
            master = client;
            state = State.STREAM;
            RespDecoder decoder = new RespDecoder(() -> Long.MAX_VALUE, () -> Long.MAX_VALUE, () -> false);
            ch.pipeline().addBefore("master", "resp", decoder);
            ByteBuf rest = input;
            input = null;
            if (rest.isReadable()) {
                ch.pipeline().fireChannelRead(rest);
                ch.pipeline().fireChannelReadComplete();
            } else {
                rest.release();
            }
            ch.config().setAutoRead(true);
        });
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state != State.STREAM || batch.isEmpty()) return;
        List<byte[][]> run = batch;
        batch = new ArrayList<>();
        Client client = master;
        onKeyspace(() -> events.run(() -> dispatcher.executeBatch(client, run)));
    }

    // ---- Link ----

    @Override
    public ClientChannel clientChannel() {
        return this;
    }

    @Override
    public void ack(long offset) {
        Channel ch = channel;
        if (ch == null) return;
        byte[][] command = {bytes("REPLCONF"), bytes("ACK"), bytes(Long.toString(offset))};
        ch.writeAndFlush(Unpooled.wrappedBuffer(RespCommandBuffer.encode(command)));
    }

    @Override
    public void close() {
        closeRequested = true;
        Channel ch = channel;
        if (ch != null) ch.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (input != null) {
            input.release();
            input = null;
        }
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // the file is dropped anyway
            }
        }
        Client client = master;
        if (client != null) onKeyspace(() -> dispatcher.disconnected(client));
        closed(failure != null ? failure : closeRequested ? null : "Connection with master lost.");
        ctx.fireChannelInactive();
    }

    /** The connection ended (or never began); said once. */
    void closed(String why) {
        if (closedReported) return;
        closedReported = true;
        onKeyspace(() -> events.closed(why));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, "Error condition on socket for SYNC: " + cause.getMessage());
    }

    // ---- ClientChannel: the master client's, whose replies go nowhere ----

    @Override
    public void send(byte[] replies, boolean closeAfterReply) {
        if (closeAfterReply) close();
    }

    @Override
    public Runnable delivery(byte[] replies, boolean closeAfterReply) {
        return () -> send(replies, closeAfterReply);
    }

    @Override
    public void push(byte[] bytes) {
    }

    @Override
    public java.util.concurrent.Executor executor() {
        Channel ch = channel;
        return ch != null ? ch.eventLoop() : Runnable::run;
    }

    @Override
    public boolean open() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    @Override
    public String remoteAddress() {
        Channel ch = channel;
        return ch == null ? "" : ClientConnection.format(ch.remoteAddress());
    }

    @Override
    public String localAddress() {
        Channel ch = channel;
        return ch == null ? "" : ClientConnection.format(ch.localAddress());
    }

    @Override
    public boolean loopback() {
        Channel ch = channel;
        return ch != null && ClientConnection.isLoopback(ch.remoteAddress());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
