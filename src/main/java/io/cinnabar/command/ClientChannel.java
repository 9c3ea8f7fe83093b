package io.cinnabar.command;

import io.cinnabar.protocol.RespWriter;

/**
 * The network side of a client, as the keyspace thread sees it. Implemented by the network
 * package; every method is safe to call from the keyspace thread.
 */
public interface ClientChannel {
    /** Hands encoded replies back to the connection's event loop, then closes it if asked. */
    void send(byte[] replies, boolean closeAfterReply);

    /**
     * The same delivery as {@link #send}, as a task to run later on {@link #executor()}: replies
     * that wait for their writes to reach the AOF are released by the persistence thread, which
     * hands each executor the tasks due on it in one piece.
     */
    Runnable delivery(byte[] replies, boolean closeAfterReply);

    /**
     * {@link #send(byte[], boolean)} of what replies holds, which is then empty: a connection
     * may copy the bytes straight into its outgoing buffer instead of into a byte[] of their own.
     */
    default void send(RespWriter replies, boolean closeAfterReply) {
        send(replies.takeBytes(), closeAfterReply);
    }

    /** {@link #delivery(byte[], boolean)} of what replies holds, which is then empty (see {@link #send(RespWriter, boolean)}). */
    default Runnable delivery(RespWriter replies, boolean closeAfterReply) {
        return delivery(replies.takeBytes(), closeAfterReply);
    }

    /**
     * Hands what replies holds (then empty) to the connection before the batch of requests it
     * answers ends: the first part of the batch's replies, which the batch's {@link #send} follows.
     */
    default void sendPart(RespWriter replies) {
        push(replies.takeBytes());
    }

    /** Where {@link #delivery} tasks run (the connection's event loop). */
    java.util.concurrent.Executor executor();

    /**
     * Bytes that do not answer a request of this client: monitor lines, pub/sub messages,
     * invalidations. Written on the connection's event loop after what was sent before, without
     * ending the request batch in flight; past client-output-buffer-limit for the client's class
     * the connection is closed instead. Never waits for the client to read.
     */
    void push(byte[] bytes);

    /** Closes the connection without replying (CLIENT KILL). */
    void close();

    /**
     * After what was pushed so far, head, the file's bytes (read by position: the file may be
     * shared) and tail, as the client reads them, then the connection closed if thenClose: a
     * replica's RDB transfer, which no output buffer limit counts. whenDone runs (on any thread)
     * once this transfer no longer reads the file, sent or not; pushes made after that follow the tail.
     */
    default void sendFile(byte[] head, java.nio.channels.FileChannel file, byte[] tail, boolean thenClose, Runnable whenDone) {
        close();
        whenDone.run();
    }

    /** Closes the connection without replying because its replies passed the output buffer limit, logging why as Redis does. */
    default void closeForOutputLimit() {
        close();
    }

    /** "ip:port" of the peer. */
    String remoteAddress();

    /** "ip:port" of our side. */
    String localAddress();

    /** A connection to nowhere, for clients that are not connections (the AOF loader's, fixtures'): nothing is sent. */
    ClientChannel NOWHERE = new ClientChannel() {
        @Override
        public void send(byte[] replies, boolean closeAfterReply) {
        }

        @Override
        public Runnable delivery(byte[] replies, boolean closeAfterReply) {
            return () -> { };
        }

        @Override
        public void push(byte[] bytes) {
        }

        @Override
        public java.util.concurrent.Executor executor() {
            return Runnable::run;
        }

        @Override
        public void close() {
        }

        @Override
        public String remoteAddress() {
            return "";
        }

        @Override
        public String localAddress() {
            return "";
        }
    };
    /** Connected over the unix socket (CLIENT LIST flag U). */
    default boolean unixSocket() {
        return false;
    }

    /** False once the socket is closed; any thread. */
    default boolean open() {
        return true;
    }

    /** Bytes received but not yet a whole request (CLIENT LIST qbuf of other clients); any thread. */
    default long pendingInputBytes() {
        return 0;
    }

    /** Bytes of the arguments read so far of a request not yet whole; any thread. */
    default long partialRequestBytes() {
        return 0;
    }

    /** Bytes allocated for input still to arrive (a big bulk's array); any thread. */
    default long reservedInputBytes() {
        return 0;
    }

    /**
     * The socket itself, for the keyspace thread to talk to synchronously while it holds the
     * server (SCRIPT DEBUG SYNC), or null where the connection cannot lend it (TLS, a transport
     * without descriptors, an event loop other than the keyspace thread's).
     */
    default SyncConsole syncConsole() {
        return null;
    }

    /** Reply bytes that surely pass the hard client-output-buffer-limit of the client's class, however counted; 0: no limit. */
    default long outputHardLimit() {
        return 0;
    }

    /**
     * The hard client-output-buffer-limit of the client's class where Redis counts its reply
     * buffer and list (normal and pubsub clients: see ReplyListCount); 0 when there is none or the
     * class counts bytes (replicas: {@link #outputHardLimit}).
     */
    default long outputCountLimit() {
        return 0;
    }

    /** Reply bytes waiting to be written to the socket (CLIENT LIST omem); any thread. */
    default long pendingOutputBytes() {
        return 0;
    }

    /**
     * Redis's islocalClient: the peer is 127.0.0.1 or ::1 exactly (protected mode, enable-*
     * "local"). Clients inside the server (scripts, loading) count as local.
     */
    default boolean loopback() {
        return true;
    }
}

