package io.cinnabar.command;

/** Server-wide counters for INFO; keyspace thread only. */
public final class ServerStats {
    public long totalConnectionsReceived;
    public long totalCommandsProcessed;
    public long rejectedConnections;
    public long totalErrorReplies;
    public long netInputBytes;
    public long netOutputBytes;
    public long unexpectedErrorReplies;

    public void reset() {
        totalConnectionsReceived = 0;
        totalCommandsProcessed = 0;
        rejectedConnections = 0;
        totalErrorReplies = 0;
        netInputBytes = 0;
        netOutputBytes = 0;
        unexpectedErrorReplies = 0;
    }
}
