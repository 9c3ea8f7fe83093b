package io.cinnabar.command;

/**
 * The network side of a client, as the keyspace thread sees it. Implemented by the network
 * package; every method is safe to call from the keyspace thread.
 */
public interface ClientChannel {
    /** Hands encoded replies back to the connection's event loop, then closes it if asked. */
    void send(byte[] replies, boolean closeAfterReply);

    /**
     * The same delivery as {@link #send}, as a task any thread may run later: replies that wait
     * for their writes to be fsynced (appendfsync always) are released by the persistence thread.
     */
    Runnable delivery(byte[] replies, boolean closeAfterReply);

    /** Closes the connection without replying (CLIENT KILL). */
    void close();

    /** "ip:port" of the peer. */
    String remoteAddress();

    /** "ip:port" of our side. */
    String localAddress();
}
