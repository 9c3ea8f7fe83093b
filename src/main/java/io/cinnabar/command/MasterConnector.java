package io.cinnabar.command;

import java.nio.file.Path;
import java.util.List;

/**
 * The network side of a replica's link to its master (implemented by the network package): it
 * connects, sends the handshake, takes the RDB payload into a file, then reads the replication
 * stream and runs it as the master client's commands. What happens is told back through
 * {@link Events}, always on the keyspace thread.
 */
public interface MasterConnector {
    /**
     * Connects to host:port and sends handshake, one command after the other, each after the
     * reply to the one before: PING first, whose error replies other than NOAUTH, NOPERM and "ERR
     * operation not permitted" fail the link, then AUTH (whose error fails it), REPLCONFs (whose
     * errors are only logged), and last PSYNC, whose +FULLRESYNC starts the transfer (the payload
     * goes to payloadFile) and whose +CONTINUE goes on with the stream.
     */
    Link connect(String host, int port, List<byte[][]> handshake, Path payloadFile, Events events);

    /** One connection to the master. */
    interface Link {
        /** Closes the connection (an Events.closed follows). Any thread. */
        void close();

        /** Writes REPLCONF ACK offset to the master. Any thread. */
        void ack(long offset);

        /** After Events.payload: reads the stream after the payload as master's commands. */
        void stream(Client master);

        /** The master client's connection: its replies go nowhere. */
        ClientChannel clientChannel();
    }

    /** Keyspace thread. */
    interface Events {
        /** Connected; the handshake begins. */
        void connected();

        /** The master answered PSYNC +FULLRESYNC replid offset: the payload comes next. */
        void fullResync(String replid, long offset);

        /** The master answered PSYNC +CONTINUE [replid]: the stream goes on from the offset asked. */
        void continued(String replid);

        /** The master answered PSYNC with an error (the link then closes). */
        void psyncRefused(String reply);

        /** The payload begins: its length, or -1 for a diskless one that ends with a mark. */
        void receiving(long length);

        /** Bytes of the payload read so far, and its length (-1: diskless, unknown). */
        void transferring(long read, long total);

        /** The whole payload is in the file: load it, then {@link Link#stream}. */
        void payload(Path file);

        /** Runs a batch of the master's commands. */
        void run(Runnable batch);

        /** Any bytes arrived from the master. */
        void heard();

        /** The link failed or closed; why, for the log (null: closed on request). */
        void closed(String why);
    }
}
