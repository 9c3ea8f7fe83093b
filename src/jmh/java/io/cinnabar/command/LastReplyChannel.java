package io.cinnabar.command;

import java.util.concurrent.Executor;

/**
 * A client's network side without a network: keeps the last replies the Dispatcher handed over,
 * so a benchmark can run commands in-process exactly as a connection's batches do.
 */
final class LastReplyChannel implements ClientChannel {
    private byte[] last = new byte[0];

    byte[] last() {
        return last;
    }

    @Override public void send(byte[] replies, boolean closeAfterReply) { last = replies; }
    @Override public Runnable delivery(byte[] replies, boolean closeAfterReply) { return () -> last = replies; }
    @Override public Executor executor() { return Runnable::run; }
    @Override public void push(byte[] bytes) { }
    @Override public void close() { }
    @Override public String remoteAddress() { return "127.0.0.1:1"; }
    @Override public String localAddress() { return "127.0.0.1:6379"; }
}
