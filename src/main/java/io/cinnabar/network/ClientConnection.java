package io.cinnabar.network;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClientChannel;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.KeyspaceThread;
import io.cinnabar.command.server.ClientInfo;
import io.cinnabar.protocol.Request;
import io.cinnabar.protocol.RespDecoder;
import io.cinnabar.protocol.RespWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One socket. Collects the requests decoded from each read into a batch and hands the batch to
 * the keyspace thread; a client has at most one batch in flight, and requests that arrive
 * meanwhile wait here to form the next batch, which goes as soon as the replies come back.
 * Reading goes on while a batch is in flight (toggling autoRead costs two epoll_ctl calls per
 * request for a plain request/reply client); it pauses only when that many requests or bytes are
 * already waiting, and resumes once they are handed over.
 * <p>
 * Reading does not wait for the socket to drain: like Redis, the server keeps serving a client
 * that writes a long pipeline before reading any reply (Jedis pipelines do exactly that), and
 * buffers its replies. Waiting there would deadlock such a client as soon as both directions'
 * socket buffers are full. What bounds the buffered output is client-output-buffer-limit, as in
 * Redis (unlimited for normal clients by default).
 */
final class ClientConnection extends ChannelInboundHandlerAdapter implements ClientChannel {
    private final Dispatcher dispatcher;
    private final Channel channel;
    private final Client client;
    private static final int MAX_WAITING_REQUESTS = 4096;
    /** Above this many requests, a batch's list is dropped once it ran rather than reused. */
    private static final int KEPT_BATCH = 64;
    private static final long MAX_WAITING_BYTES = 4 * 1024 * 1024;
    /** Unparsed input from which each read asks the keyspace thread to check maxmemory-clients. */
    private static final long BIG_PENDING_INPUT = 32 * 1024;
    /** A reply this big makes used_memory count the clients' buffers again before the next command. */
    private static final int BIG_OUTPUT = 32 * 1024;
    /** The largest pooled buffer one outgoing reply buffer takes (see {@link #slices}). */
    private static final int OUTGOING_SLICE = 256 * 1024;

    private List<byte[][]> batch = new ArrayList<>();
    /**
     * The batch in flight, and the task running it. Its list is emptied when the replies come
     * back (the keyspace thread is done with it then, or copied what waits), so an idle
     * connection holds no request's arguments, and collects the next batch after that: no list
     * and no task allocated per batch.
     */
    private List<byte[][]> running = new ArrayList<>();
    private final Runnable runBatch = this::runBatch;
    private long batchBytes;
    private boolean inFlight;
    /**
     * Commands running on this connection's event loop (io-threads 1): the reply waiting for the
     * router to deliver it, and the task that does, allocated once.
     */
    private ByteBuf replyDue;
    private boolean closeDue;
    private final Runnable deliverDue = () -> {
        ByteBuf replies = replyDue;
        replyDue = null;
        deliver(replies, closeDue);
    };
    private final OutputBufferLimit outputLimit;
    /** Sends replies without the pipeline where it may; null where it may not. */
    private final WriteThrough writeThrough;
    /** Keyspace thread: replies handed out to wait for the AOF (delivery()), and the push batch being filled. */
    private long heldCreated;
    private PushBatch openPushes;
    /** Event loop: held replies delivered so far, and push batches waiting for earlier held replies. */
    private long heldDelivered;
    private final java.util.ArrayDeque<PushBatch> pushesAfterHeld = new java.util.ArrayDeque<>();

    private final ReplyRouter replies;

    ClientConnection(Dispatcher dispatcher, ReplyRouter replies, Channel channel, long id, boolean authenticated) {
        this.dispatcher = dispatcher;
        this.replies = replies;
        this.channel = channel;
        this.client = new Client(id, this, authenticated);
        this.outputLimit = new OutputBufferLimit(dispatcher.server().config());
        this.writeThrough = WriteThrough.of(channel);
    }

    Client client() {
        return client;
    }

    private RespDecoder decoder;

    void readingWith(RespDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    public long pendingInputBytes() {
        RespDecoder d = decoder;
        return d == null ? 0 : d.pendingInputBytes();
    }

    @Override
    public io.cinnabar.command.SyncConsole syncConsole() {
        return EpollSyncConsole.of(channel);
    }

    @Override
    public long outputHardLimit() {
        return OutputBufferLimit.hardLimit(dispatcher.server().config(), limitClass());
    }

    @Override
    public long outputCountLimit() {
        int cls = limitClass();
        if (cls == io.cinnabar.config.ClientOutputBufferLimit.Limits.REPLICA) return 0;
        return io.cinnabar.config.ClientOutputBufferLimit.hardLimit(dispatcher.server().config(), cls);
    }

    @Override
    public long partialRequestBytes() {
        RespDecoder d = decoder;
        return d == null ? 0 : d.partialRequestBytes();
    }

    @Override
    public long reservedInputBytes() {
        RespDecoder d = decoder;
        return d == null ? 0 : d.reservedInputBytes();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        dispatcher.server().thread().execute(() -> dispatcher.server().addClient(client));
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        byte[][] r = (byte[][]) msg;
        batch.add(r);
        if (!Request.isProtocolError(r)) for (byte[] a : r) batchBytes += a.length;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // A big request still arriving may alone pass maxmemory-clients (Redis checks after each read).
        if (pendingInputBytes() + partialRequestBytes() >= BIG_PENDING_INPUT) buffersGrew();
        if (batch.isEmpty()) return;
        if (!inFlight) {
            dispatch();
        } else if (batch.size() >= MAX_WAITING_REQUESTS || batchBytes >= MAX_WAITING_BYTES) {
            channel.config().setAutoRead(false);
        }
    }

    /** Keyspace thread. */
    private void runBatch() {
        dispatcher.executeBatch(client, running);
    }

    private void dispatch() {
        List<byte[][]> collected = batch;
        batch = running;
        running = collected;
        batchBytes = 0;
        inFlight = true;
        BatchSubmitter.current().submit(runBatch, channel.eventLoop(), dispatcher.server().thread());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // Netty fires this from a task of its own. On the keyspace's own event loop (io-threads 1)
        // the client goes at once, before the batches read in the same turn run: one that closed
        // holding big buffers must not make them evict other clients (Redis frees it as it reads EOF).
        KeyspaceThread keyspace = dispatcher.server().thread();
        Runnable gone = () -> dispatcher.disconnected(client);
        if (keyspace.inThread()) keyspace.runNow(gone); else keyspace.execute(gone);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and broken pipes are a client's business; anything else is still only this socket's.
        if (!(cause instanceof IOException)) {
            NettyServer.log.warn("Closing client {} after error", client.id(), cause);
        }
        ctx.close();
    }

    // ---- ClientChannel: called on the keyspace thread ----

    @Override
    public void send(byte[] encoded, boolean closeAfterReply) {
        send(Unpooled.wrappedBuffer(encoded), closeAfterReply);
    }

    @Override
    public void send(RespWriter encoded, boolean closeAfterReply) {
        send(outgoing(encoded), closeAfterReply);
    }

    private void send(ByteBuf encoded, boolean closeAfterReply) {
        openPushes = null; // pushes from now on go after these replies
        if (replyDue == null && channel.eventLoop().inEventLoop()) {
            replyDue = encoded;
            closeDue = closeAfterReply;
            replies.post(channel.eventLoop(), deliverDue);
        } else {
            replies.post(channel.eventLoop(), () -> deliver(encoded, closeAfterReply));
        }
    }

    @Override
    public void sendPart(RespWriter encoded) {
        ByteBuf part = outgoing(encoded);
        openPushes = null; // pushes from now on go after this part
        replies.post(channel.eventLoop(), () -> {
            if (withinOutputLimit(part)) channel.writeAndFlush(part, channel.voidPromise());
        });
    }

    /**
     * The writer's bytes in a buffer Netty writes as it is: where commands run on this
     * connection's event loop (io-threads 1), a pooled direct buffer of its allocator, instead of
     * a byte[] copy that Netty would wrap and copy again into a direct buffer.
     */
    private ByteBuf outgoing(RespWriter encoded) {
        if (!channel.eventLoop().inEventLoop()) return Unpooled.wrappedBuffer(encoded.takeBytes());
        int size = encoded.size();
        ByteBuf out;
        if (size == 0) {
            out = Unpooled.EMPTY_BUFFER;
        } else if (size <= OUTGOING_SLICE) {
            out = channel.alloc().directBuffer(size).writeBytes(encoded.bytes(), 0, size);
        } else {
            out = slices(encoded.bytes(), size);
        }
        encoded.reset();
        return out;
    }

    /**
     * Big replies go out as pooled slices: a buffer larger than the allocator's 1 MB chunks is a
     * fresh, zero-filled direct buffer of its own each time (with 1 MB values, zeroing those
     * pages was a third of the server's CPU while GETs were answered).
     */
    private ByteBuf slices(byte[] bytes, int size) {
        io.netty.buffer.CompositeByteBuf out = channel.alloc().compositeDirectBuffer((size - 1) / OUTGOING_SLICE + 1);
        for (int at = 0; at < size; at += OUTGOING_SLICE) {
            int n = Math.min(OUTGOING_SLICE, size - at);
            out.addComponent(true, channel.alloc().directBuffer(n).writeBytes(bytes, at, n));
        }
        return out;
    }

    @Override
    public Runnable delivery(byte[] encoded, boolean closeAfterReply) {
        return delivery(Unpooled.wrappedBuffer(encoded), closeAfterReply);
    }

    @Override
    public Runnable delivery(RespWriter encoded, boolean closeAfterReply) {
        return delivery(outgoing(encoded), closeAfterReply);
    }

    private Runnable delivery(ByteBuf encoded, boolean closeAfterReply) {
        openPushes = null; // pushes from now on go after these replies
        heldCreated++;
        return () -> {
            deliver(encoded, closeAfterReply);
            heldDelivered++;
            while (!pushesAfterHeld.isEmpty() && pushesAfterHeld.peek().heldBefore <= heldDelivered) {
                writePushes(pushesAfterHeld.poll());
            }
        };
    }

    /**
     * Pushes of one round to this connection, written with one flush. A batch is closed when
     * replies are handed out after it, so that nothing overtakes what was generated before it; it
     * waits for the held replies (appendfsync always) that were handed out before its first push.
     */
    private static final class PushBatch {
        final long heldBefore;
        final List<byte[]> messages = new ArrayList<>(4);

        PushBatch(long heldBefore) {
            this.heldBefore = heldBefore;
        }
    }

    @Override
    public void push(byte[] bytes) {
        PushBatch open = openPushes;
        if (open != null) {
            synchronized (open) {
                if (!open.messages.isEmpty()) {
                    open.messages.add(bytes);
                    return;
                }
            }
        }
        PushBatch batch = new PushBatch(heldCreated);
        batch.messages.add(bytes);
        openPushes = batch;
        replies.post(channel.eventLoop(), () -> {
            if (batch.heldBefore > heldDelivered || !pushesAfterHeld.isEmpty()) pushesAfterHeld.add(batch);
            else writePushes(batch);
        });
    }

    /** On the event loop: the batch's messages, unless they pass the client's output buffer limit. */
    private void writePushes(PushBatch batch) {
        List<byte[]> messages;
        synchronized (batch) {
            messages = new ArrayList<>(batch.messages);
            batch.messages.clear();
        }
        if (!channel.isActive()) return;
        for (byte[] m : messages) {
            ByteBuf message = Unpooled.wrappedBuffer(m);
            if (overOutputLimit(message)) {
                unflushedWrites = 0;
                closeForOutputLimit();
                return;
            }
            channel.write(message, channel.voidPromise());
            unflushedWrites++;
        }
        unflushedWrites = 0;
        channel.flush();
    }

    @Override
    public java.util.concurrent.Executor executor() {
        return channel.eventLoop();
    }

    /** On the event loop: writes one batch's replies and starts the next batch if one waits. */
    private void deliver(ByteBuf replies, boolean closeAfterReply) {
        if (!withinOutputLimit(replies)) return;
        int size = replies.readableBytes();
        if (size > 0 && closeAfterReply) {
            channel.writeAndFlush(replies).addListener(written -> closeAfterLastReply());
        } else if (size > 0 && writeThrough != null) {
            writeThrough.write(replies);
        } else if (size > 0) {
            // A failed write reaches exceptionCaught, which closes the socket: no promise per reply.
            channel.writeAndFlush(replies, channel.voidPromise());
        } else {
            replies.release();
            if (closeAfterReply) channel.close();
        }
        inFlight = false;
        // A list a long pipeline grew is not kept for the connection's lifetime.
        if (running.size() > KEPT_BATCH) running = new ArrayList<>(); else running.clear();
        if (closeAfterReply) return;
        if (!batch.isEmpty()) dispatch();
        if (!channel.config().isAutoRead()) channel.config().setAutoRead(true);
    }

    /**
     * QUIT and the like: the FIN goes out right behind the reply, as Redis's close follows its
     * write. Netty's close first reads SO_LINGER and deregisters the socket; a client that had
     * read the reply and written its next command meanwhile (Lettuce after QUIT) got a reset
     * instead of an end of stream, 572 times in 600 against none with Redis. Not under TLS,
     * whose close_notify the close still has to write.
     */
    private void closeAfterLastReply() {
        if (channel instanceof io.netty.channel.socket.DuplexChannel duplex && channel.isActive()
                && channel.pipeline().get(io.netty.handler.ssl.SslHandler.class) == null) {
            duplex.shutdownOutput();
        }
        channel.close();
    }

    /** False when replies would pass the output limit: as Redis, they are dropped and the client closed. */
    private boolean withinOutputLimit(ByteBuf replies) {
        if (!overOutputLimit(replies)) return true;
        replies.release();
        closeForOutputLimit();
        return false;
    }

    /** Whether the replies in adding (null: none) would take the pending output past its limit. */
    private boolean overOutputLimit(ByteBuf adding) {
        int size = adding == null ? 0 : adding.readableBytes();
        // Output queued for a client that does not read (a tracking redirection, a subscriber)
        // counts before the next command, as Redis's evicts clients before it sleeps.
        if (size >= BIG_OUTPUT) buffersGrew();
        long pending = pendingOutputBytes();
        boolean over = size + pending > 0 && outputLimit.exceeded(pending, adding, limitClass());
        if (!over && outputLimit.softLimitPending() && !softLimitCheckScheduled) {
            // No more traffic may come to look again: Redis's cron closes such a client too.
            softLimitCheckScheduled = true;
            channel.eventLoop().schedule(this::recheckSoftLimit, 250, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        return over;
    }

    private boolean softLimitCheckScheduled;

    /** The client's buffers grew a lot: maxmemory-clients and used memory look at it again. */
    private void buffersGrew() {
        if (dispatcher.clientEvictionOn()) dispatcher.clientBuffersGrew();
        dispatcher.server().memoryLimit().clientBuffersGrew();
    }

    /** Redis's closeClientOnOutputBufferLimitReached, with its log line. */
    @Override
    public void closeForOutputLimit() {
        String info;
        try {
            info = ClientInfo.line(client, dispatcher.server().keyspace().mstime());
        } catch (RuntimeException e) { // read off the keyspace thread with io-threads > 1: the id will do
            info = "id=" + client.id();
        }
        NettyServer.log.warn("Client {} scheduled to be closed ASAP for overcoming of output buffer limits.", info);
        channel.close();
    }

    /** On the event loop, while output stays past a soft limit: closes the client once it stayed too long. */
    private void recheckSoftLimit() {
        softLimitCheckScheduled = false;
        if (!channel.isActive()) return;
        if (overOutputLimit(null)) {
            closeForOutputLimit();
        }
    }

    @Override
    public void close() {
        channel.close();
    }

    /** client-output-buffer-limit's class: replica once it took SYNC, pubsub when subscribed, else normal. */
    private int limitClass() {
        if ((client.replicaFlags() & io.cinnabar.command.ReplicaFlags.SYNCING) != 0) return io.cinnabar.config.ClientOutputBufferLimit.Limits.REPLICA;
        return client.subscribed() ? io.cinnabar.config.ClientOutputBufferLimit.Limits.PUBSUB : io.cinnabar.config.ClientOutputBufferLimit.Limits.NORMAL;
    }

    @Override
    public void sendFile(byte[] head, java.nio.channels.FileChannel file, byte[] tail, boolean thenClose, Runnable whenDone) {
        Runnable after = thenClose ? this::closeAfterLastReply : () -> { };
        replies.post(channel.eventLoop(), () -> FileTransfer.start(channel, head, file, tail, after, whenDone));
    }

    @Override
    public String remoteAddress() {
        return unixSocket() ? unixAddress() : format(channel.remoteAddress());
    }

    @Override
    public String localAddress() {
        return unixSocket() ? unixAddress() : format(channel.localAddress());
    }

    /** Redis's genClientAddrString for a unix socket client: the socket's path and port 0, both sides. */
    private String unixAddress() {
        return dispatcher.server().config().getString(io.cinnabar.config.ConfigOptions.UNIXSOCKET) + ":0";
    }

    @Override
    public boolean open() {
        return channel.isOpen();
    }

    /**
     * Bytes of replies queued and not yet taken by the socket. Netty's pending count adds its
     * entry overhead (96 bytes) for every queued write: a subscriber's backlog of 35-byte messages
     * counted almost four times its size against client-output-buffer-limit, and in omem.
     */
    @Override
    public long pendingOutputBytes() {
        ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
        if (pending == null) return 0;
        long entries = pending.size() + unflushedWrites;
        return Math.max(0, pending.totalPendingWriteBytes() - ENTRY_OVERHEAD * entries);
    }

    /** ChannelOutboundBuffer's overhead per entry, read from the property Netty reads it from. */
    private static final long ENTRY_OVERHEAD =
            io.netty.util.internal.SystemPropertyUtil.getInt("io.netty.transport.outboundBufferEntrySizeOverhead", 96);
    /** Writes queued and not flushed yet (a round of pushes), which Netty's size() leaves out. */
    private int unflushedWrites;

    @Override
    public boolean loopback() {
        return isLoopback(channel.remoteAddress());
    }

    @Override
    public boolean unixSocket() {
        return channel.remoteAddress() instanceof io.netty.channel.unix.DomainSocketAddress
                || channel.localAddress() instanceof io.netty.channel.unix.DomainSocketAddress;
    }

    /** 127.0.0.1 or ::1 exactly, as Redis compares the peer's text (127.0.0.2 is not local), or a unix socket. */
    static boolean isLoopback(SocketAddress a) {
        if (a instanceof io.netty.channel.unix.DomainSocketAddress) return true;
        if (!(a instanceof InetSocketAddress) || ((InetSocketAddress) a).getAddress() == null) return false;
        java.net.InetAddress ip = ((InetSocketAddress) a).getAddress();
        byte[] b = ip.getAddress();
        if (b.length == 4) return b[0] == 127 && b[1] == 0 && b[2] == 0 && b[3] == 1;
        for (int i = 0; i < 15; i++) if (b[i] != 0) return false;
        return b[15] == 1;
    }

    /** Redis's anetFormatAddr: "ip:port", IPv6 as inet_ntop writes it, in brackets ("[::1]:6379"). */
    static String format(SocketAddress a) {
        if (a instanceof InetSocketAddress) {
            InetSocketAddress i = (InetSocketAddress) a;
            if (i.getAddress() instanceof java.net.Inet6Address) return "[" + ipv6(i.getAddress().getAddress()) + "]:" + i.getPort();
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return host + ":" + i.getPort();
        }
        return String.valueOf(a);
    }

    /** inet_ntop's IPv6 text: lower-case groups, the longest run of two or more zero groups as "::". */
    static String ipv6(byte[] b) {
        int[] g = new int[8];
        for (int k = 0; k < 8; k++) g[k] = ((b[2 * k] & 0xff) << 8) | (b[2 * k + 1] & 0xff);
        int bestStart = -1, bestLen = 0;
        for (int k = 0; k < 8; ) {
            if (g[k] != 0) {
                k++;
                continue;
            }
            int start = k;
            while (k < 8 && g[k] == 0) k++;
            if (k - start > bestLen) {
                bestStart = start;
                bestLen = k - start;
            }
        }
        if (bestLen < 2) bestStart = -1;
        StringBuilder sb = new StringBuilder(39);
        for (int k = 0; k < 8; k++) {
            if (k == bestStart) {
                sb.append("::");
                k += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') sb.append(':');
            sb.append(Integer.toHexString(g[k]));
        }
        return sb.toString();
    }
}
